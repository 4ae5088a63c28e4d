import type { AppDef } from '../../runtime/app.js';
import { appBar, screen, text } from '../../view/widgets.js';

/** Audio Recorder: not simulated yet (a placeholder screen). */
export const recorderApp: AppDef = {
  package: 'com.dimowner.audiorecorder',
  label: 'Audio Recorder',
  icon: { glyph: 'mic', color: '#E53935' },
  launchActivity: 'com.dimowner.audiorecorder.app.main.MainActivity',
  activities: [{
    name: 'com.dimowner.audiorecorder.app.main.MainActivity',
    create: () => ({}),
    render: () => ({ body: screen({ appBar: appBar({ title: 'Audio Recorder' }), body: [text('Coming soon')] }) }),
  }],
};
