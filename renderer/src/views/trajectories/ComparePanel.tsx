import { useMemo } from 'react';
import type { Trajectory } from '../../../../core/api/types.js';
import { Screen } from '../../components/Screen.js';
import { useApp } from '../../store/index.js';
import { positionOf } from '../../store/slices/trajectories-replay.js';
import { stepDiff } from './format.js';
import { deviceSize, stepOverlay } from './overlay.js';
import { useStoredPng } from './ReplayScreens.js';

/**
 * Side by side with a successful episode of the same template: its screen at the same step, and
 * the two step lists aligned by index with the first place they part ways marked.
 */
export function ComparePicker() {
  const candidates = useApp((s) => s.compareCandidates);
  const compareId = useApp((s) => s.compare?.episodeId ?? null);
  const select = useApp((s) => s.selectCompare);
  const none = candidates !== null && candidates.length === 0;
  return (
    <label className="traj-filter">
      <span>Compare with</span>
      <select value={compareId === null ? '' : String(compareId)} disabled={candidates === null || none}
        onChange={(e) => void select(e.target.value ? Number(e.target.value) : null)} data-testid="compare-select"
        title="A successful episode of the same task: its screen at the same step is shown next to this one">
        <option value="">{candidates === null ? 'Looking for successes…' : none ? 'No successful episode of this task' : `A success (${candidates.length})…`}</option>
        {(candidates ?? []).map((c) => (
          <option key={c.id} value={c.id}>#{c.id} · seed {c.seed} · {c.policy} · {c.steps} steps</option>
        ))}
      </select>
    </label>
  );
}

/** The compared episode's screen at the current step (or its final screen when it was shorter). */
export function CompareScreen({ step }: { step: number }) {
  const compare = useApp((s) => s.compare);
  const other = compare?.trajectory ?? null;
  const i = other ? Math.min(step, other.steps.length) : 0;
  const pos = other ? positionOf(other, i) : null;
  const { png, empty } = useStoredPng(pos?.screenshot ?? null);
  if (!compare) return null;
  if (!other) {
    return <div className="replay-figure muted" data-testid="compare-screen">{compare.error ?? 'Loading the episode to compare…'}</div>;
  }
  const device = deviceSize(other, null, png);
  const overlay = stepOverlay(pos!.step, null, device);
  return (
    <figure className="replay-figure replay-compare">
      <figcaption>
        <span className="traj-status traj-status-success">#{other.episode.id}</span>{' '}
        {pos!.step ? <>step {i + 1}</> : <>final screen{step > other.steps.length ? <span className="muted"> (it ended after {other.steps.length} steps)</span> : null}</>}
      </figcaption>
      <Screen testId="compare-screen" png={png} device={device} boxes={overlay.boxes} marker={overlay.marker} height={540} emptyText={empty} />
      {pos!.step ? <div className="replay-compare-action">{pos!.step.description ?? '—'}</div> : null}
    </figure>
  );
}

/** The two episodes' actions by step; clicking a row moves the timeline there. */
export function StepDiff({ t, step }: { t: Trajectory; step: number }) {
  const other = useApp((s) => s.compare?.trajectory ?? null);
  const setStep = useApp((s) => s.setReplayStep);
  const diff = useMemo(() => (other ? stepDiff(t.steps, other.steps) : null), [t, other]);
  if (!other || !diff) return null;
  return (
    <section className="replay-section replay-diff" data-testid="compare-diff">
      <h3>
        Steps vs #{other.episode.id}
        <span className="replay-section-extra">
          {diff.firstDivergence === null ? 'identical actions'
            : <button className="link" onClick={() => void setStep(diff.firstDivergence!)} data-testid="compare-first-divergence">
              first divergence: step {diff.firstDivergence + 1}
            </button>}
        </span>
      </h3>
      <table className="replay-table">
        <thead><tr><th>#</th><th>This episode</th><th>The success</th></tr></thead>
        <tbody>
          {diff.rows.map((r) => (
            <tr key={r.index}
              className={[r.same ? '' : 'replay-differs', r.index === diff.firstDivergence ? 'replay-diverge' : '', r.index === step ? 'replay-current' : ''].filter(Boolean).join(' ')}
              onClick={() => void setStep(r.index)} data-testid={`compare-diff-${r.index}`}>
              <td className="mono">{r.index + 1}</td>
              <td>{r.mine ?? <span className="muted">—</span>}</td>
              <td>{r.theirs ?? <span className="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
