import type { Intent, Json } from './app.js';
import type { ViewState } from '../view/layout.js';

/** One activity instance on a task's back stack. Plain data: snapshots copy it with structuredClone. */
export interface ActivityRecord {
  id: number;
  activity: string;
  intent: Intent;
  s: Json;
  view: ViewState;
}

export interface TaskRecord {
  id: number;
  package: string;
  stack: ActivityRecord[];
}

export interface UiState {
  /** tasks[0] is the launcher's (home); the others are ordered by recency, most recent last. */
  tasks: TaskRecord[];
  /** The foreground task's id. */
  front: number;
  /** The activity record last in front (to tell it when it is paused). */
  resumed: number;
  keyboard: { visible: boolean; shift: boolean; symbols: boolean };
  toast: { text: string; until: number } | null;
  /** The notification-permission prompt showing over an app's first launch. */
  prompt: { package: string } | null;
  /** Apps launched at least once (first launch shows prompts and onboarding). */
  launched: Record<string, boolean>;
  /** Runtime permission answers per package. */
  permissions: Record<string, Record<string, 'granted' | 'denied'>>;
  /** SharedPreferences per package. */
  prefs: Record<string, Record<string, string>>;
  nextId: number;
  /** Crashes of simulated apps (a bug in an app must not take the device down). */
  crashes: Array<{ package: string; message: string; at: number }>;
  /** The primary clip's text (ClipboardService); null until something is copied. */
  clipboard: string | null;
}

export const LAUNCHER_PACKAGE = 'com.google.android.apps.nexuslauncher';
export const LAUNCHER_HOME = 'com.google.android.apps.nexuslauncher.NexusLauncherActivity';
export const LAUNCHER_RECENTS = 'com.android.quickstep.RecentsActivity';
export const SYSTEMUI_PACKAGE = 'com.android.systemui';
export const PERMISSION_PACKAGE = 'com.google.android.permissioncontroller';
export const KEYBOARD_PACKAGE = 'com.google.android.inputmethod.latin';

export function emptyViewState(): ViewState {
  return { fields: {}, scroll: {}, focus: null };
}

export function initialUiState(): UiState {
  return {
    tasks: [{ id: 0, package: LAUNCHER_PACKAGE, stack: [{ id: 1, activity: LAUNCHER_HOME, intent: { extras: {} }, s: {}, view: emptyViewState() }] }],
    front: 0,
    resumed: 1,
    keyboard: { visible: false, shift: false, symbols: false },
    toast: null,
    prompt: null,
    launched: {},
    permissions: {},
    prefs: {},
    nextId: 2,
    crashes: [],
    clipboard: null,
  };
}
