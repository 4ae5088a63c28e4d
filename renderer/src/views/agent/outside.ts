import type { SessionInfo } from '../../../../core/api/types.js';

/**
 * What is happening in an outside agent's session, in words (docs/outside-agents.md): the Agent view says it plainly
 * above the screen, and the list of outside agents in one word.
 */
export type OutsidePhase = 'disconnected' | 'your-turn' | 'taken-over' | 'handed-back' | 'waiting' | 'running' | 'starting' | 'between';

const WAITING = 'the agent\'s step is waiting for you. Step carries it out (or your override), Run lets the agent go on, Stop ends the episode.';

/** Null for the workbench's own sessions. */
export function outsideStatus(s: SessionInfo): { phase: OutsidePhase; text: string } | null {
  const a = s.agent;
  if (!a) return null;
  if (!a.connected) {
    return { phase: 'disconnected', text: `The agent disconnected: its session is closed${s.episodeId !== null ? ` (its last episode, #${s.episodeId}, is recorded)` : ''}.` };
  }
  if (a.takenOver) {
    return s.state === 'paused'
      ? { phase: 'your-turn', text: 'Taken over: you act in the agent\'s place. Click the screen or choose an action: each is carried out at once. The agent\'s step waits until you hand back.' }
      : { phase: 'taken-over', text: 'Taken over: the agent\'s next step will be held for you.' };
  }
  const episode = `episode ${a.episodes}`;
  // Held at the person's placeholder after hand back: the agent's answer to its step is on its way back.
  if (s.state === 'paused' && s.proposal?.handover) return { phase: 'handed-back', text: 'Handed back: waiting for the agent\'s next action.' };
  switch (s.state) {
    case 'paused':
      return { phase: 'waiting', text: s.hitBreakpoints.length ? `Stopped at a breakpoint: ${WAITING}` : `Paused: ${WAITING}` };
    case 'running':
      return { phase: 'running', text: `Running: the agent is playing ${episode}. Pause holds its next step.` };
    case 'idle':
      return { phase: 'starting', text: `Starting ${episode}…` };
    case 'finished':
      return { phase: 'between', text: `Episode ${a.episodes} ended${s.result ? ` (${s.result.status})` : ''}: waiting for the agent's next reset.` };
  }
}

const PHASE_WORDS: Record<OutsidePhase, string> = {
  'disconnected': 'disconnected',
  'your-turn': 'taken over',
  'taken-over': 'taken over',
  'handed-back': 'handed back',
  'waiting': 'paused: step waiting',
  'running': 'running',
  'starting': 'starting',
  'between': 'between episodes',
};

/** The session's state as the list shows it. */
export function outsideStateWord(s: SessionInfo): string {
  const st = outsideStatus(s);
  return st ? PHASE_WORDS[st.phase] : s.state;
}
