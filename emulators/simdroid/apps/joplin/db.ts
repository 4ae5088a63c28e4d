import type { Db } from '../../system/databases.js';

/**
 * Joplin's database (`joplin.sqlite`, the columns AndroidWorld's `JoplinNote` and `JoplinFolder`
 * rows write and `select * from folders` reads back). Ids are 32-digit hex strings as Joplin makes
 * them; a note's `parent_id` is its notebook's id; times are epoch milliseconds. `notes_normalized`
 * is the copy Joplin searches (an FTS table on a device; a plain table here, filled by whoever
 * inserts notes, as AndroidWorld's seeding does). Only `folders` has `deleted_time`, the column
 * AndroidWorld leaves out of its folder inserts.
 */
export const JOPLIN_PKG = 'net.cozic.joplin';
export const JOPLIN_DB = '/data/data/net.cozic.joplin/databases/joplin.sqlite';

export const JOPLIN_SCHEMA = `
CREATE TABLE folders (id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT '', created_time INT NOT NULL DEFAULT 0,
  updated_time INT NOT NULL DEFAULT 0, user_created_time INT NOT NULL DEFAULT 0, user_updated_time INT NOT NULL DEFAULT 0,
  encryption_cipher_text TEXT NOT NULL DEFAULT '', encryption_applied INT NOT NULL DEFAULT 0, parent_id TEXT NOT NULL DEFAULT '',
  is_shared INT NOT NULL DEFAULT 0, share_id TEXT NOT NULL DEFAULT '', master_key_id TEXT NOT NULL DEFAULT '',
  icon TEXT NOT NULL DEFAULT '', user_data TEXT NOT NULL DEFAULT '', deleted_time INT NOT NULL DEFAULT 0);
CREATE TABLE notes (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL DEFAULT '', title TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL DEFAULT '', created_time INT NOT NULL, updated_time INT NOT NULL, is_conflict INT NOT NULL DEFAULT 0,
  latitude NUMERIC NOT NULL DEFAULT 0, longitude NUMERIC NOT NULL DEFAULT 0, altitude NUMERIC NOT NULL DEFAULT 0,
  author TEXT NOT NULL DEFAULT '', source_url TEXT NOT NULL DEFAULT '', is_todo INT NOT NULL DEFAULT 0,
  todo_due INT NOT NULL DEFAULT 0, todo_completed INT NOT NULL DEFAULT 0, source TEXT NOT NULL DEFAULT '',
  source_application TEXT NOT NULL DEFAULT '', application_data TEXT NOT NULL DEFAULT '', "order" NUMERIC NOT NULL DEFAULT 0,
  user_created_time INT NOT NULL DEFAULT 0, user_updated_time INT NOT NULL DEFAULT 0,
  encryption_cipher_text TEXT NOT NULL DEFAULT '', encryption_applied INT NOT NULL DEFAULT 0,
  markup_language INT NOT NULL DEFAULT 1, is_shared INT NOT NULL DEFAULT 0, share_id TEXT NOT NULL DEFAULT '',
  conflict_original_id TEXT NOT NULL DEFAULT '', master_key_id TEXT NOT NULL DEFAULT '', user_data TEXT NOT NULL DEFAULT '');
CREATE INDEX notes_parent_id ON notes (parent_id);
CREATE TABLE notes_normalized (id TEXT NOT NULL, parent_id TEXT NOT NULL DEFAULT '', title TEXT NOT NULL DEFAULT '',
  body TEXT NOT NULL DEFAULT '', latitude NUMERIC NOT NULL DEFAULT 0, longitude NUMERIC NOT NULL DEFAULT 0,
  altitude NUMERIC NOT NULL DEFAULT 0, source_url TEXT NOT NULL DEFAULT '', is_todo INT NOT NULL DEFAULT 0,
  todo_due INT NOT NULL DEFAULT 0, todo_completed INT NOT NULL DEFAULT 0, user_created_time INT NOT NULL DEFAULT 0,
  user_updated_time INT NOT NULL DEFAULT 0);
`;

export interface Folder {
  id: string;
  title: string;
}

export interface Note {
  id: string;
  parent_id: string;
  title: string;
  body: string;
  is_todo: number;
  todo_completed: number;
  user_updated_time: number;
}

