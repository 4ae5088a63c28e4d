import { DAY_NAMES } from '../../../../core/util/calendar-names.js';
import type { Alarm } from './db.js';

/**
 * The texts DeskClock shows, computed from the device's virtual clock (UTC is local time on
 * SimDroid). Kept free of view code so tests and tasks can reason about the same strings.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Day bits of `daysofweek`, indexed by JavaScript's getUTCDay() (0 = Sunday), as AOSP's Weekdays. */
export const DAY_BITS = [64, 1, 2, 4, 8, 16, 32] as const;
export { DAY_NAMES };
export const DAY_LETTERS = ['S', 'M', 'T', 'W', 'T', 'F', 'S'] as const;
export const EVERY_DAY = 127;

/** "7:05 AM", or "07:05" with the 24-hour setting. */
export function clockTime(hour: number, minute: number, h24: boolean): string {
  const mm = String(minute).padStart(2, '0');
  if (h24) return `${String(hour).padStart(2, '0')}:${mm}`;
  return `${hour % 12 === 0 ? 12 : hour % 12}:${mm} ${hour < 12 ? 'AM' : 'PM'}`;
}

export function clockTimeAt(ms: number, h24: boolean): string {
  const d = new Date(ms);
  return clockTime(d.getUTCHours(), d.getUTCMinutes(), h24);
}

/** The next time (device ms) this alarm rings after `now`; a time equal to now is tomorrow's, as in AOSP. */
export function nextAlarmTime(a: Pick<Alarm, 'hour' | 'minutes' | 'daysofweek'>, now: number): number {
  const d = new Date(now);
  const today = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), a.hour, a.minutes);
  for (let i = 0; i <= 7; i++) {
    const t = today + i * DAY;
    if (t <= now) continue;
    if (a.daysofweek === 0 || (a.daysofweek & DAY_BITS[new Date(t).getUTCDay()]!) !== 0) return t;
  }
  return today + 7 * DAY;
}

/** The enabled alarm that rings first, if any. */
export function nextAlarm(alarms: readonly Alarm[], now: number): { alarm: Alarm; at: number } | undefined {
  let best: { alarm: Alarm; at: number } | undefined;
  for (const alarm of alarms) {
    if (!alarm.enabled) continue;
    const at = nextAlarmTime(alarm, now);
    if (!best || at < best.at) best = { alarm, at };
  }
  return best;
}

const plural = (n: number, one: string, many: string) => (n === 1 ? `1 ${one}` : `${n} ${many}`);

/** AOSP's AlarmUtils toast: "Alarm set for 7 hours and 5 minutes from now." (minutes rounded up). */
export function alarmSetToast(deltaMs: number): string {
  if (deltaMs < MINUTE) return 'Alarm set for less than 1 minute from now.';
  const rounded = Math.ceil(deltaMs / MINUTE) * MINUTE;
  const days = Math.floor(rounded / DAY);
  const hours = Math.floor((rounded % DAY) / HOUR);
  const minutes = Math.floor((rounded % HOUR) / MINUTE);
  const parts = [
    days ? plural(days, 'day', 'days') : '',
    hours ? plural(hours, 'hour', 'hours') : '',
    minutes ? plural(minutes, 'minute', 'minutes') : '',
  ].filter(Boolean);
  const joined = parts.length === 3 ? `${parts[0]}, ${parts[1]}, and ${parts[2]}` : parts.join(' and ');
  return `Alarm set for ${joined} from now.`;
}

/** The line under an alarm's time: repeat days, or when a one-time alarm rings. */
export function alarmSummary(a: Alarm, now: number): string {
  if (a.daysofweek === EVERY_DAY) return 'Every day';
  if (a.daysofweek !== 0) return DAY_NAMES.filter((_n, i) => (a.daysofweek & DAY_BITS[i]!) !== 0).map((n) => n.slice(0, 3)).join(', ');
  if (!a.enabled) return 'Not scheduled';
  const at = nextAlarmTime(a, now);
  return new Date(at).getUTCDate() === new Date(now).getUTCDate() ? 'Today' : 'Tomorrow';
}

/** "Mon 7:00 AM", the Clock tab's next-alarm line. */
export function nextAlarmLine(at: number, h24: boolean): string {
  return `${DAY_NAMES[new Date(at).getUTCDay()]!.slice(0, 3)} ${clockTimeAt(at, h24)}`;
}

