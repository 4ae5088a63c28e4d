import type { AppDef } from '../../runtime/app.js';
import { appBar, screen, text } from '../../view/widgets.js';

/** Markor: not simulated yet (a placeholder screen). */
export const markorApp: AppDef = {
  package: 'net.gsantner.markor',
  label: 'Markor',
  icon: { glyph: 'note', color: '#388E3C' },
  launchActivity: 'net.gsantner.markor.activity.MainActivity',
  activities: [{
    name: 'net.gsantner.markor.activity.MainActivity',
    create: () => ({}),
    render: () => ({ body: screen({ appBar: appBar({ title: 'Markor' }), body: [text('Coming soon')] }) }),
  }],
};
