import type { IterationMetricsRow } from '../../../../core/api/types.js';
import { noSignalAdvice, noSignalWarning, progressUnit } from './health.js';
import { appStore, useApp } from '../../store/index.js';
import { isTrainingJob } from '../../store/slices/training.js';
import { MetricChart } from './MetricChart.js';
import { Cols } from './RunTables.js';
import { configDiff, type ChartRun, type ChartXAxis } from './chart-data.js';

const shownValue = (v: unknown) => (v === undefined ? '—' : JSON.stringify(v));

/** Where two runs' configs differ (W&B's run comparer): the shown run against the first overlaid one. */
function ConfigDiff({ a, b }: { a: number; b: number }) {
  const ra = useApp((s) => s.trainingRuns.find((r) => r.runId === a) ?? null);
  const rb = useApp((s) => s.trainingRuns.find((r) => r.runId === b) ?? null);
  if (!ra || !rb) return null;
  const rows = configDiff(ra.config, rb.config);
  return (
    <details className="panel config-diff" data-testid="config-diff" data-rows={rows.length}>
      <summary>Config: run {a} vs run {b} — {rows.length ? `${rows.length} setting${rows.length === 1 ? '' : 's'} differ` : 'the same'}</summary>
      {rows.length ? (
        <table className="fixed-table">
          <Cols widths={[null, null, null]} />
          <thead><tr><th>Setting</th><th>run {a}</th><th>run {b}</th></tr></thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.path} data-testid={`config-diff-${r.path}`}>
                <td className="mono small" title={r.path}>{r.path}</td>
                <td className="mono small" title={shownValue(r.a)}>{shownValue(r.a)}</td>
                <td className="mono small" title={shownValue(r.b)}>{shownValue(r.b)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </details>
  );
}

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
  const axis = useApp((s) => s.chartXAxis);
  const allRuns = useApp((s) => s.trainingRuns);
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
  const nameOf = (id: number) => {
    const r = allRuns.find((x) => x.runId === id);
    return r ? `#${id} ${r.name}` : `run ${id}`;
  };
  const runs: ChartRun[] = [runId, ...overlayIds.filter((id) => id !== runId)].map((id) => ({ runId: id, label: nameOf(id), rows: id === runId ? rows : metrics[id] ?? NO_ROWS }));
  const st = appStore().getState();
  // A point of a run opens that iteration's rollouts (a GRPO run's; an SFT run's epochs have none).
  const pick = (id: number, iteration: number) => st.openRunEpisodes(id, iteration);
  return (
    <div className="training-charts" data-testid="training-charts" data-run={runId}>
      <div className="row">
        <h3>Run {runId}</h3>
        <span className="muted">{run?.name ?? ''} · {rows.length} {progressUnit(kind)}{rows.length === 1 ? '' : 's'}</span>
        {runs.length > 1 ? <span className="muted" data-testid="chart-overlays">overlaid: {runs.slice(1).map((r) => `run ${r.runId}`).join(', ')}</span> : null}
        <label className="row" title="What the x axis counts (W&B's and TensorBoard's step, relative time)">
          x
          <select value={axis} data-testid="chart-x-axis" onChange={(e) => st.setChartXAxis(e.target.value as ChartXAxis)}>
            <option value="iteration">{progressUnit(kind)}</option>
            <option value="steps" disabled={progressUnit(kind) === 'epoch'}>environment steps</option>
            <option value="time">training time</option>
          </select>
        </label>
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
      {kind === 'grpo' || kind === 'transformer-grpo' ? <NoSignal rows={rows} init={init} /> : null}
      {runs.length > 1 ? <ConfigDiff a={runs[0]!.runId} b={runs[1]!.runId} /> : null}
      <div className="chart-grid">
        {charts.map((c) => (
          <MetricChart key={`${runId}/${c.metric}`} metric={c.metric} label={c.label} runs={runs} smoothing={smoothing} marker={axis === 'iteration' ? marker : null}
            log={logMetrics.includes(c.metric)} onToggleLog={() => st.toggleChartLog(c.metric)} axis={axis} {...(kind === 'grpo' ? { onPick: pick } : {})} />
        ))}
      </div>
    </div>
  );
}
