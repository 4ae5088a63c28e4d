import type { AppDef } from '../../runtime/app.js';
import { appBar, screen, text } from '../../view/widgets.js';

/** Broccoli: not simulated yet (a placeholder screen). */
export const broccoliApp: AppDef = {
  package: 'com.flauschcode.broccoli',
  label: 'Broccoli',
  icon: { glyph: 'restaurant', color: '#558B2F' },
  launchActivity: 'com.flauschcode.broccoli.MainActivity',
  activities: [{
    name: 'com.flauschcode.broccoli.MainActivity',
    create: () => ({}),
    render: () => ({ body: screen({ appBar: appBar({ title: 'Broccoli' }), body: [text('Coming soon')] }) }),
  }],
};