export function folders(db: Db): Folder[] {
  return db.prepare("SELECT id, title FROM folders WHERE deleted_time = 0 ORDER BY title COLLATE NOCASE, id").all() as Folder[];
}

export function folder(db: Db, id: string): Folder | undefined {
  return db.prepare('SELECT id, title FROM folders WHERE id = ?').get(id) as Folder | undefined;
}

const NOTE_COLS = 'id, parent_id, title, body, is_todo, todo_completed, user_updated_time';
/**
 * Joplin's default list order (notes.sortOrder.field = user_updated_time, newest first) with
 * uncompleted to-dos on top (uncompletedTodosOnTop, on by default); ties by title.
 */
const LIST_ORDER = 'ORDER BY (is_todo = 1 AND todo_completed = 0) DESC, user_updated_time DESC, title COLLATE NOCASE, id';

/** The notes of a notebook, or every note (`null`, "All notes"). */
export function notesIn(db: Db, folderId: string | null): Note[] {
  const where = folderId === null ? '' : 'WHERE parent_id = ?';
  const stmt = db.prepare(`SELECT ${NOTE_COLS} FROM notes ${where} ${LIST_ORDER}`);
  return (folderId === null ? stmt.all() : stmt.all(folderId)) as Note[];
}

/** Notes whose title or body holds the query (case-insensitive), in list order. */
export function searchNotes(db: Db, query: string): Note[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  return db.prepare(`SELECT ${NOTE_COLS} FROM notes WHERE instr(lower(title), ?) > 0 OR instr(lower(body), ?) > 0 ${LIST_ORDER}`)
    .all(q, q) as Note[];
}

export function note(db: Db, id: string): Note | undefined {
  return db.prepare(`SELECT ${NOTE_COLS} FROM notes WHERE id = ?`).get(id) as Note | undefined;
}

/** Ticks or unticks a to-do: `todo_completed` holds when it was completed, 0 when open (as Joplin stores it). */
export function setTodoCompleted(db: Db, id: string, done: boolean, now: number): void {
  db.prepare('UPDATE notes SET todo_completed = ?, updated_time = ?, user_updated_time = ? WHERE id = ?').run(done ? now : 0, now, now, id);
  db.prepare('UPDATE notes_normalized SET todo_completed = ?, user_updated_time = ? WHERE id = ?').run(done ? now : 0, now, id);
}

/** A Joplin id: 32 lowercase hex digits. */
export function newId(next: () => number): string {
  let s = '';
  while (s.length < 32) s += Math.floor(next() * 16).toString(16);
  return s;
}

export interface NewNote {
  folder: string;
  title: string;
  body: string;
  isTodo?: boolean;
  completed?: boolean;
}

/** Inserts notes (and their notebooks, by title, when missing) as AndroidWorld's seeding does: notes and notes_normalized. */
export function insertNotes(db: Db, notes: readonly NewNote[], time: number, next: () => number): void {
  const byTitle = new Map(folders(db).map((f) => [f.title, f.id]));
  const addFolder = db.prepare('INSERT INTO folders (id, title, created_time, updated_time, user_created_time, user_updated_time) VALUES (?, ?, ?, ?, ?, ?)');
  const addNote = db.prepare(`INSERT INTO notes (id, parent_id, title, body, created_time, updated_time, is_todo, todo_completed,
    user_created_time, user_updated_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const addNormalized = db.prepare(`INSERT INTO notes_normalized (id, parent_id, title, body, is_todo, todo_completed,
    user_created_time, user_updated_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`);
  db.transaction(() => {
    for (const n of notes) {
      let parent = byTitle.get(n.folder);
      if (!parent) {
        parent = newId(next);
        addFolder.run(parent, n.folder, time, time, time, time);
        byTitle.set(n.folder, parent);
      }
      const id = newId(next);
      const todo = n.isTodo ? 1 : 0;
      const done = n.isTodo && n.completed ? 1 : 0;
      addNote.run(id, parent, n.title, n.body, time, time, todo, done, time, time);
      addNormalized.run(id, parent, n.title.toLowerCase(), n.body, todo, done, time, time);
    }
  })();
}
