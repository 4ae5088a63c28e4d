import { useApp } from '../store/index.js';

/** Failed calls, named, with what the user was doing; dismissible. Each shows on the view it happened on. */
export function ErrorBar() {
  const all = useApp((s) => s.errors);
  const view = useApp((s) => s.view);
  const errors = all.filter((e) => e.view === view);
  const dismiss = useApp((s) => s.dismissError);
  const activities = useApp((s) => s.activities);
  const running = Object.values(activities).filter((a) => a.state === 'running');
  return (
    <div className="status-area">
      {running.map((a) => (
        <div key={a.id} className="activity" role="status">
          <span className="spinner" aria-hidden /> {a.label}
          {a.total ? ` (${a.done}/${a.total})` : '…'}
        </div>
      ))}
      {errors.map((e) => (
        <div key={e.id} className="error" role="alert" data-testid="error-banner">
          <strong>{e.action} failed</strong> — {e.name}: {e.message}
          <button className="link" onClick={() => dismiss(e.id)} aria-label="Dismiss">×</button>
        </div>
      ))}
    </div>
  );
}
