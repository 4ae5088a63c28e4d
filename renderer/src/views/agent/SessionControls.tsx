import type { SessionInfo } from '../../../../core/api/types.js';
import { useApp } from '../../store/index.js';
import { CommandButton } from './CommandButton.js';

function stateText(s: SessionInfo | null): string {
  if (!s) return 'No session';
  switch (s.state) {
    case 'idle':
      return 'Starting…';
    case 'running':
      return s.proposal ? `Running (step ${s.proposal.index + 1})` : `Running (${s.steps.length} steps done)`;
    case 'paused':
      return s.proposal ? `Paused at step ${s.proposal.index + 1}` : 'Paused';
    case 'finished':
      return `Finished after ${s.steps.length} step${s.steps.length === 1 ? '' : 's'}`;
  }
}

/** Step / Run / Pause / Stop / Reset (the commands, so the shortcuts do the same) and the session's state. */
export function SessionControls() {
  const session = useApp((s) => s.session);
  const busy = useApp((s) => s.sessionBusy);
  return (
    <div className="agent-controls" role="toolbar" aria-label="Session controls">
      <CommandButton name="session-step" testId="session-step" primary />
      <CommandButton name="session-run" testId="session-run" />
      <CommandButton name="session-pause" testId="session-pause" />
      <CommandButton name="session-stop" testId="session-stop" />
      <CommandButton name="session-reset" testId="session-reset" />
      <span className={`agent-state agent-state-${session?.state ?? 'none'}`} data-testid="session-state" data-state={session?.state ?? 'none'}>
        {busy ? <span className="spinner" aria-hidden /> : null} {stateText(session)}
      </span>
      {session ? (
        <span className="muted agent-session-meta" title={session.instruction}>
          {session.templateId} · seed {session.seed} · {session.policy} · {session.serial} · session {session.id}
          {session.episodeId !== null ? ` · episode ${session.episodeId}` : ''}
        </span>
      ) : null}
    </div>
  );
}
