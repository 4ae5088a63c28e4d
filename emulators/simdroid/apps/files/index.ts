import type { AppDef } from '../../runtime/app.js';
import { browser, FILES_ACTIVITY } from './browser.js';
import { picker } from './picker.js';

/**
 * Files (Android's DocumentsUI, com.google.android.documentsui): browses shared storage
 * (/storage/emulated/0) through the device filesystem, so everything it does is visible to `ls`,
 * `stat` and `cat` in the shell, as on an emulator.
 */
export const filesApp: AppDef = {
  package: 'com.google.android.documentsui',
  label: 'Files',
  icon: { glyph: 'folder', color: '#1A73E8' },
  accent: '#1A73E8',
  launchActivity: FILES_ACTIVITY,
  activities: [browser, picker],
};
