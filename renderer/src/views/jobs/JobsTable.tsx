import { appStore, useApp } from '../../store/index.js';
import { formatTime } from '../../time-format.js';

/** The store's remote jobs, newest first; a click shows one (and streams its events). */
export function JobsTable() {
  const jobs = useApp((s) => s.remoteJobs);
  const shown = useApp((s) => s.shownRemoteJob);
  return (
    <div className="panel">
      <h3>Remote jobs</h3>
      <table data-testid="jobs-table">
        <thead><tr><th>#</th><th>Trainer</th><th>Job</th><th>Kind</th><th>Name</th><th>Status</th><th>Created</th><th>Policy</th></tr></thead>
        <tbody>
          {jobs.map((j) => (
            <tr key={j.id} className={j.id === shown ? 'selected clickable' : 'clickable'} data-testid={`remote-job-${j.id}`} onClick={() => void appStore().getState().showRemoteJob(j.id)}>
              <td>{j.id}</td>
              <td>{j.trainer}</td>
              <td className="mono">{j.remoteId ?? '—'}</td>
              <td>{j.kind}</td>
              <td>{j.name ?? ''}</td>
              <td>{j.status}{j.error ? ` (${j.error.code})` : ''}</td>
              <td className="muted">{formatTime(j.createdAt)}</td>
              <td className="mono training-path">{j.policyPath ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {jobs.length === 0 ? <div className="muted">No remote job yet.</div> : null}
    </div>
  );
}
