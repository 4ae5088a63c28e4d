import { dayName, formatTime, monthName, shortMonth } from '../../system/clock.js';

/**
 * Tasks.org's due-date encoding and wording. A date-only due date is stored at 12:00:00.000 of the
 * day; one with a time has its seconds set to 1 (`Task.hasDueTime` tests `dueDate % 60000 > 0`).
 * Labels follow DateUtilities.getRelativeDateTime: "Today", "Tmrw", "Yest" or a weekday within six
 * days, else "Oct 25" (MEDIUM, the list) or "Wednesday, October 25" (FULL, the editor).
 */
const DAY_MS = 86_400_000;

export function dueDateOnly(year: number, month: number, day: number): number {
  return Date.UTC(year, month - 1, day, 12, 0, 0);
}

export function dueDateTime(year: number, month: number, day: number, hour: number, minute: number): number {
  return Date.UTC(year, month - 1, day, hour, minute, 1);
}

export function hasDueTime(due: number): boolean {
  return due > 0 && due % 60000 > 0;
}

export function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** Overdue: past the time, or past the end of the day for a date-only task (Task.isOverdue). */
export function isOverdue(due: number, now: number): boolean {
  if (due <= 0) return false;
  return hasDueTime(due) ? due < now : startOfDay(due) + DAY_MS <= now;
}

function relativeDay(due: number, now: number, abbreviated: boolean): string | null {
  const diff = Math.round((startOfDay(due) - startOfDay(now)) / DAY_MS);
  if (Math.abs(diff) > 6) return null;
  if (diff === 0) return 'Today';
  if (diff === 1) return abbreviated ? 'Tmrw' : 'Tomorrow';
  if (diff === -1) return abbreviated ? 'Yest' : 'Yesterday';
  return abbreviated ? dayName(due).slice(0, 3) : dayName(due);
}

function fullDate(due: number, now: number, abbreviated: boolean): string {
  const d = new Date(due);
  const year = d.getUTCFullYear() === new Date(now).getUTCFullYear() ? '' : `, ${d.getUTCFullYear()}`;
  return abbreviated
    ? `${shortMonth(d.getUTCMonth())} ${d.getUTCDate()}${year}`
    : `${dayName(due)}, ${monthName(d.getUTCMonth())} ${d.getUTCDate()}${year}`;
}

/** The due-date text of a list row ("Today", "Tmrw 9:00 AM", "Oct 25"), empty for none. */
export function listDueLabel(due: number, now: number): string {
  return dueLabel(due, now, true);
}

/** The due-date text of the editor's row ("Tomorrow", "Wednesday, October 25 at 9:00 AM"). */
export function editorDueLabel(due: number, now: number): string {
  return dueLabel(due, now, false);
}

function dueLabel(due: number, now: number, abbreviated: boolean): string {
  if (due <= 0) return '';
  const time = hasDueTime(due) ? formatTime(due) : null;
  const day = relativeDay(due, now, abbreviated);
  if (day === null) {
    const date = fullDate(due, now, abbreviated);
    return time ? `${date}${abbreviated ? ',' : ' at'} ${time}` : date;
  }
  if (!time) return day;
  return day === 'Today' ? time : `${day} ${time}`;
}

/** Year, month (1..12) and day of a stored due date (or of `fallback` when there is none). */
export function dueParts(due: number, fallback: number): { year: number; month: number; day: number } {
  const d = new Date(due > 0 ? due : fallback);
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}
