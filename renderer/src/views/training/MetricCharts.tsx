import type { IterationMetricsRow } from '../../../../core/api/types.js';
import { noSignalAdvice, noSignalWarning } from './health.js';
import { appStore, useApp } from '../../store/index.js';
import { isTrainingJob } from '../../store/slices/training.js';
import { MetricChart } from './MetricChart.js';
import type { ChartRun } from './chart-data.js';

const NO_ROWS: never[] = [];

function metricsOf(rows: readonly IterationMetricsRow[]): Array<{ metric: string; label: string }> {
  const names = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r.metrics)) names.add(k);
  return [...names].map((m) => ({ metric: m, label: m }));
}

/** The no-signal warning: K iterations in a row where every group had the same reward in all its rollouts. */
function NoSignal({ rows, init }: { rows: readonly IterationMetricsRow[]; init: string | null }) {
  const w = noSignalWarning(rows);
  if (!w) return null;
  const { cause, says, advice } = noSignalAdvice(rows, w, init);
  return (
    <div className="settings-error" role="alert" data-testid="training-no-signal" data-cause={cause}>
      <strong>No learning signal</strong> for {w.iterations} iterations ({w.from}–{w.to}): {says}, so every group had zero reward
      variance and the policy got no gradient. Try: {advice.join('; ')}.
    </div>
  );
}

/** The shown run's metrics, one small chart each (the trainer's chart list, from the server), with other runs overlaid. */
export function MetricCharts() {
  const runId = useApp((s) => s.chartRunId);
  const rows = useApp((s) => (s.chartRunId !== null ? s.runMetrics[s.chartRunId] ?? NO_ROWS : NO_ROWS));
  const run = useApp((s) => s.trainingRuns.find((r) => r.runId === s.chartRunId) ?? null);
  const job = useApp((s) => s.trainingJobs.filter(isTrainingJob).find((j) => j.runId !== null && j.runId === s.chartRunId) ?? null);
  const jobKind = job?.kind ?? null;
  const runsLoaded = useApp((s) => s.trainingRunsLoaded);
  const descriptions = useApp((s) => s.trainDescriptions);
  const smoothing = useApp((s) => s.chartSmoothing);
  const marker = useApp((s) => s.chartMarker);
  const overlayIds = useApp((s) => s.overlayRunIds);
  const metrics = useApp((s) => s.runMetrics);
  const logMetrics = useApp((s) => s.chartLogMetrics);
  const kind = run?.trainer ?? jobKind ?? 'grpo';
  // A run of no local trainer (online GRPO against a remote one, docs/online-grpo.md) has its own metric names: each gets a chart.
  const charts = run && run.trainer === null && jobKind === null ? metricsOf(rows) : descriptions[kind]?.charts ?? [];
  if (runId === null) return <div className="panel muted">No run to chart yet.</div>;
  // A link to a run this store does not have (deleted, or from another data folder) is not an empty run.
  if (runsLoaded && run === null && job === null) {
    return (
      <div className="panel training-charts" data-testid="training-charts" data-run={runId} data-missing="true">
        <div className="settings-error" role="alert" data-testid="training-run-missing">
          There is no training run {runId} in this store: it was deleted, or the link comes from another data folder. Choose a run below.
        </div>
      </div>
    );
  }
  const config = run?.config ?? job?.config ?? {};
  const init = typeof config.init === 'string' ? config.init : null;
  const runs: ChartRun[] = [{ runId, rows }, ...overlayIds.filter((id) => id !== runId).map((id) => ({ runId: id, rows: metrics[id] ?? NO_ROWS }))];
  const st = appStore().getState();
  return (
    <div className="training-charts" data-testid="training-charts" data-run={runId}>
      <div className="row">
        <h3>Run {runId}</h3>
        <span className="muted">{run?.name ?? ''} · {rows.length} {kind === 'sft' ? 'epoch' : 'iteration'}{rows.length === 1 ? '' : 's'}</span>
        {runs.length > 1 ? <span className="muted" data-testid="chart-overlays">overlaid: {runs.slice(1).map((r) => `run ${r.runId}`).join(', ')}</span> : null}
        <label className="row" title="Exponential moving average, as TensorBoard's smoothing slider; the raw values stay faint behind">
          Smoothing
          <input type="range" min={0} max={0.99} step={0.01} value={smoothing} data-testid="chart-smoothing"
            onChange={(e) => st.setChartSmoothing(Number(e.target.value))} />
          <span className="mono">{smoothing.toFixed(2)}</span>
        </label>
        {marker !== null ? (
          <span className="muted" data-testid="chart-marker">
            marked: iteration {marker}{' '}
            <button type="button" className="link" onClick={() => st.openRunEpisodes(runId, marker)}>its rollouts</button>
          </span>
        ) : null}
      </div>
      {kind === 'grpo' ? <NoSignal rows={rows} init={init} /> : null}
      <div className="chart-grid">
        {charts.map((c) => (
          <MetricChart key={`${runId}/${c.metric}`} metric={c.metric} label={c.label} runs={runs} smoothing={smoothing} marker={marker}
            log={logMetrics.includes(c.metric)} onToggleLog={() => st.toggleChartLog(c.metric)} />
        ))}
      </div>
    </div>
  );
}
