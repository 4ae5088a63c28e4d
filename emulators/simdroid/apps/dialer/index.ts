import type { AppDef } from '../../runtime/app.js';
import { dialtacts, DIALTACTS_ACTIVITY } from './main.js';
import { inCall } from './incall.js';

/**
 * Phone (Google's dialer, com.google.android.dialer): the main screen AndroidWorld opens
 * (GoogleDialtactsActivity: favorites, recents, contacts, the key pad) and the in-call screen.
 * Calls it places are written to the call log when they end; the modem's own calls (the console's
 * `gsm` commands) stay apart from them.
 */
export const phoneApp: AppDef = {
  package: 'com.google.android.dialer',
  label: 'Phone',
  icon: { glyph: 'phone', color: '#1A73E8' },
  accent: '#1A73E8',
  launchActivity: DIALTACTS_ACTIVITY,
  activities: [dialtacts, inCall],
};
