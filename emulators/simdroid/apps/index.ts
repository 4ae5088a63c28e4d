import type { AppDef } from '../runtime/app.js';
import { launcherApp } from './launcher/index.js';
import { PLACEHOLDER_APPS } from './placeholder.js';
import { settingsApp } from './settings/index.js';

/** Every app SimDroid installs, in one list. */
export const ALL_APPS: readonly AppDef[] = [launcherApp, settingsApp, ...PLACEHOLDER_APPS];
