import { useApp } from '../../store/index.js';
import { isTrainingJob } from '../../store/slices/training.js';
import { MetricChart } from './MetricChart.js';

const NO_ROWS: never[] = [];

/** The shown run's metrics, one small chart each (the trainer's chart list, from the server). */
export function MetricCharts() {
  const runId = useApp((s) => s.chartRunId);
  const rows = useApp((s) => (s.chartRunId !== null ? s.runMetrics[s.chartRunId] ?? NO_ROWS : NO_ROWS));
  const run = useApp((s) => s.trainingRuns.find((r) => r.runId === s.chartRunId) ?? null);
  const jobKind = useApp((s) => s.trainingJobs.filter(isTrainingJob).find((j) => j.runId !== null && j.runId === s.chartRunId)?.kind ?? null);
  const descriptions = useApp((s) => s.trainDescriptions);
  const kind = run?.trainer ?? jobKind ?? 'grpo';
  const charts = descriptions[kind]?.charts ?? [];
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
