import type { IterationMetricsRow, TrainingRunInfo } from '../../../../core/api/types.js';
import { appStore, useApp } from '../../store/index.js';
import { activeJob } from '../../store/slices/training.js';
import { formatMetric } from './chart-data.js';
import { progressUnit } from './health.js';
import { formatTime } from '../../time-format.js';

/** A stored run's row with the latest streamed iteration, when that is newer. */
function withLive(r: TrainingRunInfo, latest: IterationMetricsRow | undefined): TrainingRunInfo {
  return latest && latest.iteration > r.iterations ? { ...r, iterations: latest.iteration, last: latest.metrics } : r;
}

/** A fixed table's column widths (px; null: an equal share of what is left), so it fits its pane and cuts text with an ellipsis. */
export function Cols({ widths }: { widths: ReadonlyArray<number | null> }) {
  return <colgroup>{widths.map((w, i) => <col key={i} style={w === null ? undefined : { width: w }} />)}</colgroup>;
}

/** Stored training runs (click one to chart it) and checkpoint folders (resume a GRPO one). */
export function RunTables() {
  const runs = useApp((s) => s.trainingRuns);
  const checkpoints = useApp((s) => s.checkpoints);
  const shown = useApp((s) => s.chartRunId);
  // A live run's row follows its iterations as they stream (the store listing is refreshed on state changes).
  const live = useApp((s) => s.runMetrics);
  const busy = useApp((s) => activeJob(s) !== null);
  const overlays = useApp((s) => s.overlayRunIds);
  const st = appStore().getState();
  return (
    <div className="training-tables">
      <div className="panel">
        <h3>Runs</h3>
        <table data-testid="training-runs" className="fixed-table">
          <Cols widths={[36, null, 90, 40, 62, 50, 52, 136, 150]} />
          <thead><tr><th title="Run">#</th><th>Name</th><th>Status</th><th title="Iterations (GRPO) or epochs (SFT)">It.</th><th>Success</th><th title="Top-1 accuracy (SFT)">Top-1</th><th>Loss</th><th>Started</th><th /></tr></thead>
          <tbody>
            {runs.map((stored) => withLive(stored, live[stored.runId]?.at(-1))).map((r) => (
              <tr key={r.runId} className={r.runId === shown ? 'selected clickable' : 'clickable'} data-testid={`training-run-${r.runId}`} onClick={() => void st.showRun(r.runId)}>
                <td>{r.runId}</td>
                <td title={r.name}>{r.name}</td>
                <td title={r.job ? `${r.status}, ${r.job.id} ${r.job.state}` : r.status}>{r.status}{r.job ? <span className="muted small"> · {r.job.id}</span> : null}</td>
                <td title={`${r.iterations} ${r.trainer !== null && progressUnit(r.trainer) === 'epoch' ? 'epochs' : 'iterations'}`}>{r.iterations}</td>
                {/* SFT has no rollouts: its accuracy at imitating the oracle is not a success rate. */}
                <td>{formatMetric(r.last?.['success/rate'])}</td>
                <td>{formatMetric(r.last?.['acc/top1'])}</td>
                <td>{formatMetric(r.last?.['loss/policy'] ?? r.last?.['loss/nll'])}</td>
                <td className="muted mono small">{formatTime(r.createdAt)}</td>
                <td className="actions" onClick={(e) => e.stopPropagation()}><div className="cell-actions">
                  <button type="button" className="link" data-testid={`run-episodes-${r.runId}`} title="Its rollouts (GRPO) or demonstrations (SFT) in Trajectories"
                    onClick={() => st.openRunEpisodes(r.runId)}>Episodes</button>
                  <label title="Draw this run over the shown run's charts">
                    <input type="checkbox" data-testid={`overlay-${r.runId}`} disabled={r.runId === shown} checked={overlays.includes(r.runId)}
                      onChange={() => st.toggleOverlayRun(r.runId)} /> overlay
                  </label>
                </div></td>
              </tr>
            ))}
          </tbody>
        </table>
        {runs.length === 0 ? <div className="muted">No training run in this store yet.</div> : null}
      </div>
      <div className="panel">
        <h3>Checkpoints</h3>
        <table data-testid="training-checkpoints" className="fixed-table">
          <Cols widths={[null, 56, 40, 104, 136, 200]} />
          <thead><tr><th>Name</th><th>Trainer</th><th>It.</th><th>Policy file</th><th>Updated</th><th /></tr></thead>
          <tbody>
            {checkpoints.map((c) => (
              <tr key={c.name} data-testid={`checkpoint-${c.name}`}>
                <td className="mono small" title={c.name}>{c.name}</td>
                <td>{c.trainer ?? '?'}</td>
                <td>{c.iteration ?? '?'}</td>
                <td className="mono training-path" title={`awb eval --policy ${c.policy}`}>{c.policy}</td>
                <td className="muted mono small">{formatTime(c.updatedAt)}</td>
                <td className="actions"><div className="cell-actions">
                  <button type="button" disabled={!c.resumable || busy} title={c.resumable ? 'Continue this GRPO run from here' : 'Only a builtin GRPO checkpoint (trainer.json) can be resumed'}
                    onClick={() => void st.resumeTraining({ checkpoint: c.name })}>Resume</button>
                  <button type="button" data-testid={`use-as-init-${c.name}`}
                    title={`Start a new ${c.model === 'transformer' ? 'transformer ' : ''}GRPO run from this checkpoint (the New run form's init)`}
                    onClick={() => st.useAsInit(c.name, c.model === 'transformer' ? 'transformer-grpo' : 'grpo')}>Use as init</button>
                  <button type="button" data-testid={`evaluate-${c.name}`} title={`Evaluate this checkpoint below (as awb eval --policy ${c.policy})`}
                    onClick={() => st.setEvaluationForm({ policy: `checkpoint:${c.name}` })}>Evaluate</button>
                  <button type="button" data-testid={`run-in-agent-${c.name}`} title="Run it step by step in the Agent view"
                    onClick={() => st.runInAgent(`checkpoint:${c.name}`)}>Run in Agent</button>
                </div></td>
              </tr>
            ))}
          </tbody>
        </table>
        {checkpoints.length === 0 ? <div className="muted">No checkpoint under the data folder's checkpoints/ yet.</div> : null}
      </div>
    </div>
  );
}
