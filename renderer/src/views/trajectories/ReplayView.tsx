import { useEffect, useMemo, useState, type ReactNode } from 'react';
import type { Bounds, Trajectory } from '../../../../core/api/types.js';
import { appStore, useApp } from '../../store/index.js';
import { positionOf } from '../../store/slices/trajectories-replay.js';
import { ExplainPanel } from './ExplainPanel.js';
import { ComparePicker, CompareScreen, StepDiff } from './ComparePanel.js';
import { formatDuration, formatScore, formatTime, runLabel } from './format.js';
import { deviceSize, stepLine } from './overlay.js';
import { ReplayOnDevice } from './ReplayOnDevice.js';
import { BeforeAfter, MainScreen } from './ReplayScreens.js';
import { RewardsPanel } from './RewardsPanel.js';
import { WhyPanel } from './WhyPanel.js';
import { StepDetails } from './StepDetails.js';
import { TreePanel } from './TreePanel.js';
import type { ParsedTree } from './tree-model.js';

/**
 * The replay viewer: an episode's header, a timeline over its steps (and the final screen), and
 * for the current step the screen with the action drawn on it, before/after, the tree, and what
 * the policy thought, considered and was rewarded. ←/→ step, Home/End jump, Esc goes back.
 * Steps are numbered from 1 on screen, as the Agent view's log does; data and test ids use the 0-based index.
 */
function Header({ t, onBack }: { t: Trajectory; onBack(): void }) {
  const e = t.episode;
  const run = useApp((s) => s.facets?.runs.find((r) => r.id === e.runId) ?? null);
  // Opened from elsewhere (the Agent view), or a run newer than the filter's list: the list is read again, once.
  const missing = run === null;
  useEffect(() => {
    if (missing) void appStore().getState().loadFacets();
  }, [missing, e.runId]);
  const facts: Array<[string, ReactNode]> = [
    ['Task', <span className="mono">{t.instance.templateId}</span>],
    ['Seed', <span className="mono">{t.instance.seed}</span>],
    ['Policy', e.policy],
    ['Run', <span data-testid="replay-run">{run ? runLabel(run, true) : `#${e.runId}`}</span>],
    ['Ended by', e.terminatedBy ? e.terminatedBy.replace(/_/g, ' ') : '—'],
    ['Steps', `${e.stepsCount}${e.maxSteps ? ` / ${e.maxSteps}` : ''}`],
    ['Started', formatTime(e.startedAt)],
    ['Duration', formatDuration(e.finishedAt === null ? null : e.finishedAt - e.startedAt)],
    ['Device', e.device ? `${e.device.serial} (${e.device.width}×${e.device.height})` : '—'],
  ];
  // A GRPO rollout: where it sat in its iteration, and what the update learned from it.
  const r = t.rollout;
  if (r) {
    facts.splice(4, 0,
      ['Iteration', <span className="mono" data-testid="replay-iteration">{r.iteration}</span>],
      ['Group', <span className="mono" data-testid="replay-group" title={`group ${r.group} of its iteration, rollout ${r.index} of the group`}>g{r.group}/{r.index}</span>],
      ['Reward', <span className="mono" data-testid="replay-reward">{formatScore(r.reward)}</span>],
      ['Advantage', <span className="mono" data-testid="replay-advantage">{formatScore(r.advantage)}</span>]);
  }
  return (
    <header className="replay-header" data-testid="replay-header">
      <div className="row">
        <button onClick={onBack} title="Back to the episode list (Esc)" data-testid="replay-back">← Episodes</button>
        <h2 className="traj-title">Episode #{e.id}</h2>
        <span className={`traj-status traj-status-${e.status}`} data-testid="replay-status">{e.status}</span>
        <span className="replay-instruction" data-testid="replay-instruction">{t.instance.instruction}</span>
      </div>
      <dl className="replay-facts">
        {facts.map(([k, v]) => <div key={k}><dt>{k}</dt><dd>{v}</dd></div>)}
        {e.answer !== null ? <div><dt>Answer</dt><dd className="mono" data-testid="replay-answer">{e.answer}</dd></div> : null}
      </dl>
      {e.error ? <div className="replay-error" data-testid="replay-episode-error">{e.error.name}: {e.error.message}</div> : null}
      <WhyPanel verdict={e.verdict} />
    </header>
  );
}

