import type { SessionInfo } from '../../../../core/api/types.js';
import { useApp } from '../../store/index.js';
import { CommandButton } from './CommandButton.js';
import { OutsideStatus } from './OutsideAgents.js';

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
      if (s.agent && !s.agent.connected) return 'Disconnected';
      return `${s.agent ? `Episode ${s.agent.episodes} finished` : 'Finished'} after ${s.steps.length} step${s.steps.length === 1 ? '' : 's'}`;
  }
}

function meta(s: SessionInfo): string {
  const episode = s.episodeId !== null ? ` · episode ${s.episodeId}` : '';
  if (s.agent) return `${s.agent.name} · run #${s.agent.run.id} ${s.agent.run.name} · ${s.templateId || '—'} #${s.seed} · ${s.serial}${episode}`;
  return `${s.templateId} · seed ${s.seed} · ${s.policy} · ${s.serial} · session ${s.id}${episode}`;
}

/**
 * Step / Run / Pause / Stop, then Reset for the workbench's own sessions or Take over / Hand back for an outside
 * agent's (the commands, so the shortcuts do the same), the session's state and, for an outside agent, what is happening.
 */
export function SessionControls() {
  const session = useApp((s) => s.session);
  const busy = useApp((s) => s.sessionBusy);
  const outside = !!session?.agent;
  return (
    <>
      <div className="agent-controls" role="toolbar" aria-label="Session controls">
        <CommandButton name="session-step" testId="session-step" primary />
        <CommandButton name="session-run" testId="session-run" />
        <CommandButton name="session-pause" testId="session-pause" />
        <CommandButton name="session-stop" testId="session-stop" />
        {outside ? (
          session.agent!.takenOver
            ? <CommandButton name="session-handback" testId="session-handback" primary />
            : <CommandButton name="session-takeover" testId="session-takeover" />
        ) : <CommandButton name="session-reset" testId="session-reset" />}
        <span className={`agent-state agent-state-${session?.state ?? 'none'}`} data-testid="session-state" data-state={session?.state ?? 'none'}>
          {busy ? <span className="spinner" aria-hidden /> : null} {stateText(session)}
        </span>
        {session ? <span className="muted agent-session-meta" title={session.instruction}>{meta(session)}</span> : null}
      </div>
      <OutsideStatus />
    </>
  );
}
