import type { Db } from '../../system/databases.js';

/**
 * Tasks.org's Room database (`com.todoroo.astrid.dao.Database`, schema 88): the `tasks` table (with `order` between
 * `parent` and `read_only`, as AndroidWorld's Task row reads and writes it) and
 * the tag tables, with the real column names and NOT NULL constraints, so `sqlite3` checkers read
 * the same columns as on an emulator. Times are epoch milliseconds; 0 means "none".
 *
 * Deleting marks a task (`deleted` = time) as Tasks.org's TaskDeleter does; the real app purges
 * such rows later on sync, so checkers treat "deleted > 0" and "row gone" alike.
 */
export const TASKS_DB = '/data/data/org.tasks/databases/database';

export const SCHEMA = `
CREATE TABLE tasks (
  _id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, title TEXT, importance INTEGER NOT NULL, dueDate INTEGER NOT NULL,
  hideUntil INTEGER NOT NULL, created INTEGER NOT NULL, modified INTEGER NOT NULL, completed INTEGER NOT NULL,
  deleted INTEGER NOT NULL, notes TEXT, estimatedSeconds INTEGER NOT NULL, elapsedSeconds INTEGER NOT NULL,
  timerStart INTEGER NOT NULL, notificationFlags INTEGER NOT NULL, lastNotified INTEGER NOT NULL, recurrence TEXT,
  repeat_from INTEGER NOT NULL DEFAULT 0, calendarUri TEXT, remoteId TEXT, collapsed INTEGER NOT NULL,
  parent INTEGER NOT NULL, \`order\` INTEGER, read_only INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX t_rid ON tasks (remoteId);
CREATE INDEX active_and_visible ON tasks (completed, deleted, hideUntil);
CREATE TABLE tagdata (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, remoteId TEXT, name TEXT, color INTEGER, tagOrdering TEXT, td_icon INTEGER,
  td_order INTEGER NOT NULL
);
CREATE TABLE tags (
  _id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, task INTEGER NOT NULL, name TEXT, tag_uid TEXT, task_uid TEXT,
  FOREIGN KEY(task) REFERENCES tasks(_id) ON UPDATE NO ACTION ON DELETE CASCADE
);
CREATE INDEX index_tags_task ON tags (task);
`;

/** Task.Priority: lower is more important, as in Tasks.org. */
export const Priority = { HIGH: 0, MEDIUM: 1, LOW: 2, NONE: 3 } as const;

export interface TaskRow {
  _id: number;
  title: string | null;
  importance: number;
  dueDate: number;
  hideUntil: number;
  created: number;
  modified: number;
  completed: number;
  deleted: number;
  notes: string | null;
  remoteId: string | null;
}

export type SortMode = 'auto' | 'alpha' | 'due' | 'importance' | 'modified' | 'created';

/** A date-only due date counts until the end of its day (SortHelper's ADJUSTED_DUE_DATE). */
const ADJUSTED_DUE = '(CASE WHEN (dueDate / 1000) % 60 > 0 THEN dueDate ELSE (dueDate + 43140000) END)';
const NO_DUE = '(@now * 2)';

/** SortHelper.orderForSortType, with the secondary order by title. */
const ORDER: Record<SortMode, string> = {
  auto: `(CASE WHEN dueDate = 0 THEN ${NO_DUE} ELSE ${ADJUSTED_DUE} END) + 172799999 * importance, UPPER(title)`,
  due: `(CASE WHEN dueDate = 0 THEN ${NO_DUE} ELSE ${ADJUSTED_DUE} END) + importance, UPPER(title)`,
  importance: 'importance, UPPER(title)',
  alpha: 'UPPER(title)',
  modified: 'modified DESC, UPPER(title)',
  created: 'created DESC, UPPER(title)',
};

const COLUMNS = '_id, title, importance, dueDate, hideUntil, created, modified, completed, deleted, notes, remoteId';

function searchClause(query: string): { sql: string; args: Record<string, string> } {
  if (!query) return { sql: '', args: {} };
  return { sql: " AND (title LIKE @q ESCAPE '\\' OR notes LIKE @q ESCAPE '\\')", args: { q: `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%` } };
}

/** Tasks still to do ("My Tasks"), in the list's sort order. */
export function activeTasks(db: Db, sort: SortMode, now: number, query = ''): TaskRow[] {
  const s = searchClause(query);
  return db.prepare(`SELECT ${COLUMNS} FROM tasks WHERE deleted = 0 AND completed = 0${s.sql} ORDER BY ${ORDER[sort]}`)
    .all({ now, ...s.args }) as TaskRow[];
}

