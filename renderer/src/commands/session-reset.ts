import { register } from './types.js';

/** Stop (if it still runs) and start the same task, seed, policy and breakpoints again (an outside agent resets its own). */
export const sessionReset = register({
  name: 'session-reset',
  label: 'Reset',
  shortcut: 'Ctrl+Shift+F5',
  keyTest: (e) => e.key === 'F5' && e.shiftKey && (e.ctrlKey || e.metaKey) && !e.altKey,
  predicate: (s) => s.view === 'agent' && !!s.session && s.session.agent === null && !s.sessionBusy,
  perform: (store) => store.getState().resetSession(),
});
