import { DAY_NAMES as DAYS, MONTH_NAMES as MONTHS } from '../../../core/util/calendar-names.js';

/**
 * The device's virtual clock. Time only moves when the device does something (each input event
 * costs a little time, `wait` lets seconds pass), so runs are reproducible and as fast as the CPU.
 * Device local time is UTC: dates are formatted from UTC fields throughout SimDroid.
 */
export const DEFAULT_BOOT_TIME = Date.UTC(2023, 9, 15, 15, 34, 0); // Sun 15 Oct 2023 15:34, AndroidWorld's date

export class Clock {
  constructor(public nowMs: number = DEFAULT_BOOT_TIME, public bootMs: number = DEFAULT_BOOT_TIME) {}

  now(): number {
    return this.nowMs;
  }

  advance(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`Clock.advance needs a non-negative duration, got ${ms}`);
    this.nowMs += Math.round(ms);
  }

  uptimeMs(): number {
    return this.nowMs - this.bootMs;
  }
}


export const dayName = (ms: number) => DAYS[new Date(ms).getUTCDay()]!;
export const monthName = (m0: number) => MONTHS[m0]!;
export const shortMonth = (m0: number) => MONTHS[m0]!.slice(0, 3);

/** "3:34 PM" (12-hour) or "15:34". */
export function formatTime(ms: number, h24 = false): string {
  const d = new Date(ms);
  const h = d.getUTCHours();
  const m = String(d.getUTCMinutes()).padStart(2, '0');
  if (h24) return `${String(h).padStart(2, '0')}:${m}`;
  return `${h % 12 === 0 ? 12 : h % 12}:${m} ${h < 12 ? 'AM' : 'PM'}`;
}

/** "Sun, Oct 15". */
export function formatShortDate(ms: number): string {
  const d = new Date(ms);
  return `${dayName(ms).slice(0, 3)}, ${shortMonth(d.getUTCMonth())} ${d.getUTCDate()}`;
}

/** "October 15, 2023". */
export function formatLongDate(ms: number): string {
  const d = new Date(ms);
  return `${monthName(d.getUTCMonth())} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

/** "2023-10-15". */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