/** Completed tasks, most recently completed first (shown at the bottom of the list). */
export function completedTasks(db: Db, query = ''): TaskRow[] {
  const s = searchClause(query);
  return db.prepare(`SELECT ${COLUMNS} FROM tasks WHERE deleted = 0 AND completed > 0${s.sql} ORDER BY completed DESC, UPPER(title)`)
    .all(s.args) as TaskRow[];
}

export function getTask(db: Db, id: number): TaskRow | undefined {
  return db.prepare(`SELECT ${COLUMNS} FROM tasks WHERE _id = ?`).get(id) as TaskRow | undefined;
}

export interface TaskFields {
  title: string;
  notes: string;
  importance: number;
  dueDate: number;
}

/** Tasks.org's UUIDHelper makes a random positive long; a time-and-id one is as unique here. */
function newRemoteId(now: number, salt: number): string {
  return String(now * 1000 + (salt % 1000));
}

export function insertTask(db: Db, f: TaskFields & { completed?: number }, now: number): number {
  const next = (db.prepare("SELECT COALESCE(MAX(_id), 0) + 1 FROM tasks").pluck().get() as number);
  const r = db.prepare(`INSERT INTO tasks (title, importance, dueDate, hideUntil, created, modified, completed, deleted, notes,
      estimatedSeconds, elapsedSeconds, timerStart, notificationFlags, lastNotified, recurrence, remoteId, collapsed, parent)
    VALUES (@title, @importance, @dueDate, 0, @now, @now, @completed, 0, @notes, 0, 0, 0, 0, 0, NULL, @remoteId, 0, 0)`)
    .run({ ...f, notes: f.notes || null, completed: f.completed ?? 0, now, remoteId: newRemoteId(now, next) });
  return Number(r.lastInsertRowid);
}

export function updateTask(db: Db, id: number, f: TaskFields, now: number): void {
  db.prepare('UPDATE tasks SET title = @title, notes = @notes, importance = @importance, dueDate = @dueDate, modified = @now WHERE _id = @id')
    .run({ ...f, notes: f.notes || null, now, id });
}

/** TaskCompleter.setComplete: `completed` holds the completion time. */
export function setCompleted(db: Db, id: number, done: boolean, now: number): void {
  db.prepare('UPDATE tasks SET completed = @completed, modified = @now WHERE _id = @id').run({ completed: done ? now : 0, now, id });
}

/** DeletionDao.markDeleted. */
export function markDeleted(db: Db, ids: readonly number[], now: number): void {
  const stmt = db.prepare('UPDATE tasks SET deleted = @now, modified = @now WHERE _id = @id');
  for (const id of ids) stmt.run({ now, id });
}

/** TaskDeleter.clearCompleted: marks every visible completed task deleted; returns how many. */
export function clearCompleted(db: Db, now: number): number {
  const ids = (db.prepare('SELECT _id FROM tasks WHERE deleted = 0 AND completed > 0').pluck().all() as number[]);
  markDeleted(db, ids, now);
  return ids.length;
}

// ------------------------------------------------------------------ tags

export function allTagNames(db: Db): string[] {
  return db.prepare('SELECT name FROM tagdata WHERE name IS NOT NULL ORDER BY td_order, UPPER(name)').pluck().all() as string[];
}

export function tagsOf(db: Db, taskId: number): string[] {
  return db.prepare('SELECT name FROM tags WHERE task = ? ORDER BY UPPER(name)').pluck().all(taskId) as string[];
}

/** Tag names per task id, for the chips of the list rows. */
export function tagsByTask(db: Db): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  const rows = db.prepare('SELECT task, name FROM tags ORDER BY UPPER(name)').all() as Array<{ task: number; name: string }>;
  for (const r of rows) (out[r.task] ??= []).push(r.name);
  return out;
}

export function createTag(db: Db, name: string, now: number): void {
  const exists = db.prepare('SELECT 1 FROM tagdata WHERE name = ?').get(name);
  if (exists) return;
  const order = db.prepare('SELECT COALESCE(MAX(td_order), -1) + 1 FROM tagdata').pluck().get() as number;
  db.prepare('INSERT INTO tagdata (remoteId, name, color, td_icon, td_order) VALUES (?, ?, 0, -1, ?)').run(newRemoteId(now, order + 500), name, order);
}

/** Replaces a task's tags (creating tags that do not exist yet). */
export function setTaskTags(db: Db, taskId: number, names: readonly string[], now: number): void {
  db.prepare('DELETE FROM tags WHERE task = ?').run(taskId);
  const task = getTask(db, taskId);
  for (const name of names) {
    createTag(db, name, now);
    const uid = db.prepare('SELECT remoteId FROM tagdata WHERE name = ?').pluck().get(name) as string | null;
    db.prepare('INSERT INTO tags (task, name, tag_uid, task_uid) VALUES (?, ?, ?, ?)').run(taskId, name, uid, task?.remoteId ?? null);
  }
}
