import { awaitingAgent, HANDED_BACK_REASON } from './session-run.js';
import { fKey, register } from './types.js';

export const sessionStep = register({
  name: 'session-step',
  label: 'Step',
  shortcut: 'F10',
  keyTest: fKey('F10'),
  predicate: (s) => s.view === 'agent' && s.session?.state === 'paused' && !s.sessionBusy && !awaitingAgent(s),
  reason: (s) => (awaitingAgent(s) ? HANDED_BACK_REASON : null),
  perform: (store) => store.getState().controlSession('step'),
});
