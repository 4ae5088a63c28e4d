import { useApp } from '../../store/index.js';
import { formatPoints, formatRate } from './bars.js';
import { formatTime } from '../../time-format.js';
import { Cols } from '../training/RunTables.js';

const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;

/** Adapters stored under the data folder: one per app and base checkpoint, selected by the foreground package at inference. */
export function AdaptersTable() {
  const adapters = useApp((s) => s.adapters);
  return (
    <div className="panel training-tables">
      <h3>Stored adapters</h3>
      <table data-testid="adapters" className="fixed-table">
        <Cols widths={[104, 132, null, 80, 150, 72, 128, null]} />
        <thead><tr><th>App</th><th>Adapter</th><th>Base checkpoint</th><th>Method</th><th>Before → after</th><th>Size</th><th>Updated</th><th>File</th></tr></thead>
        <tbody>
          {adapters.map((a) => (
            <tr key={a.path} data-testid={`adapter-${a.app ?? 'invalid'}`}>
              <td>{a.app ?? <span className="settings-error">unreadable</span>}</td>
              <td>{a.kind ? `${a.kind}${a.rank !== null ? ` r=${a.rank}` : ''}, ${a.parameters} params` : ''}</td>
              <td className="mono small" title={a.base.checkpoint ?? a.base.sha256 ?? ''}>{a.base.checkpoint ?? (a.base.sha256 ? `${a.base.sha256.slice(0, 12)}…` : '')}</td>
              <td>{a.method ?? ''}{a.stoppedBy === 'aborted' ? ' (stopped)' : ''}</td>
              <td>{a.report ? `${formatRate(a.report.before)} → ${formatRate(a.report.after)} (${formatPoints(a.report.delta === null ? null : a.report.delta * 100)})` : ''}</td>
              <td>{kib(a.bytes)}</td>
              <td className="muted mono small">{formatTime(a.updatedAt)}</td>
              <td className="mono training-path" title={a.problem ?? a.path}>{a.problem ?? a.path}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {adapters.length === 0 ? <div className="muted">No adapter under the data folder's adapters/ yet.</div> : null}
    </div>
  );
}
