import { parseAction, type Action } from '../actions/schema.js';
import { describeAction } from '../actions/kinds.js';
import { actionElement } from '../actions/target.js';
import type { Observation } from '../device/observation.js';
import { elementLabel, type Bounds } from '../a11y/ui-tree.js';
import { hits, type Breakpoint } from './breakpoints.js';
import { candidateProbabilities } from './confidence.js';
import { propose, runEpisode, type EndedFromOutside, type RunEpisodeOptions, type StepProposal } from './runner.js';
import type { PolicyDecision } from './policy.js';
import type { EpisodeResult, StepRecord } from './record.js';

/**
 * Step-through control of one episode, as a debugger controls a program: run, pause, step, stop,
 * breakpoints, and overriding the agent's next action. The episode holds at a *proposal* — the
 * policy has chosen an action for the current screen but it has not been carried out — so a
 * person sees what the agent is about to do and can replace it.
 */
export type ControllerState = 'idle' | 'running' | 'paused' | 'finished';

/** How an action reads and what it touches on the screen it was proposed for (for drawing it). */
export interface ActionSketch {
  /** One line, e.g. `Tap "Save" in Contacts`; null when it does not parse or fit the screen. */
  description: string | null;
  target: { bounds: Bounds; label: string } | null;
}

export interface ProposalView extends ActionSketch {
  index: number;
  /** The proposed action, verbatim. */
  action: unknown;
  thought?: string;
  /** The policy's alternatives, each with the policy's probability of it (core/episode/confidence.ts). */
  candidates?: Array<{ action: unknown; score: number; probability: number } & ActionSketch>;
  /** Why it does not parse, if it does not. */
  error?: { name: string; message: string };
  /** The policy wants a person to choose (why): the episode holds here even while running. */
  handover?: string;
  foreground: { package: string; activity: string };
}

export interface ControllerEvents {
  onState: { state: ControllerState; step: number };
  onProposal: ProposalView;
  onBreak: { breakpoints: Breakpoint[]; proposal: ProposalView };
  onStep: StepRecord;
  onFinished: EpisodeResult;
}

type Listener<T> = (event: T) => void;

/** Describes an action against a screen; anything that does not parse or fit gives nulls. */
export function sketchAction(raw: unknown, obs: Observation): ActionSketch {
  let action: Action;
  try {
    action = parseAction(raw);
  } catch {
    return { description: null, target: null };
  }
  let description: string | null = null;
  let target: ActionSketch['target'] = null;
  try {
    description = describeAction(action, obs);
    const el = actionElement(action, obs);
    if (el) target = { bounds: el.node.bounds, label: elementLabel(el) };
  } catch {
    // An index out of range or no focused field: the step would fail the same way; nothing to draw.
  }
  return { description, target };
}

function view(p: StepProposal): ProposalView {
  const v: ProposalView = { index: p.index, action: p.decision.action, foreground: p.obs.foreground, ...sketchAction(p.action ?? p.decision.action, p.obs) };
  if (p.decision.thought !== undefined) v.thought = p.decision.thought;
  const cands = p.decision.candidates;
  if (cands && cands.length) {
    const probability = candidateProbabilities(cands);
    v.candidates = cands.map((c, i) => ({ action: c.action, score: c.score, probability: probability[i]!, ...sketchAction(c.action, p.obs) }));
  }
  if (p.error) v.error = p.error;
  if (p.decision.handover !== undefined) v.handover = p.decision.handover;
  return v;
}

export class ControllerStateError extends Error {
  override name = 'ControllerStateError';
  constructor(readonly command: string, readonly state: ControllerState) {
    super(`Cannot ${command}: the episode is ${state}, not held at a proposal`);
  }
}

export class EpisodeController {
  private stateValue: ControllerState = 'idle';
  private mode: 'run' | 'pause' = 'pause';
  private stopRequested: EndedFromOutside | null = null;
  /** A new decision of the policy's for the held proposal (revise()). */
  private revision: PolicyDecision | undefined = undefined;
  private pendingOverride: unknown = undefined;
  /** The latest proposal (its screen is what a pending override is sketched against). */
  private latest: StepProposal | null = null;
  private release: (() => void) | null = null;
  private stepIndex = 0;
  private breakpoints: Breakpoint[] = [];
  private readonly listeners: { [K in keyof ControllerEvents]: Set<Listener<ControllerEvents[K]>> } = {
    onState: new Set(), onProposal: new Set(), onBreak: new Set(), onStep: new Set(), onFinished: new Set(),
  };
  private resultPromise: Promise<EpisodeResult> | null = null;
  /** The proposal the episode is holding at, if paused at one. */
  current: ProposalView | null = null;

  constructor(private readonly opts: Omit<RunEpisodeOptions, 'hooks'>, init: { breakpoints?: Breakpoint[]; startPaused?: boolean } = {}) {
    this.breakpoints = [...(init.breakpoints ?? [])];
    this.mode = init.startPaused === false ? 'run' : 'pause';
  }

  get state(): ControllerState {
    return this.stateValue;
  }

