import { useMemo } from 'react';
import { useApp } from '../../store/index.js';
import { shownAdaptJob } from '../../store/slices/adaptation.js';
import { BeforeAfterBars } from './BeforeAfterBars.js';
import { barRows, formatPoints, formatRate } from './bars.js';

/** The shown job's report: before vs after, overall and per held-out template, with the delta in points. */
export function AdaptResult() {
  const report = useApp((s) => {
    const job = shownAdaptJob(s);
    return job ? s.adaptReports[job.id] ?? null : null;
  });
  // Memoised on the report: the chart is rebuilt only when its rows change.
  const rows = useMemo(() => (report ? barRows(report) : []), [report]);
  if (!report) return null;
  const seeds = report.evalSeeds.join(', ');
  return (
    <div className="panel adapt-result" data-testid="adapt-result">
      <div className="row">
        <h3>{report.app}: before → after</h3>
        <span className="adapt-delta" data-testid="adapt-delta" data-delta={report.delta ?? ''}>
          {formatRate(report.before?.successRate ?? null)} → {formatRate(report.after?.successRate ?? null)} ({formatPoints(report.delta === null ? null : report.delta * 100)} points)
        </span>
        <span className="muted">mean over seeds {seeds} · {report.regime} · {report.adapter.kind}{report.adapter.kind === 'lowrank' ? ` r=${report.adapter.rank}` : ''}, {report.adapter.parameters} parameters</span>
      </div>
      {report.stoppedBy === 'aborted' ? <div className="muted">Stopped early: a phase that did not finish has no bar.</div> : null}
      <BeforeAfterBars rows={rows} />
      <table className="adapt-table" data-testid="adapt-table">
        <thead><tr><th>Template</th><th>Difficulty</th><th>Before</th><th>After</th><th>Δ points</th></tr></thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.label} className={r.difficulty === null ? 'adapt-overall' : ''}>
              <td className={r.difficulty === null ? '' : 'mono'}>{r.label}</td>
              <td>{r.difficulty ?? ''}</td>
              <td>{formatRate(r.before)}</td>
              <td>{formatRate(r.after)}</td>
              <td className={r.deltaPoints !== null && r.deltaPoints > 0 ? 'adapt-up' : r.deltaPoints !== null && r.deltaPoints < 0 ? 'adapt-down' : ''}>{formatPoints(r.deltaPoints)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
