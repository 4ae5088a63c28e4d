/**
 * Apps by the names agents use for them, with the package and launcher activity that `open_app`
 * starts (`am start -n package/activity`). The packages are the real ones of the AndroidWorld app
 * set, so the same open_app and the same checkers work on an AVD with those apps installed.
 * SimDroid installs an app for every entry (the ones without a simulation show a placeholder).
 */
export interface CatalogApp {
  /** Launcher label. */
  readonly name: string;
  /** Other names an agent may use (lower case). */
  readonly aliases: readonly string[];
  readonly package: string;
  readonly activity: string;
  /** Simulated with real screens and state in SimDroid (the task suite uses only these). */
  readonly simulated: boolean;
}

const app = (name: string, pkg: string, activity: string, aliases: string[] = [], simulated = false): CatalogApp => ({
  name,
  aliases,
  package: pkg,
  activity,
  simulated,
});

export const APP_CATALOG: readonly CatalogApp[] = [
  app('Audio Recorder', 'com.dimowner.audiorecorder', 'com.dimowner.audiorecorder.app.welcome.WelcomeActivity', ['audio recorder', 'recorder', 'voice recorder'], true),
  app('Broccoli', 'com.flauschcode.broccoli', 'com.flauschcode.broccoli.MainActivity', ['broccoli', 'recipes', 'recipe app', 'broccoli recipes'], true),
  app('Calendar', 'com.simplemobiletools.calendar.pro', 'com.simplemobiletools.calendar.pro.activities.MainActivity', ['calendar', 'simple calendar', 'simple calendar pro'], true),
  app('Clock', 'com.google.android.deskclock', 'com.android.deskclock.DeskClock', ['clock', 'alarm', 'timer', 'stopwatch'], true),
  app('Contacts', 'com.google.android.contacts', 'com.android.contacts.activities.PeopleActivity', ['contacts', 'people'], true),
  app('Files', 'com.google.android.documentsui', 'com.android.documentsui.files.FilesActivity', ['files', 'file manager', 'documentsui'], true),
  app('Joplin', 'net.cozic.joplin', 'net.cozic.joplin.MainActivity', ['joplin'], true),
  app('Markor', 'net.gsantner.markor', 'net.gsantner.markor.activity.MainActivity', ['markor', 'notes', 'markdown'], true),
  app('Pro Expense', 'com.arduia.expense', 'com.arduia.expense.ui.MainActivity', ['pro expense', 'expense', 'expenses', 'expense tracker'], true),
  app('Retro Music', 'code.name.monkey.retromusic', 'code.name.monkey.retromusic.activities.MainActivity', ['retro music', 'music'], true),
  app('Settings', 'com.android.settings', 'com.android.settings.Settings', ['settings', 'system settings'], true),
  app('Simple SMS Messenger', 'com.simplemobiletools.smsmessenger', 'com.simplemobiletools.smsmessenger.activities.MainActivity', ['simple sms messenger', 'sms messenger', 'messages', 'sms', 'messaging'], true),
  app('Tasks', 'org.tasks', 'com.todoroo.astrid.activity.MainActivity', ['tasks', 'tasks.org', 'todo'], true),
  app('OsmAnd', 'net.osmand', 'net.osmand.plus.activities.MapActivity', ['osmand', 'maps', 'osmand maps'], true),
  app('VLC', 'org.videolan.vlc', 'org.videolan.vlc.StartActivity', ['vlc', 'vlc player', 'vlc app'], true),
  // Installed so the app drawer looks like AndroidWorld's emulator and needs scrolling; not simulated.
  app('Camera', 'com.android.camera2', 'com.android.camera.CameraLauncher', ['camera'], true),
  app('Chrome', 'com.android.chrome', 'com.google.android.apps.chrome.Main', ['chrome', 'browser'], true),
  app('OpenTracks', 'de.dennisguse.opentracks', 'de.dennisguse.opentracks.TrackListActivity', ['opentracks', 'open tracks', 'activity tracker'], true),
  app('Phone', 'com.google.android.dialer', 'com.google.android.dialer.extensions.GoogleDialtactsActivity', ['phone', 'dialer'], true),
  app('Simple Draw Pro', 'com.simplemobiletools.draw.pro', 'com.simplemobiletools.draw.pro.activities.MainActivity', ['simple draw pro', 'draw'], true),
  app('Simple Gallery Pro', 'com.simplemobiletools.gallery.pro', 'com.simplemobiletools.gallery.pro.activities.MainActivity', ['simple gallery pro', 'simple gallery', 'gallery'], true),
  app('Gmail', 'com.google.android.gm', 'com.google.android.gm.ConversationListActivityGmail', ['gmail', 'email']),
  app('Photos', 'com.google.android.apps.photos', 'com.google.android.apps.photos.home.HomeActivity', ['photos', 'google photos']),
  app('Play Store', 'com.android.vending', 'com.android.vending.AssetBrowserActivity', ['play store', 'google play']),
  app('YouTube', 'com.google.android.youtube', 'com.google.android.youtube.HomeActivity', ['youtube']),
  app('Calculator', 'com.google.android.calculator', 'com.android.calculator2.Calculator', ['calculator']),
  app('Maps', 'com.google.android.apps.maps', 'com.google.android.maps.MapsActivity', ['google maps']),
  app('Drive', 'com.google.android.apps.docs', 'com.google.android.apps.docs.app.NewMainProxyActivity', ['drive', 'google drive']),
  app('Markdown Viewer', 'com.simdroid.mdviewer', 'com.simdroid.mdviewer.MainActivity', ['markdown viewer']),
  app('Weather', 'com.simdroid.weather', 'com.simdroid.weather.MainActivity', ['weather']),
];

export class UnknownAppError extends Error {
  override name = 'UnknownAppError';
  constructor(readonly app: string) {
    super(`Unknown app ${JSON.stringify(app)}; known apps: ${APP_CATALOG.map((a) => a.name).join(', ')}`);
  }
}

function normalize(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, ' ');
}

/** Resolves an app by launcher label, alias or package name (case-insensitive). */
export function findApp(name: string): CatalogApp | undefined {
  const n = normalize(name);
  return APP_CATALOG.find((a) => normalize(a.name) === n || a.package === name.trim() || a.aliases.includes(n));
}

export function requireApp(name: string): CatalogApp {
  const a = findApp(name);
  if (!a) throw new UnknownAppError(name);
  return a;
}

export function appByPackage(pkg: string): CatalogApp | undefined {
  return APP_CATALOG.find((a) => a.package === pkg);
}
