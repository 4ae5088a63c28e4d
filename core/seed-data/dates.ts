import type { Rng } from '../util/rng.js';
import { DAY_NAMES as DAYS, MONTH_NAMES as MONTHS } from '../util/calendar-names.js';

/** The devices' clock starts at Sunday 15 October 2023, 15:34 UTC (AndroidWorld's date). */
export const DEVICE_NOW = Date.UTC(2023, 9, 15, 15, 34, 0);
export const DAY_MS = 86_400_000;


export interface DateParts {
  year: number;
  /** 1..12 */
  month: number;
  day: number;
}

export function dateParts(ms: number): DateParts {
  const d = new Date(ms);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

export function msOf(d: DateParts, hour = 0, minute = 0): number {
  return Date.UTC(d.year, d.month - 1, d.day, hour, minute);
}

/** "October 22, 2023" */
export function longDate(d: DateParts): string {
  return `${MONTHS[d.month - 1]} ${d.day}, ${d.year}`;
}

/** "2023-10-22" */
export function isoDate(d: DateParts): string {
  return `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

export function weekday(d: DateParts): string {
  return DAYS[new Date(msOf(d)).getUTCDay()]!;
}

export function monthName(m: number): string {
  return MONTHS[m - 1]!;
}

/** A day between `fromDays` and `toDays` days after the device's today. */
export function randomDay(rng: Rng, fromDays: number, toDays: number): DateParts {
  return dateParts(DEVICE_NOW + rng.int(fromDays, toDays) * DAY_MS);
}

/** "3:05 PM" from 24-hour parts. */
export function time12(hour: number, minute: number): string {
  return `${hour % 12 === 0 ? 12 : hour % 12}:${String(minute).padStart(2, '0')} ${hour < 12 ? 'AM' : 'PM'}`;
}