function Timeline({ t, step }: { t: Trajectory; step: number }) {
  const setStep = useApp((s) => s.setReplayStep);
  const n = t.steps.length;
  return (
    <div className="replay-timeline">
      <button onClick={() => void setStep(step - 1)} disabled={step === 0} title="Previous step (←)" aria-label="Previous step">◀</button>
      <div className="replay-track">
        <input type="range" min={0} max={n} step={1} value={step} onChange={(e) => void setStep(Number(e.target.value))}
          aria-label="Step" aria-valuetext={step < n ? `Step ${step + 1}` : 'Final screen'} data-testid="timeline" />
        <div className="replay-markers">
          {Array.from({ length: n + 1 }, (_, i) => {
            const s = t.steps[i];
            const kind = !s ? 'end' : s.error ? 'err' : s.overridden ? 'ovr' : Object.values(s.rewards).some((r) => r.value > 0) ? 'rew' : '';
            return (
              <button key={i} className={`replay-marker ${kind}${i === step ? ' current' : ''}`} onClick={() => void setStep(i)}
                title={s ? `Step ${i + 1}: ${stepLine(s)}${s.error ? ` — ${s.error.name}` : ''}` : 'Final screen'}
                aria-label={s ? `Step ${i + 1}` : 'Final screen'} data-testid={`timeline-step-${i}`} tabIndex={-1} />
            );
          })}
        </div>
      </div>
      <button onClick={() => void setStep(step + 1)} disabled={step >= n} title="Next step (→)" aria-label="Next step">▶</button>
      <span className="replay-position mono" data-testid="replay-position">{step < n ? `step ${step + 1} of ${n}` : `end · ${n} steps`}</span>
    </div>
  );
}

function useParsedTree(hash: string | null): { tree: ParsedTree | null; status: string } {
  const tree = useApp((s) => (hash ? s.trees[hash] : undefined));
  const error = useApp((s) => (hash ? s.contentErrors[hash] : undefined));
  return useMemo(() => {
    if (!hash) return { tree: null, status: 'No tree recorded for this step.' };
    if (error) return { tree: null, status: `Tree unavailable — ${error}` };
    if (tree === undefined) return { tree: null, status: 'Loading tree…' };
    return { tree, status: '' };
  }, [hash, tree, error]);
}

const typing = (el: EventTarget | null) =>
  el instanceof HTMLElement && (el.tagName === 'INPUT' || el.tagName === 'SELECT' || el.tagName === 'TEXTAREA' || el.isContentEditable);

export function ReplayView() {
  const replay = useApp((s) => s.replay);
  const step = useApp((s) => s.replayStep);
  const close = useApp((s) => s.closeEpisode);
  const comparing = useApp((s) => s.compare !== null);
  const [hover, setHover] = useState<Bounds | null>(null);
  const t = replay?.trajectory ?? null;
  const pos = t ? positionOf(t, step) : null;
  const { tree, status } = useParsedTree(pos?.tree ?? null);
  const png = useApp((s) => (pos?.screenshot ? s.screenshots[pos.screenshot] : undefined)) ?? null;
  useEffect(() => setHover(null), [step]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      const s = appStore().getState();
      const n = s.replay?.trajectory?.steps.length ?? 0;
      const go: Record<string, () => unknown> = {
        ArrowLeft: () => s.setReplayStep(s.replayStep - 1),
        ArrowRight: () => s.setReplayStep(s.replayStep + 1),
        Home: () => s.setReplayStep(0),
        End: () => s.setReplayStep(n),
        Escape: () => s.closeEpisode(),
      };
      const f = go[e.key];
      if (f) {
        e.preventDefault();
        void f();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (!replay) return null;
  if (!t) {
    return (
      <div className="replay" data-testid="replay-view">
        <div className="row">
          <button onClick={close} data-testid="replay-back">← Episodes</button>
          {replay.error
            ? <span className="replay-error" role="alert">Episode #{replay.episodeId} could not be loaded — {replay.error}</span>
            : <span className="muted"><span className="spinner" aria-hidden /> Loading episode #{replay.episodeId}…</span>}
        </div>
      </div>
    );
  }
  const device = deviceSize(t, tree, png);
  const s = pos?.step ?? null;
  const a = s?.action as { index?: unknown } | undefined;
  const targetOrdinal = s?.target?.ordinal ?? (typeof a?.index === 'number' ? a.index : null);
  return (
    <div className="replay" data-testid="replay-view">
      <Header t={t} onBack={close} />
      <ExplainPanel t={t} />
      <div className="replay-tools">
        <ComparePicker />
        <span className="traj-spacer-x" />
        <ReplayOnDevice key={t.episode.id} t={t} step={step} />
      </div>
      <Timeline t={t} step={step} />
      <div className={`replay-body${comparing ? ' comparing' : ''}`}>
        <MainScreen t={t} step={step} tree={tree} device={device} hover={hover} />
        {comparing ? <CompareScreen step={step} /> : null}
        <div className="replay-middle">
          <BeforeAfter t={t} step={step} device={device} />
          <StepDetails t={t} step={step} tree={tree} onHover={setHover} />
          <StepDiff t={t} step={step} />
        </div>
        <TreePanel status={status} tree={tree} targetOrdinal={targetOrdinal} onHover={setHover} />
      </div>
      <RewardsPanel t={t} step={step} />
    </div>
  );
}