  on<K extends keyof ControllerEvents>(event: K, listener: Listener<ControllerEvents[K]>): () => void {
    this.listeners[event].add(listener);
    return () => this.listeners[event].delete(listener);
  }

  private emit<K extends keyof ControllerEvents>(event: K, payload: ControllerEvents[K]): void {
    for (const l of this.listeners[event]) l(payload);
  }

  private setState(s: ControllerState): void {
    if (this.stateValue === s) return;
    this.stateValue = s;
    this.emit('onState', { state: s, step: this.stepIndex });
  }

  setBreakpoints(list: Breakpoint[]): void {
    this.breakpoints = [...list];
  }

  getBreakpoints(): Breakpoint[] {
    return [...this.breakpoints];
  }

  /** Starts the episode (held at the first proposal unless started with startPaused: false). */
  start(): Promise<EpisodeResult> {
    if (this.resultPromise) return this.resultPromise;
    this.setState('running');
    this.resultPromise = runEpisode({
      ...this.opts,
      onStep: (step, obs) => {
        this.stepIndex = step.index + 1;
        this.emit('onStep', step);
        this.opts.onStep?.(step, obs);
      },
      hooks: {
        beforeStep: async () => (this.stopRequested === null ? 'continue' : this.stopRequested === 'aborted' ? 'abort' : 'stop'),
        beforeAct: (p) => this.atProposal(p),
      },
    }).then((result) => {
      this.current = null;
      this.setState('finished');
      this.emit('onFinished', result);
      return result;
    });
    return this.resultPromise;
  }

  private async atProposal(first: StepProposal): Promise<{ override?: unknown; revised?: PolicyDecision; stop?: EndedFromOutside }> {
    let p = first;
    let revised: PolicyDecision | undefined;
    for (;;) {
      const v = view(p);
      this.latest = p;
      this.emit('onProposal', v);
      if (this.stopRequested) return { stop: this.stopRequested };
      // Evaluated while stepping too, as a debugger reports the breakpoint a step lands on.
      const hit = hits(this.breakpoints, p);
      if (hit.length) {
        this.mode = 'pause';
        this.emit('onBreak', { breakpoints: hit, proposal: v });
      }
      // Running on would record the placeholder the policy proposed; hold for the person instead.
      if (v.handover !== undefined) this.mode = 'pause';
      if (this.mode !== 'pause') break;
      this.current = v;
      this.setState('paused');
      await new Promise<void>((resolve) => {
        this.release = resolve;
      });
      this.release = null;
      this.current = null;
      this.setState('running');
      if (this.stopRequested) return { stop: this.stopRequested };
      const next = this.revision;
      this.revision = undefined;
      if (next === undefined) break;
      // The policy changed its mind while held: the new proposal is seen, and judged by the breakpoints, as the first was.
      revised = next;
      p = propose(p.index, p.obs, next);
    }
    const override = this.pendingOverride;
    this.pendingOverride = undefined;
    return { ...(override === undefined ? {} : { override }), ...(revised ? { revised } : {}) };
  }

  private resume(mode: 'run' | 'pause'): void {
    this.mode = mode;
    this.release?.();
  }

  /** Carry on until a breakpoint or the end. */
  run(): void {
    this.resume('run');
  }

  /** Carry out the held proposal (or the override), then hold at the next one. */
  step(): void {
    this.resume('pause');
  }

  /** Hold at the next proposal. */
  pause(): void {
    this.mode = 'pause';
  }

  /** End the episode; it is recorded as stopped (by a person), or aborted (its outside agent left it). */
  stop(how: EndedFromOutside = 'stopped'): void {
    this.stopRequested ??= how;
    this.release?.();
  }

  /**
   * Replaces the held proposal with a new decision of the policy's (an outside agent's next action after a person handed
   * the episode back), then goes on in `mode`. Only while held at a proposal (ControllerStateError otherwise).
   */
  revise(decision: PolicyDecision, mode: 'run' | 'pause'): void {
    if (!this.release) throw new ControllerStateError('revise', this.stateValue);
    this.revision = decision;
    this.resume(mode);
  }

  /** Whether the episode is held at a proposal (paused, at a breakpoint, or waiting for a person). */
  get held(): boolean {
    return this.release !== null;
  }

  /** The screen of the proposal the episode is held at; null when not held. */
  heldObservation(): Observation | null {
    return this.release && this.latest ? this.latest.obs : null;
  }

  /**
   * Replaces the agent's next action (the held proposal when paused). Throws ActionParseError for
   * a malformed action, so the person gets the error, not the episode.
   */
  override(action: unknown): void {
    this.pendingOverride = parseAction(action);
  }

  /** The override the next step will carry out, sketched on the latest proposal's screen; null if none. */
  pending(): ({ action: unknown } & ActionSketch) | null {
    if (this.pendingOverride === undefined) return null;
    const sketch = this.latest ? sketchAction(this.pendingOverride, this.latest.obs) : { description: null, target: null };
    return { action: this.pendingOverride, ...sketch };
  }
}
