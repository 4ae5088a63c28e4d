import type { AppDef } from '../../runtime/app.js';
import { bootMessages } from './boot.js';
import { MAIN, PKG, THREAD } from './common.js';
import { mainActivity } from './main.js';
import { newConversationActivity } from './new-conversation.js';
import { searchActivity } from './search.js';
import { aboutActivity, settingsActivity } from './settings.js';
import { threadActivity } from './thread.js';

/**
 * Simple SMS Messenger (com.simplemobiletools.smsmessenger), the SMS app AndroidWorld uses. Its
 * messages are the Telephony provider's (`content://sms`), so tasks set up and check state with
 * `content insert|query` exactly as on an emulator; names come from the Contacts provider.
 */
export const smsApp: AppDef = {
  package: PKG,
  label: 'Simple SMS Messenger',
  icon: { glyph: 'message', color: '#2196F3' },
  accent: '#1E88E5',
  launchActivity: MAIN,
  activities: [mainActivity, threadActivity, newConversationActivity, searchActivity, settingsActivity, aboutActivity],
  notificationPrompt: true,
  boot: bootMessages,
  // SENDTO/VIEW sms:NUMBER opens that conversation with `sms_body` as the draft, as the app's manifest declares.
  intentFilters: [{
    activity: THREAD,
    actions: ['android.intent.action.SENDTO', 'android.intent.action.VIEW'],
    schemes: ['sms', 'smsto'],
    extras: (data, extras) => ({
      number: decodeURIComponent((data ?? '').replace(/^[a-z]+:/i, '').replace(/\?.*$/, '')),
      ...(typeof extras.sms_body === 'string' ? { text: extras.sms_body } : {}),
    }),
  }],
};
