import type { AppDef } from '../../runtime/app.js';
import { appBar, screen, text } from '../../view/widgets.js';

/** Simple SMS Messenger: not simulated yet (a placeholder screen). */
export const smsApp: AppDef = {
  package: 'com.simplemobiletools.smsmessenger',
  label: 'Simple SMS Messenger',
  icon: { glyph: 'message', color: '#2196F3' },
  launchActivity: 'com.simplemobiletools.smsmessenger.activities.MainActivity',
  activities: [{
    name: 'com.simplemobiletools.smsmessenger.activities.MainActivity',
    create: () => ({}),
    render: () => ({ body: screen({ appBar: appBar({ title: 'Simple SMS Messenger' }), body: [text('Coming soon')] }) }),
  }],
};
