import { fKey, register } from './types.js';

export const sessionPause = register({
  name: 'session-pause',
  label: 'Pause',
  shortcut: 'Shift+F8',
  keyTest: fKey('F8', true),
  // An outside agent's session may be paused between its episodes too: the next one holds at its first step.
  predicate: (s) => s.view === 'agent' && (s.session?.state === 'running' || (!!s.session?.agent?.connected && s.session.state !== 'paused')),
  perform: (store) => store.getState().controlSession('pause'),
});
