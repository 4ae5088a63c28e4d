import type { AppDef } from '../../runtime/app.js';
import { appBar, screen, text } from '../../view/widgets.js';

/** Clock: not simulated yet (a placeholder screen). */
export const clockApp: AppDef = {
  package: 'com.google.android.deskclock',
  label: 'Clock',
  icon: { glyph: 'alarm', color: '#1A73E8' },
  launchActivity: 'com.android.deskclock.DeskClock',
  activities: [{
    name: 'com.android.deskclock.DeskClock',
    create: () => ({}),
    render: () => ({ body: screen({ appBar: appBar({ title: 'Clock' }), body: [text('Coming soon')] }) }),
  }],
};
