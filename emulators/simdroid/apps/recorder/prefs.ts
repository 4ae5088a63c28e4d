import type { FileSystem } from '../../system/fs.js';

/**
 * The app's SharedPreferences, kept where Android keeps them: an XML file under
 * /data/data/<pkg>/shared_prefs (PrefsImpl's file and keys), so `cat` on the device shows the
 * settings exactly as on a rooted emulator and checkers can read them.
 */
export const RECORDER_PKG = 'com.dimowner.audiorecorder';
export const PREFS_PATH = `/data/data/${RECORDER_PKG}/shared_prefs/com.dimowner.audiorecorder.data.PrefsImpl.xml`;

export type PrefValue = string | number | boolean;

export const FORMATS = ['m4a', 'wav', '3gp'] as const;
export type Format = (typeof FORMATS)[number];
export const SAMPLE_RATES = [8000, 16000, 22050, 32000, 44100, 48000] as const;
export const BITRATES = [48000, 96000, 128000, 192000, 256000] as const;
export const THEMES = ['blue_gray', 'black', 'teal', 'blue', 'purple', 'pink', 'orange', 'red', 'brown'] as const;
export type Theme = (typeof THEMES)[number];

export const THEME_LABEL: Record<Theme, string> = {
  blue_gray: 'Theme Blue Gray', black: 'Theme Black', teal: 'Theme Teal', blue: 'Theme Blue', purple: 'Theme Purple',
  pink: 'Theme Pink', orange: 'Theme Orange', red: 'Theme Red', brown: 'Theme Brown',
};

export const THEME_COLOR: Record<Theme, `#${string}`> = {
  blue_gray: '#546E7A', black: '#212121', teal: '#00796B', blue: '#1565C0', purple: '#6A1B9A',
  pink: '#AD1457', orange: '#E65100', red: '#C62828', brown: '#4E342E',
};

/** Keys of PrefsImpl this app reads, with their types. */
export interface Prefs {
  setting_recording_format: string;
  setting_sample_rate: number;
  setting_bitrate: number;
  setting_channel_count: number;
  setting_theme_color: string;
  is_ask_rename_after_stop_recording: boolean;
  keep_screen_on: boolean;
  record_counter: number;
  active_record: number;
  pref_records_order: number;
  is_first_run: boolean;
  is_store_dir_public: boolean;
}

export type PrefKey = keyof Prefs;

/** The defaults, as the first-run setup writes them. */
const DEFAULTS: Prefs = {
  setting_recording_format: 'm4a',
  setting_sample_rate: 44100,
  setting_bitrate: 128000,
  setting_channel_count: 2,
  setting_theme_color: 'blue_gray',
  is_ask_rename_after_stop_recording: true,
  keep_screen_on: false,
  record_counter: 0,
  active_record: -1,
  pref_records_order: 1,
  is_first_run: false,
  is_store_dir_public: true,
};

const LONGS = new Set<string>(['record_counter', 'active_record']);

function unescape(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

function escape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Parses a SharedPreferences XML file into key → value. */
export function parsePrefsXml(xml: string): Record<string, PrefValue> {
  const out: Record<string, PrefValue> = {};
  for (const m of xml.matchAll(/<string name="([^"]+)">([\s\S]*?)<\/string>/g)) out[unescape(m[1]!)] = unescape(m[2]!);
  for (const m of xml.matchAll(/<(int|long|float|boolean) name="([^"]+)" value="([^"]*)"\s*\/>/g)) {
    out[unescape(m[2]!)] = m[1] === 'boolean' ? m[3] === 'true' : Number(m[3]);
  }
  return out;
}

export function prefsXml(values: Record<string, PrefValue>): string {
  const lines = Object.keys(values).sort().map((k) => {
    const v = values[k]!;
    if (typeof v === 'string') return `    <string name="${escape(k)}">${escape(v)}</string>`;
    if (typeof v === 'boolean') return `    <boolean name="${escape(k)}" value="${v}" />`;
    return `    <${LONGS.has(k) ? 'long' : 'int'} name="${escape(k)}" value="${v}" />`;
  });
  return `<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>\n${lines.join('\n')}\n</map>\n`;
}

/** The current preferences: the file's values over the defaults (a missing or broken file gives defaults). */
export function readPrefs(fs: FileSystem): Prefs {
  const prefs: Record<string, PrefValue> = { ...DEFAULTS };
  const e = fs.stat(PREFS_PATH);
  if (e?.type !== 'file') return prefs as unknown as Prefs;
  const raw = parsePrefsXml(e.data.toString('utf8'));
  for (const k of Object.keys(DEFAULTS) as PrefKey[]) {
    const v = raw[k];
    // A value of the wrong type is ignored, as getInt() on a string would fail back to the default.
    if (v !== undefined && typeof v === typeof DEFAULTS[k]) prefs[k] = v;
  }
  // Every key holds a value of its default's type (checked above), which is what Prefs says.
  return prefs as unknown as Prefs;
}

/** Writes changed preferences back (apply()), keeping keys this app version does not know. */
export function writePrefs(fs: FileSystem, patch: Partial<Prefs>): void {
  const e = fs.stat(PREFS_PATH);
  const raw = e?.type === 'file' ? parsePrefsXml(e.data.toString('utf8')) : {};
  fs.writeFile(PREFS_PATH, prefsXml({ ...readPrefs(fs), ...raw, ...patch }), { parents: true });
}

export function formatOf(p: Prefs): Format {
  return (FORMATS as readonly string[]).includes(p.setting_recording_format) ? (p.setting_recording_format as Format) : 'm4a';
}

export function themeOf(p: Prefs): Theme {
  return (THEMES as readonly string[]).includes(p.setting_theme_color) ? (p.setting_theme_color as Theme) : 'blue_gray';
}
