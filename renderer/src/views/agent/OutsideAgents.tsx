import { useEffect } from 'react';
import type { SessionInfo } from '../../../../core/api/types.js';
import { appStore, useApp } from '../../store/index.js';
import { outsideStateWord, outsideStatus } from './outside.js';

/**
 * Outside agents' sessions (Python programs on the environment server), listed live; Attach shows one here like a
 * step-through session. The session attached stays listed after its agent left, marked disconnected, until detached.
 */
export function OutsideAgents() {
  const listed = useApp((s) => s.outsideSessions);
  const attached = useApp((s) => s.session);
  const attachedId = useApp((s) => s.sessionId);
  useEffect(() => appStore().getState().watchOutsideSessions(), []);
  const rows: SessionInfo[] = attached?.agent && !listed.some((s) => s.id === attached.id) ? [...listed, attached] : listed;

  return (
    <section className="panel agent-outside" aria-label="Outside agents" data-testid="outside-agents">
      <h3>Outside agents <span className="muted agent-sub">{listed.length ? `${listed.length} connected` : ''}</span></h3>
      {rows.length === 0 ? (
        <div className="muted">
          No outside agent connected. A Python agent connects to this workbench's environment endpoint (/env) and shows here
          (docs/outside-agents.md).
        </div>
      ) : (
        <table className="agent-outside-table">
          <thead>
            <tr><th>Agent</th><th>Run</th><th>Task</th><th>Episode</th><th>Device</th><th>State</th><th /></tr>
          </thead>
          <tbody>
            {rows.map((s) => {
              const a = s.agent!;
              const mine = s.id === attachedId;
              return (
                <tr key={s.id} data-testid={`outside-row-${s.id}`} data-state={s.state} className={mine ? 'attached' : undefined}>
                  <td className="agent-outside-name" title={`session ${s.id}`}>{a.name}</td>
                  <td className="traj-ellipsis" title={a.run.name}>#{a.run.id} {a.run.name}</td>
                  <td className="traj-ellipsis" title={s.instruction}>{s.templateId ? `${s.templateId} #${s.seed}` : '—'}</td>
                  <td className="mono">{a.episodes}</td>
                  <td className="mono">{s.serial}</td>
                  <td>
                    <span className={`agent-outside-dot ${a.connected ? 'on' : 'off'}`} aria-hidden />
                    <span data-testid={`outside-state-${s.id}`}>{outsideStateWord(s)}</span>
                  </td>
                  <td>
                    {mine
                      ? <button data-testid="outside-detach" onClick={() => appStore().getState().closeSession()} title="Stop watching this session (the agent goes on)">Detach</button>
                      : <button data-testid={`outside-attach-${s.id}`} disabled={!a.connected} onClick={() => void appStore().getState().openSession(s.id)}>Attach</button>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** What is happening in the attached outside session, in a sentence (nothing for the workbench's own sessions). */
export function OutsideStatus() {
  const session = useApp((s) => s.session);
  const status = session ? outsideStatus(session) : null;
  if (!status) return null;
  return (
    <div className={`agent-outside-status ${status.phase}`} role="status" data-testid="outside-status" data-phase={status.phase}>
      <strong>{session!.agent!.name}</strong> · {status.text}
    </div>
  );
}
