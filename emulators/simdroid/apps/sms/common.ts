import type { AppEnv, DialogView, SystemServices } from '../../runtime/app.js';
import { W, type Handler, type ViewSpec } from '../../view/spec.js';
import { dialog, strip } from '../../view/widgets.js';

/** Names, preferences and formatting shared by Simple SMS Messenger's screens. */
export const PKG = 'com.simplemobiletools.smsmessenger';
export const MAIN = `${PKG}.activities.MainActivity`;
export const THREAD = `${PKG}.activities.ThreadActivity`;
export const NEW_CONVERSATION = `${PKG}.activities.NewConversationActivity`;
export const SEARCH = `${PKG}.activities.SearchActivity`;
export const SETTINGS = `${PKG}.activities.SettingsActivity`;
export const ABOUT = 'com.simplemobiletools.commons.activities.AboutActivity';

/** SharedPreferences keys (Simple Mobile Tools' names). */
export const PREF = {
  use24Hour: 'use_24_hour_format',
  charCounter: 'show_character_counter',
  sendOnEnter: 'send_on_enter',
  deliveryReports: 'enable_delivery_reports',
} as const;

export function prefFlag(app: AppEnv, key: string, fallback = false): boolean {
  const v = app.prefs[key];
  return v === undefined ? fallback : v === 'true';
}

/** The app follows the system's 24-hour setting until its own setting is changed. */
export function use24Hour(app: AppEnv, sys: SystemServices): boolean {
  return prefFlag(app, PREF.use24Hour, sys.settings.get('system', 'time_12_24') === '24');
}

const pad = (n: number) => String(n).padStart(2, '0');

/** "03:34 PM" or "15:34", as Simple Mobile Tools' time formats write it. */
export function timeText(ms: number, h24: boolean): string {
  const d = new Date(ms);
  const h = d.getUTCHours();
  if (h24) return `${pad(h)}:${pad(d.getUTCMinutes())}`;
  return `${pad(h % 12 === 0 ? 12 : h % 12)}:${pad(d.getUTCMinutes())} ${h < 12 ? 'AM' : 'PM'}`;
}

function sameDay(a: number, b: number): boolean {
  return new Date(a).toISOString().slice(0, 10) === new Date(b).toISOString().slice(0, 10);
}

/** The conversation list's date: the time today, else the day ("dd.MM", the year only when not this one). */
export function listDate(ms: number, now: number, h24: boolean): string {
  if (sameDay(ms, now)) return timeText(ms, h24);
  const d = new Date(ms);
  const day = `${pad(d.getUTCDate())}.${pad(d.getUTCMonth() + 1)}`;
  return d.getUTCFullYear() === new Date(now).getUTCFullYear() ? day : `${day}.${d.getUTCFullYear()}`;
}

/** The date header between messages of a thread: the day and the time. */
export function headerDate(ms: number, now: number, h24: boolean): string {
  return sameDay(ms, now) ? timeText(ms, h24) : `${listDate(ms, now, h24)}, ${timeText(ms, h24)}`;
}

const AVATAR_COLORS = ['#E57373', '#F06292', '#BA68C8', '#7986CB', '#4FC3F7', '#4DB6AC', '#81C784', '#FFB74D', '#A1887F', '#90A4AE'] as const;

/** A letter avatar for a named contact, a person glyph for a bare number (contact photo placeholder). */
export function avatar(name: string | null, key: string, id: string, size = 48): ViewSpec {
  let h = 0;
  for (const ch of key) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  const color = AVATAR_COLORS[h % AVATAR_COLORS.length]!;
  const letter = name?.trim()[0]?.toUpperCase();
  return strip({
    cls: letter ? W.TextView : W.ImageView, id, text: letter, w: size, h: size,
    style: { variant: 'avatar', bg: color, fg: '#FFFFFF', textAlign: 'center', size: size * 0.42, radius: size / 2, ...(letter ? {} : { icon: 'person', iconColor: '#FFFFFF' }) },
  });
}

/** The confirmation before a whole conversation is deleted (Simple Mobile Tools' Yes/No dialog). */
export function deleteConfirmation(onYes: Handler, onNo: Handler): DialogView {
  return {
    spec: dialog({
      message: 'Are you sure you want to delete all messages of this conversation?',
      buttons: [{ label: 'No', onClick: onNo }, { label: 'Yes', onClick: onYes }],
    }),
    onCancel: onNo,
  };
}
