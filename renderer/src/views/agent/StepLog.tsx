import { useEffect, useRef } from 'react';
import type { SessionInfo } from '../../../../core/api/types.js';
import { useApp } from '../../store/index.js';
import { actionJson } from './format.js';

function ResultBanner({ session }: { session: SessionInfo }) {
  const open = useApp((s) => s.openSessionEpisode);
  const r = session.result;
  if (!r) return null;
  return (
    <div className={`agent-result ${r.status}`} data-testid="session-result" data-status={r.status} role="status">
      <strong>{r.status === 'success' ? 'Success' : r.status === 'failure' ? 'Failure' : 'Error'}</strong>
      <span> — ended by {r.terminatedBy.replace(/_/g, ' ')}</span>
      {r.answer !== null ? <span> · answer “{r.answer}”</span> : null}
      {r.error ? <div className="agent-error">{r.error.name}: {r.error.message}</div> : null}
      {session.episodeId !== null ? (
        <button className="link agent-open-episode" data-testid="session-open-episode" onClick={open}>Open episode {session.episodeId} in Trajectories →</button>
      ) : null}
    </div>
  );
}

/** Every step carried out so far (newest last, kept in view), then the result. */
export function StepLog() {
  const session = useApp((s) => s.session);
  const end = useRef<HTMLDivElement>(null);
  const count = session?.steps.length ?? 0;
  // Braces: newer Chromium's scrollIntoView returns a promise, which React would take for a cleanup.
  useEffect(() => {
    end.current?.scrollIntoView?.({ block: 'nearest' });
  }, [count, session?.result]);

  return (
    <section className="panel agent-log" aria-label="Step log">
      <h3>
        {session?.agent ? `Steps of episode ${session.agent.episodes}` : 'Steps'} {session ? <span className="muted agent-sub">{count}</span> : null}
      </h3>
      <ol className="agent-steps" data-testid="step-log">
        {session?.steps.map((s) => (
          <li key={s.index} data-testid={`step-row-${s.index}`} className={s.error ? 'agent-step failed' : 'agent-step'} data-overridden={s.overridden || undefined}>
            <div className="agent-step-head">
              <span className="agent-step-n">{s.index + 1}</span>
              <span className="agent-step-desc" title={actionJson(s.action)}>{s.description ?? actionJson(s.action)}</span>
              {s.overridden ? <span className="agent-badge override" title="A person replaced the agent's action">overridden</span> : null}
              {Object.entries(s.rewards).map(([k, v]) => (
                <span key={k} className={`agent-badge reward ${v > 0 ? 'pos' : v < 0 ? 'neg' : ''}`} title={`${k} reward`}>{k} {v}</span>
              ))}
            </div>
            {s.thought ? <div className="agent-step-thought muted">{s.thought}</div> : null}
            {s.error ? <div className="agent-error">{s.error.name}: {s.error.message}</div> : null}
          </li>
        ))}
      </ol>
      {session && count === 0 && !session.result ? <div className="muted">No step carried out yet.</div> : null}
      {!session ? <div className="muted">Start a session, attach to an outside agent's, or open one from Trajectories → replay on device.</div> : null}
      {session ? <ResultBanner session={session} /> : null}
      <div ref={end} />
    </section>
  );
}
