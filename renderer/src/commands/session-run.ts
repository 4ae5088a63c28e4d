import type { AppState } from '../store/index.js';
import { fKey, register } from './types.js';

export const MANUAL_RUN_REASON = 'The manual policy is stepped by you: choose an action, then Step';

/** Run is refused for the manual policy (the server says ManualRunError too): running it would record "wait" steps as a failure. */
const manualReason = (s: AppState) => (s.session?.policy === 'manual' && s.session.state !== 'finished' ? MANUAL_RUN_REASON : null);

export const sessionRun = register({
  name: 'session-run',
  label: 'Run',
  shortcut: 'F8',
  keyTest: fKey('F8'),
  predicate: (s) => s.view === 'agent' && s.session?.state === 'paused' && !s.sessionBusy && manualReason(s) === null,
  reason: manualReason,
  perform: (store) => store.getState().controlSession('run'),
});
