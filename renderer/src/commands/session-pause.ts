import { fKey, register } from './types.js';

export const sessionPause = register({
  name: 'session-pause',
  label: 'Pause',
  shortcut: 'Shift+F8',
  keyTest: fKey('F8', true),
  predicate: (s) => s.view === 'agent' && s.session?.state === 'running',
  perform: (store) => store.getState().controlSession('pause'),
});
