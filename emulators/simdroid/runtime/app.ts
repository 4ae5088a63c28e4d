import type { Rng } from '../../../core/util/rng.js';
import type { Db } from '../system/databases.js';
import type { FileSystem } from '../system/fs.js';
import type { SettingsStore } from '../system/settings.js';
import type { Clock } from '../system/clock.js';
import type { DeviceLog } from '../system/log.js';
import type { Handler, ViewSpec } from '../view/spec.js';

/** A JSON value: activity state and intent extras must be plain data so snapshots can copy them. */
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface Intent {
  extras: Record<string, Json>;
}

/** The device's shared services, as an app sees them. */
export interface SystemServices {
  readonly settings: SettingsStore;
  readonly fs: FileSystem;
  readonly clock: Clock;
  /** The device log (logcat). */
  readonly log: DeviceLog;
  /** Any database by path (providers live in other apps' data directories, as on Android); a missing one is created empty. */
  db(path: string): Db;
  /** Installed apps, for the launcher. */
  installedApps(): ReadonlyArray<{ package: string; label: string; icon: AppIcon }>;
  /** The clipboard's text (ClipboardManager's primary clip, plain text only). */
  readonly clipboard: { text(): string | null; setText(text: string): void };
}

/** A manifest <receiver>: the broadcast actions it takes and what it answers (`am broadcast` prints the result). */
export interface ReceiverDef {
  readonly name: string;
  readonly actions: readonly string[];
  /** setResultCode / setResultData: Activity.RESULT_OK is -1, RESULT_CANCELED 0. */
  onReceive(intent: { action: string; extras: Record<string, Json> }, sys: SystemServices): { code: number; data: string | null };
}

/** Launcher-only powers over the task list (the launcher is a system app). */
export interface TaskControl {
  recentTasks(): ReadonlyArray<{ id: number; package: string; label: string; title: string }>;
  bringToFront(taskId: number): void;
  removeTask(taskId: number): void;
  launchApp(pkg: string): void;
  forceStop(pkg: string): void;
  /** Clears an app's data (databases, preferences), as Settings › Storage › Clear storage does. */
  clearData(pkg: string): void;
}

export interface Navigator {
  /** Starts an activity of the same app on top of the current one. */
  start(activity: string, extras?: Record<string, Json>): void;
  /** Finishes the current activity (back to the one below, or home when it was the last). */
  finish(): void;
  /** Finishes the current activity and starts another in its place. */
  replace(activity: string, extras?: Record<string, Json>): void;
  /** Shows a toast for a few seconds of device time. */
  toast(text: string): void;
  /** Focuses a text field of this window and shows the keyboard. */
  focus(field: string): void;
  /** Clears focus and hides the keyboard. */
  hideKeyboard(): void;
  /** Sets a scroll container's offset (dp), e.g. back to the top after a new search. */
  scrollTo(key: string, offset: number): void;
  /** Opens another app (a share target, a link). */
  launchApp(pkg: string, activity?: string, extras?: Record<string, Json>): void;
}

export interface ActivityContext<S> {
  /** The activity's own state; handlers mutate it. */
  readonly s: S;
  /** The window's text fields by key; handlers may read and reset them. */
  readonly fields: Record<string, string>;
  readonly intent: Intent;
  readonly app: AppEnv;
  readonly sys: SystemServices;
  readonly nav: Navigator;
  /** Present for system apps only (the launcher). */
  readonly tasks?: TaskControl;
}

export interface AppEnv {
  readonly package: string;
  readonly label: string;
  /** The app's main database (the first it declares). */
  readonly db: Db;
  /** The app's SharedPreferences (string values), persisted with the device state. */
  readonly prefs: Record<string, string>;
}

export interface DialogView {
  /** The dialog's content, buttons included (see widgets.dialog). */
  spec: ViewSpec;
  /** Called when the dialog is dismissed by Back or a tap outside. Absent: not cancelable. */
  onCancel?: Handler;
  /** The window owning the dialog when it is not the app (permission prompts). */
  package?: string;
}

