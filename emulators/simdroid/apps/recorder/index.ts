import type { AppDef } from '../../runtime/app.js';
import { main, MAIN_ACTIVITY, WELCOME_ACTIVITY } from './main.js';
import { records } from './records.js';
import { settings } from './settings.js';
import { RECORDER_PKG, writePrefs } from './prefs.js';
import { RECORD_DB, RECORD_SCHEMA, RECORDS_DIR } from './store.js';

/**
 * Audio Recorder (Dmitriy Ponomarenko's, com.dimowner.audiorecorder): recordings are files in
 * the app's Android/data/…/files/Music/records folder and rows in record.db; settings live in the
 * app's shared_prefs XML file. The launcher opens WelcomeActivity, which (setup being done at first
 * boot) forwards to MainActivity at once, as the APK does. Recording time is the device's virtual time, so `wait` makes a recording longer.
 */
export const recorderApp: AppDef = {
  package: RECORDER_PKG,
  label: 'Audio Recorder',
  icon: { glyph: 'mic', color: '#E53935' },
  // Switches and dialog buttons; the screens draw the theme colour (Settings › Theme) themselves.
  accent: '#F4511E',
  launchActivity: WELCOME_ACTIVITY,
  trampolines: { [WELCOME_ACTIVITY]: MAIN_ACTIVITY },
  activities: [main, records, settings],
  databases: [{ path: RECORD_DB, schema: RECORD_SCHEMA }],
  boot: ({ sys }) => {
    // What the first-run setup leaves behind: the defaults written out, the records folder.
    sys.fs.mkdirp(RECORDS_DIR);
    writePrefs(sys.fs, {});
  },
};
