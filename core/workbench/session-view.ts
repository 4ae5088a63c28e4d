import type { EpisodeController, ProposalView } from '../episode/controller.js';
import type { EpisodeResult, StepRecord } from '../episode/record.js';
import { loadTrajectory, type EpisodeId, type WritableDB } from '../store/index.js';
import type { ProposalInfo, SessionEvent, SessionInfo, SessionStepInfo } from '../api/types.js';

/**
 * A session as the Agent view sees it: plain SessionInfo kept in step with an EpisodeController's events, for the
 * workbench's own step-through sessions and outside agents' episodes alike (core/workbench/sessions.ts,
 * core/workbench/outside-sessions.ts).
 */

export function proposalInfo(v: ProposalView): ProposalInfo {
  return {
    index: v.index, action: v.action, description: v.description, target: v.target, thought: v.thought ?? null,
    candidates: v.candidates ?? [], error: v.error ?? null, foreground: v.foreground, handover: v.handover ?? null,
  };
}

/**
 * A step as the live view shows it. An outside agent's prompt and reply stay in the store (the replay shows them): every
 * session event carries every step, and prompts with screenshots would make each event megabytes.
 */
export function stepInfo(s: StepRecord): SessionStepInfo {
  return {
    index: s.index, action: s.action ?? s.raw, description: s.description ?? null, thought: s.thought ?? null,
    target: s.target ? { bounds: s.target.bounds, label: s.target.label } : null, overridden: s.overridden ?? false,
    error: s.error ?? null, foreground: s.foreground, rewards: {},
  };
}

/** What the wiring needs of a session's entry: its info, and telling its viewers. */
export interface SessionView {
  info: SessionInfo;
  snapshot(): SessionInfo;
  emit(e: SessionEvent): void;
  /** Someone listens: events (a copy of the whole info each) are built only then. */
  watched(): boolean;
  /** What the session list shows of it may have changed (its state): list watchers hear of it if it did. */
  listed(): void;
}

/**
 * Mirrors a controller's events into the view: state, the held proposal, breakpoints hit, each step. `episodeId` is
 * read as recording begins. Returns the unsubscribe. The end of the episode is the caller's (finishView).
 */
export function followController(controller: EpisodeController, view: SessionView, episodeId: () => number | null): () => void {
  const { info } = view;
  const offs = [
    controller.on('onState', ({ state }) => {
      info.state = state;
      info.episodeId ??= episodeId();
      if (state === 'running') {
        info.proposal = null;
        info.hitBreakpoints = [];
      }
      if (view.watched()) view.emit({ kind: 'state', session: view.snapshot() });
      view.listed();
    }),
    controller.on('onProposal', (v) => {
      info.proposal = proposalInfo(v);
      info.episodeId ??= episodeId();
      if (view.watched()) view.emit({ kind: 'proposal', session: view.snapshot() });
    }),
    controller.on('onBreak', ({ breakpoints }) => {
      info.hitBreakpoints = breakpoints.map((b) => b.id);
      if (view.watched()) view.emit({ kind: 'break', session: view.snapshot(), breakpoints: info.hitBreakpoints });
    }),
    controller.on('onStep', (s) => {
      const step = stepInfo(s);
      info.steps.push(step);
      if (view.watched()) view.emit({ kind: 'step', session: view.snapshot(), step });
    }),
  ];
  return () => offs.forEach((off) => off());
}

/** The episode ended: its result, and the rewards as stored (the outcome on the last step, more kinds as computed). */
export function finishView(view: SessionView, r: EpisodeResult, db: WritableDB, episodeId: number | null): void {
  const { info } = view;
  info.episodeId = episodeId;
  info.proposal = null;
  info.state = 'finished';
  info.result = { status: r.status, success: r.success, terminatedBy: r.terminatedBy, error: r.error ?? null, answer: r.outcome.answer ?? null };
  // An outside agent's episodes end many times a second in a vector env: their stored rewards are read only for a viewer.
  if (episodeId !== null && (info.agent === null || view.watched())) {
    const stored = loadTrajectory(db, episodeId as EpisodeId).steps;
    for (const s of info.steps) {
      const rewards = stored.find((x) => x.index === s.index)?.rewards ?? {};
      s.rewards = Object.fromEntries(Object.entries(rewards).map(([k, v]) => [k, v.value]));
    }
  }
  if (view.watched()) view.emit({ kind: 'finished', session: view.snapshot() });
  view.listed();
}