export interface MenuItem {
  label: string;
  onClick: Handler;
  id?: string;
  enabled?: boolean;
}

export interface MenuView {
  items: MenuItem[];
  onDismiss: Handler;
  /** Where the popup opens: under the overflow button (default) or at a point in dp (context menus). */
  anchor?: 'top-right' | { x: number; y: number };
}

export interface ActivityView {
  body: ViewSpec;
  dialog?: DialogView;
  menu?: MenuView;
}

export interface ActivityDef<S = any> {
  /** Fully qualified class name, as `dumpsys activity` prints it. */
  readonly name: string;
  /**
   * Initial state for a new instance. Must return plain data (Json). An editor opened on an
   * existing record may fill `env.fields` (its EditTexts' initial text); a chat may set
   * `env.scroll` offsets (a large one is clamped to the end of the list).
   */
  create(intent: Intent, env: { app: AppEnv; sys: SystemServices; fields: Record<string, string>; scroll: Record<string, number> }): S;
  render(ctx: ActivityContext<S>): ActivityView;
  /** Back pressed with no keyboard, menu or dialog open: return true if handled (e.g. close search). */
  onBack?(ctx: ActivityContext<S>): boolean;
  /**
   * The activity stopped being the one in front (another activity covers it, Home, Overview,
   * another app). Editors save here, as Android apps do in onPause. Not called when it finishes.
   */
  onPause?(ctx: ActivityContext<S>): void;
}

export interface AppIcon {
  /** An icon name from render/icons.ts. */
  glyph: string;
  /** Background colour of the round launcher icon. */
  color: `#${string}`;
}

export interface DatabaseDef {
  path: string;
  schema: string;
}

/** An implicit intent an activity answers (`am start -a … -d … -t …`), as its manifest's <intent-filter> declares. */
export interface IntentFilter {
  readonly activity: string;
  readonly actions: readonly string[];
  /** The data's URI schemes (`sms`, `content`); a filter without schemes takes only intents without data. */
  readonly schemes?: readonly string[];
  /** With schemes: the data must start with one of these (`content://contacts/people`). */
  readonly dataPrefixes?: readonly string[];
  /** The MIME types taken (`vnd.android.cursor.dir/contact`); a filter without types takes only intents without one. */
  readonly mimeTypes?: readonly string[];
  /** The extras the activity reads, from the intent's data and extras (the SMS number of `sms:…`). */
  extras?(data: string | null, extras: Record<string, Json>): Record<string, Json>;
}

export interface AppDef {
  readonly package: string;
  readonly label: string;
  readonly icon: AppIcon;
  readonly launchActivity: string;
  readonly activities: ReadonlyArray<ActivityDef>;
  /**
   * Activities that only route: started, they open the mapped activity in their place and finish
   * (Audio Recorder's WelcomeActivity, its launcher activity, once setup is done).
   */
  readonly trampolines?: Readonly<Record<string, string>>;
  readonly databases?: ReadonlyArray<DatabaseDef>;
  /** Writes the app's first-boot content (files, rows) into a fresh device. */
  boot?(env: { app: AppEnv; sys: SystemServices; rng: Rng }): void;
  /** Asks for the notification permission the first time it is launched (a realistic distractor). */
  readonly notificationPrompt?: boolean;
  /** The app's primary colour (app bars, buttons); the theme's when absent. */
  readonly accent?: `#${string}`;
  /** System apps get TaskControl. */
  readonly system?: boolean;
  /** The implicit intents its activities answer. */
  readonly intentFilters?: ReadonlyArray<IntentFilter>;
  /** Its broadcast receivers. */
  readonly receivers?: ReadonlyArray<ReceiverDef>;
  /** Installed but left out of the launcher and Settings' app list (a helper with no launcher icon). */
  readonly hidden?: boolean;
}
