import { fKey, register } from './types.js';

export const sessionStop = register({
  name: 'session-stop',
  label: 'Stop',
  shortcut: 'Shift+F5',
  keyTest: fKey('F5', true),
  predicate: (s) => s.view === 'agent' && !!s.session && s.session.state !== 'finished',
  perform: (store) => store.getState().controlSession('stop'),
});
