import { DAY_NAMES, MONTH_NAMES } from '../../../../core/util/calendar-names.js';
import { formatTime } from '../../system/clock.js';
import type { SettingsStore } from '../../system/settings.js';
import type { CalEvent } from './db.js';

/** How Simple Calendar words dates, times and reminders (device local time is UTC). */
export const MONTHS = MONTH_NAMES;
const DAYS = DAY_NAMES;

/** A calendar month, month 1..12. */
export interface YearMonth {
  year: number;
  month: number;
}

export function monthOf(ms: number): YearMonth {
  const d = new Date(ms);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1 };
}

export function addMonths(ym: YearMonth, delta: number): YearMonth {
  const m = ym.month - 1 + delta;
  return { year: ym.year + Math.floor(m / 12), month: (((m % 12) + 12) % 12) + 1 };
}

export function monthStartMs(ym: YearMonth): number {
  return Date.UTC(ym.year, ym.month - 1, 1);
}

/** "October 2023", the month view's header. */
export function monthTitle(ym: YearMonth): string {
  return `${MONTHS[ym.month - 1]} ${ym.year}`;
}

/** "15 October 2023": a month cell's content description (as the date picker words days). */
export function cellDesc(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** "Sunday, October 15, 2023": the day view's header and the event list's section titles. */
export function dayTitle(ms: number): string {
  const d = new Date(ms);
  return `${DAYS[d.getUTCDay()]}, ${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

/** "Sun, Oct 15, 2023": the editor's start and end dates. */
export function editorDate(ms: number): string {
  const d = new Date(ms);
  return `${DAYS[d.getUTCDay()]!.slice(0, 3)}, ${MONTHS[d.getUTCMonth()]!.slice(0, 3)} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

/** The user's 12/24-hour choice, which the real app follows by default. */
export function use24h(settings: SettingsStore): boolean {
  return settings.get('system', 'time_12_24') === '24';
}

export function timeText(ms: number, settings: SettingsStore): string {
  return formatTime(ms, use24h(settings));
}

/** "3:00 PM – 4:30 PM", or "All day". */
export function eventTimeText(e: CalEvent, settings: SettingsStore): string {
  if (e.allDay) return 'All day';
  if (e.end === e.start) return timeText(e.start, settings);
  return `${timeText(e.start, settings)} – ${timeText(e.end, settings)}`;
}

/** Reminder choices of the reminder dialog, in minutes (-1: none). */
export const REMINDER_CHOICES = [-1, 0, 5, 10, 15, 30, 60, 1440];

export function reminderText(minutes: number): string {
  if (minutes < 0) return 'No reminder';
  if (minutes === 0) return 'At start';
  if (minutes % 1440 === 0) return minutes === 1440 ? '1 day before' : `${minutes / 1440} days before`;
  if (minutes % 60 === 0) return minutes === 60 ? '1 hour before' : `${minutes / 60} hours before`;
  return minutes === 1 ? '1 minute before' : `${minutes} minutes before`;
}
