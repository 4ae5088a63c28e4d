import type { IterationMetricsRow } from '../../../../core/api/types.js';
import { useApp } from '../../store/index.js';
import { isTrainingJob } from '../../store/slices/training.js';
import { MetricChart } from './MetricChart.js';

const NO_ROWS: never[] = [];

function metricsOf(rows: readonly IterationMetricsRow[]): Array<{ metric: string; label: string }> {
  const names = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r.metrics)) names.add(k);
  return [...names].map((m) => ({ metric: m, label: m }));
}

/** The shown run's metrics, one small chart each (the trainer's chart list, from the server). */
export function MetricCharts() {
  const runId = useApp((s) => s.chartRunId);
  const rows = useApp((s) => (s.chartRunId !== null ? s.runMetrics[s.chartRunId] ?? NO_ROWS : NO_ROWS));
  const run = useApp((s) => s.trainingRuns.find((r) => r.runId === s.chartRunId) ?? null);
  const jobKind = useApp((s) => s.trainingJobs.filter(isTrainingJob).find((j) => j.runId !== null && j.runId === s.chartRunId)?.kind ?? null);
  const descriptions = useApp((s) => s.trainDescriptions);
  const kind = run?.trainer ?? jobKind ?? 'grpo';
  // A run of no local trainer (online GRPO against a remote one, docs/online-grpo.md) has its own metric names: each gets a chart.
  const charts = run && run.trainer === null && jobKind === null ? metricsOf(rows) : descriptions[kind]?.charts ?? [];
  if (runId === null) return <div className="panel muted">No run to chart yet.</div>;
  return (
    <div className="training-charts" data-testid="training-charts" data-run={runId}>
      <div className="row">
        <h3>Run {runId}</h3>
        <span className="muted">{run?.name ?? ''} · {rows.length} iteration{rows.length === 1 ? '' : 's'}</span>
      </div>
      <div className="chart-grid">
        {charts.map((c) => <MetricChart key={`${runId}/${c.metric}`} metric={c.metric} label={c.label} rows={rows} />)}
      </div>
    </div>
  );
}
