import type { AppDef } from '../../runtime/app.js';
import { appBar, screen, text } from '../../view/widgets.js';

/** Files: not simulated yet (a placeholder screen). */
export const filesApp: AppDef = {
  package: 'com.google.android.documentsui',
  label: 'Files',
  icon: { glyph: 'folder', color: '#1A73E8' },
  launchActivity: 'com.android.documentsui.files.FilesActivity',
  activities: [{
    name: 'com.android.documentsui.files.FilesActivity',
    create: () => ({}),
    render: () => ({ body: screen({ appBar: appBar({ title: 'Files' }), body: [text('Coming soon')] }) }),
  }],
};
