import type { AppDef } from '../runtime/app.js';
import { launcherApp } from './launcher/index.js';
import { PLACEHOLDER_APPS } from './placeholder.js';
import { settingsApp } from './settings/index.js';
import { contactsApp } from './contacts/index.js';
import { smsApp } from './sms/index.js';
import { clockApp } from './clock/index.js';
import { markorApp } from './markor/index.js';
import { expenseApp } from './expense/index.js';
import { broccoliApp } from './broccoli/index.js';
import { calendarApp } from './calendar/index.js';
import { tasksApp } from './tasks/index.js';
import { filesApp } from './files/index.js';
import { recorderApp } from './recorder/index.js';
import { clipperApp } from './clipper/index.js';
import { vlcApp } from './vlc/index.js';
import { osmandApp } from './osmand/index.js';
import { openTracksApp } from './opentracks/index.js';
import { galleryApp } from './gallery/index.js';
import { drawApp } from './draw/index.js';
import { joplinApp } from './joplin/index.js';
import { retroApp } from './retro/index.js';
import { cameraApp } from './camera/index.js';
import { phoneApp } from './dialer/index.js';
import { chromeApp } from './chrome/index.js';

/** Every app SimDroid installs, in one list. */
export const ALL_APPS: readonly AppDef[] = [
  launcherApp, settingsApp, contactsApp, smsApp, clockApp, markorApp, expenseApp, broccoliApp, calendarApp, tasksApp, filesApp, recorderApp,
  openTracksApp, vlcApp, osmandApp, joplinApp, retroApp,
  galleryApp, drawApp,
  ...PLACEHOLDER_APPS, clipperApp, cameraApp, phoneApp, chromeApp,
];
