import { formatTime, shortMonth, monthName } from '../../system/clock.js';

/** Date texts as Pro Expense formats them (ExpenseRecentDateFormatter, the entry toolbar). */
const DAY_MS = 86_400_000;

function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** "Today 3:34 PM", "Yesterday 9:05 AM", "Oct 12" (this year) or "2022 Dec 3". */
export function rowDate(ms: number, now: number): string {
  const days = (dayStart(now) - dayStart(ms)) / DAY_MS;
  const d = new Date(ms);
  if (days === 0) return `Today ${formatTime(ms)}`;
  if (days === 1) return `Yesterday ${formatTime(ms)}`;
  if (d.getUTCFullYear() === new Date(now).getUTCFullYear()) return `${shortMonth(d.getUTCMonth())} ${d.getUTCDate()}`;
  return `${d.getUTCFullYear()} ${shortMonth(d.getUTCMonth())} ${d.getUTCDate()}`;
}

/** The logs' date headers: "Today", "Yesterday", "October 12, 2023". */
export function dayHeader(ms: number, now: number): string {
  const days = (dayStart(now) - dayStart(ms)) / DAY_MS;
  if (days === 0) return 'Today';
  if (days === 1) return 'Yesterday';
  const d = new Date(ms);
  return `${monthName(d.getUTCMonth())} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

export function dayKey(ms: number): number {
  return dayStart(ms);
}

/** "15 Oct 2023 3:34 PM" (the entry screen's subtitle, pattern "d MMM yyyy h:mm a"). */
export function entryDate(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCDate()} ${shortMonth(d.getUTCMonth())} ${d.getUTCFullYear()} ${formatTime(ms)}`;
}

/** "Oct 15, 2023" for the detail sheet. */
export function detailDate(ms: number): string {
  const d = new Date(ms);
  return `${shortMonth(d.getUTCMonth())} ${d.getUTCDate()}, ${d.getUTCFullYear()} ${formatTime(ms)}`;
}

/** This week, Sunday 00:00 to the next Sunday 00:00, as HomeViewModel computes it. */
export function currentWeek(now: number): { start: number; end: number } {
  const today = dayStart(now);
  const start = today - new Date(today).getUTCDay() * DAY_MS;
  return { start, end: start + 7 * DAY_MS };
}

/** "OCT 15 - OCT 21" (textAllCaps). */
export function weekRangeText(now: number): string {
  const { start, end } = currentWeek(now);
  const f = (ms: number) => `${shortMonth(new Date(ms).getUTCMonth())} ${new Date(ms).getUTCDate()}`.toUpperCase();
  return `${f(start)} - ${f(end - DAY_MS)}`;
}

export const WEEK_DAYS = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SAT'];
export { DAY_MS };
