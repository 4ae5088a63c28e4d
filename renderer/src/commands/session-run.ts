import { fKey, register } from './types.js';

export const sessionRun = register({
  name: 'session-run',
  label: 'Run',
  shortcut: 'F8',
  keyTest: fKey('F8'),
  predicate: (s) => s.view === 'agent' && s.session?.state === 'paused' && !s.sessionBusy,
  perform: (store) => store.getState().controlSession('run'),
});
