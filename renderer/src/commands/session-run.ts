import type { AppState } from '../store/index.js';
import { fKey, register } from './types.js';

export const MANUAL_RUN_REASON = 'The manual policy is stepped by you: choose an action, then Step';

export const TAKEN_OVER_RUN_REASON = 'You have the session: Hand back lets the agent run';
export const HANDED_BACK_REASON = 'Handed back: the agent\'s next action comes first';

/**
 * Handed back, the session holds at the person's placeholder until the agent's next action replaces it: stepping or
 * running it then would carry out the placeholder as if it were the agent's.
 */
export const awaitingAgent = (s: AppState) => !!s.session?.agent && !s.session.agent.takenOver && s.session.state === 'paused' && !!s.session.proposal?.handover;

/**
 * Run is refused for the manual policy (the server says ManualRunError too): running it would record "wait" steps as a
 * failure. While a person has an outside agent's session, Run would only hold again at the person's turn.
 */
const runRefusal = (s: AppState) => {
  if (!s.session || s.session.state === 'finished') return null;
  if (s.session.agent?.takenOver) return TAKEN_OVER_RUN_REASON;
  if (awaitingAgent(s)) return HANDED_BACK_REASON;
  return s.session.policy === 'manual' && s.session.agent === null ? MANUAL_RUN_REASON : null;
};

export const sessionRun = register({
  name: 'session-run',
  label: 'Run',
  shortcut: 'F8',
  keyTest: fKey('F8'),
  // An outside agent's session may be let go before its next step is held too (a Pause not yet taken effect).
  predicate: (s) => s.view === 'agent' && (s.session?.state === 'paused' || !!s.session?.agent?.connected) && !s.sessionBusy && runRefusal(s) === null,
  reason: runRefusal,
  perform: (store) => store.getState().controlSession('run'),
});
