import type { AppState } from '../store/index.js';
import { register } from './types.js';

/** An outside agent's session that can still act, attached in the Agent view. */
const agentSession = (s: AppState) => (s.view === 'agent' && s.session?.agent?.connected ? s.session : null);

/** A person takes the outside agent's session: its next action is held, and the person's actions are carried out instead. */
export const sessionTakeover = register({
  name: 'session-takeover',
  label: 'Take over',
  predicate: (s) => !!agentSession(s) && !agentSession(s)!.agent!.takenOver && !s.sessionBusy,
  perform: (store) => store.getState().controlSession('takeover'),
});

/** The agent gets its session back: its held step returns with the person's steps. */
export const sessionHandback = register({
  name: 'session-handback',
  label: 'Hand back',
  predicate: (s) => !!agentSession(s)?.agent!.takenOver && !s.sessionBusy,
  perform: (store) => store.getState().controlSession('handback'),
});