/** A timer's remaining time as the card shows it: "4:59", "1:02:03", "-0:05" once expired. */
export function timerText(ms: number): string {
  // Counting down shows whole seconds rounded up (5:00 until a full second has passed).
  const neg = ms < 0;
  const secs = neg ? Math.floor(-ms / 1000) : Math.ceil(ms / 1000);
  const hh = Math.floor(secs / 3600);
  const mm = Math.floor((secs % 3600) / 60);
  const ss = String(secs % 60).padStart(2, '0');
  const body = hh > 0 ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${mm}:${ss}`;
  return neg && secs > 0 ? `-${body}` : body;
}

/** The timer keypad's digits (up to six, entered from the right) as hours, minutes, seconds. */
export function setupParts(digits: string): { h: number; m: number; s: number } {
  const d = digits.padStart(6, '0');
  return { h: Number(d.slice(0, 2)), m: Number(d.slice(2, 4)), s: Number(d.slice(4, 6)) };
}

/** "00h 05m 30s", the keypad's display (AOSP TimerSetupView). */
export function setupText(digits: string): string {
  const d = digits.padStart(6, '0');
  return `${d.slice(0, 2)}h ${d.slice(2, 4)}m ${d.slice(4, 6)}s`;
}

export function setupDescription(digits: string): string {
  const { h, m, s } = setupParts(digits);
  return [plural(h, 'hour', 'hours'), plural(m, 'minute', 'minutes'), plural(s, 'second', 'seconds')].join(', ');
}

export function setupLengthMs(digits: string): number {
  const { h, m, s } = setupParts(digits);
  return ((h * 60 + m) * 60 + s) * 1000;
}

/** A timer's length as its card's subtitle: "5m 30s", "1h", "45s". */
export function lengthText(ms: number): string {
  const secs = Math.round(ms / 1000);
  const parts = [[Math.floor(secs / 3600), 'h'], [Math.floor((secs % 3600) / 60), 'm'], [secs % 60, 's']] as const;
  return parts.filter(([n]) => n > 0).map(([n, u]) => `${n}${u}`).join(' ') || '0s';
}

/** The stopwatch's main text ("00:05", "1:02:03") and hundredths ("07"). */
export function stopwatchParts(ms: number): { main: string; hundredths: string } {
  const total = Math.max(0, Math.floor(ms / 10));
  const hundredths = String(total % 100).padStart(2, '0');
  const secs = Math.floor(total / 100);
  const hh = Math.floor(secs / 3600);
  const mm = Math.floor((secs % 3600) / 60);
  const ss = String(secs % 60).padStart(2, '0');
  return { main: hh > 0 ? `${hh}:${String(mm).padStart(2, '0')}:${ss}` : `${String(mm).padStart(2, '0')}:${ss}`, hundredths };
}

export function stopwatchText(ms: number): string {
  const p = stopwatchParts(ms);
  return `${p.main}.${p.hundredths}`;
}

/** "Today, 9 hours ahead", "Yesterday, 4 hours behind", "Today, 5 hours 30 minutes ahead". */
export function cityDifference(offsetMinutes: number, now: number): string {
  const local = new Date(now);
  const there = new Date(now + offsetMinutes * MINUTE);
  const dayDiff = Math.round((Date.UTC(there.getUTCFullYear(), there.getUTCMonth(), there.getUTCDate()) - Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate())) / DAY);
  const day = dayDiff > 0 ? 'Tomorrow' : dayDiff < 0 ? 'Yesterday' : 'Today';
  if (offsetMinutes === 0) return `${day}, same time`;
  const abs = Math.abs(offsetMinutes);
  const hours = Math.floor(abs / 60);
  const minutes = abs % 60;
  const amount = [hours ? plural(hours, 'hour', 'hours') : '', minutes ? plural(minutes, 'minute', 'minutes') : ''].filter(Boolean).join(' ');
  return `${day}, ${amount} ${offsetMinutes > 0 ? 'ahead' : 'behind'}`;
}

/** "Sun, Oct 15" */
export function shortDate(ms: number): string {
  const d = new Date(ms);
  const month = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'][d.getUTCMonth()]!;
  return `${DAY_NAMES[d.getUTCDay()]!.slice(0, 3)}, ${month} ${d.getUTCDate()}`;
}
