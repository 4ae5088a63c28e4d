import type { Device } from '../../../device/device.js';
import { DEVICE_NOW, dateParts, type DateParts } from '../../../seed-data/dates.js';
import { sqlExec, sqlLiteral, sqlObjects } from '../../validators/sqlite.js';

/**
 * Tasks.org's database as tasks set it up and check it, through `sqlite3` on the device (the same
 * commands work on an emulator). Reusable by multi-app templates.
 *
 * Encoding, as Tasks.org stores it: times in epoch ms, 0 = none; `importance` 0 = high (!!!),
 * 1 = medium, 2 = low, 3 = none; a date-only due date is 12:00:00 of its day and one with a time
 * has its seconds set to 1; `completed` and `deleted` hold when that happened. The app marks deleted
 * tasks (`deleted` > 0) and purges them later, so "deleted" means either.
 */
export const TASKS_PKG = 'org.tasks';
export const TASKS_ACTIVITY = 'com.todoroo.astrid.activity.MainActivity';
export const TASKS_DB = '/data/data/org.tasks/databases/database';

export const Importance = { HIGH: 0, MEDIUM: 1, LOW: 2, NONE: 3 } as const;
export const IMPORTANCE_WORD = ['high', 'medium', 'low', 'no'] as const;

const DAY_MS = 86_400_000;

/** A due date in Tasks.org's encoding: a day, optionally with a time (24-hour). */
export function dueOn(d: DateParts, time?: { hour: number; minute: number }): number {
  return time ? Date.UTC(d.year, d.month - 1, d.day, time.hour, time.minute, 1) : Date.UTC(d.year, d.month - 1, d.day, 12, 0, 0);
}

export function hasDueTime(dueDate: number): boolean {
  return dueDate > 0 && dueDate % 60000 > 0;
}

/** The (device-local, UTC) day of a due date, or null for none. */
export function dueDay(dueDate: number): DateParts | null {
  return dueDate > 0 ? dateParts(dueDate) : null;
}

/** Days from the device's today to a due date's day (0 = today), or null for none. */
export function dueInDays(dueDate: number, now = DEVICE_NOW): number | null {
  if (dueDate <= 0) return null;
  return Math.round((Math.floor(dueDate / DAY_MS) - Math.floor(now / DAY_MS)));
}

export interface NewTask {
  title: string;
  notes?: string;
  importance?: number;
  /** Tasks.org encoding (see dueOn); 0 or absent = none. */
  dueDate?: number;
  /** true: completed an hour before the device's now; a number: when it was completed. */
  completed?: boolean | number;
  /** Creation time; defaults to a day before the device's now. */
  created?: number;
}

export interface TaskRecord {
  id: number;
  title: string;
  notes: string;
  importance: number;
  dueDate: number;
  completed: number;
  deleted: number;
  created: number;
  modified: number;
}

function insertStatement(t: NewTask): string {
  const created = t.created ?? DEVICE_NOW - DAY_MS;
  const completed = t.completed === true ? DEVICE_NOW - 3_600_000 : typeof t.completed === 'number' ? t.completed : 0;
  const row = {
    title: t.title, importance: t.importance ?? Importance.NONE, dueDate: t.dueDate ?? 0, hideUntil: 0, created, modified: created,
    completed, deleted: 0, notes: t.notes ? t.notes : null, estimatedSeconds: 0, elapsedSeconds: 0, timerStart: 0,
    notificationFlags: 0, lastNotified: 0, collapsed: 0, parent: 0,
  };
  const cols = Object.keys(row) as Array<keyof typeof row>;
  // remoteId must be unique (index t_rid): derive it from the id the row will get.
  return `INSERT INTO tasks (${cols.join(', ')}, remoteId) VALUES (${cols.map((c) => sqlLiteral(row[c])).join(', ')}, `
    + "'awb' || (SELECT COALESCE(MAX(_id), 0) + 1 FROM tasks));";
}

export async function addTasks(device: Device, tasks: readonly NewTask[]): Promise<void> {
  if (tasks.length === 0) return;
  await sqlExec(device, TASKS_DB, tasks.map(insertStatement).join('\n'));
}

export async function addTask(device: Device, task: NewTask): Promise<void> {
  await addTasks(device, [task]);
}

/** Removes every task and tag, so a template starts from a known list. */
export async function clearTasks(device: Device): Promise<void> {
  await sqlExec(device, TASKS_DB, 'DELETE FROM tags; DELETE FROM tagdata; DELETE FROM tasks;');
}

/** Every task row (deleted ones too unless `visibleOnly`), oldest first. */
export async function listTasks(device: Device, opts: { visibleOnly?: boolean } = {}): Promise<TaskRecord[]> {
  const cols = ['_id', 'title', 'notes', 'importance', 'dueDate', 'completed', 'deleted', 'created', 'modified'] as const;
  const rows = await sqlObjects(device, TASKS_DB, cols, `tasks${opts.visibleOnly ? ' WHERE deleted = 0' : ''} ORDER BY _id`);
  return rows.map((r) => ({
    id: Number(r._id), title: String(r.title ?? ''), notes: String(r.notes ?? ''), importance: Number(r.importance),
    dueDate: Number(r.dueDate), completed: Number(r.completed), deleted: Number(r.deleted), created: Number(r.created),
    modified: Number(r.modified),
  }));
}
