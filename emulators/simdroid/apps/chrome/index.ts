import type { AppDef } from '../../runtime/app.js';
import { browserActivity } from './browser.js';

/**
 * Chrome (com.android.chrome): one tab with the omnibox and the page, the page's scripts run for
 * real in happy-dom (page.ts). AndroidWorld starts com.google.android.apps.chrome.Main; links and
 * files opened from other apps (VIEW intents) open in ChromeTabbedActivity.
 */
export const CHROME_PKG = 'com.android.chrome';
export const CHROME_MAIN = 'com.google.android.apps.chrome.Main';
export const CHROME_TABBED = 'org.chromium.chrome.browser.ChromeTabbedActivity';

export const chromeApp: AppDef = {
  package: CHROME_PKG,
  label: 'Chrome',
  icon: { glyph: 'globe', color: '#1A73E8' },
  accent: '#1A73E8',
  launchActivity: CHROME_MAIN,
  activities: [browserActivity(CHROME_MAIN), browserActivity(CHROME_TABBED)],
  intentFilters: [{
    activity: CHROME_TABBED, actions: ['android.intent.action.VIEW'], schemes: ['http', 'https', 'file'],
    extras: (data) => ({ url: data ?? '' }),
  }],
};
