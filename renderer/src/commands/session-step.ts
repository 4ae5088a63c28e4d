import { fKey, register } from './types.js';

export const sessionStep = register({
  name: 'session-step',
  label: 'Step',
  shortcut: 'F10',
  keyTest: fKey('F10'),
  predicate: (s) => s.view === 'agent' && s.session?.state === 'paused' && !s.sessionBusy,
  perform: (store) => store.getState().controlSession('step'),
});
