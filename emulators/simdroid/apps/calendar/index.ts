import type { AppDef } from '../../runtime/app.js';
import { appBar, screen, text } from '../../view/widgets.js';

/** Calendar: not simulated yet (a placeholder screen). */
export const calendarApp: AppDef = {
  package: 'com.simplemobiletools.calendar.pro',
  label: 'Calendar',
  icon: { glyph: 'calendar', color: '#F57C00' },
  launchActivity: 'com.simplemobiletools.calendar.pro.activities.MainActivity',
  activities: [{
    name: 'com.simplemobiletools.calendar.pro.activities.MainActivity',
    create: () => ({}),
    render: () => ({ body: screen({ appBar: appBar({ title: 'Calendar' }), body: [text('Coming soon')] }) }),
  }],
};
