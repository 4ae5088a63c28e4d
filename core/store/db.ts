import { closeSync, openSync, readSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { migrate, schemaVersion, LATEST_VERSION } from './migrate.js';
import { StoreFileError, StoreNeedsMigrationError, StoreVersionFromFutureError } from './errors.js';
import { reapDeadRuns } from './runs.js';

/**
 * Branded connections (Signal's ReadableDB / WritableDB): a repository function that writes says
 * so in its signature, and a read-only handle cannot be passed to it. A WritableDB is also readable.
 */
export type ReadableDB = Database.Database & { readonly __readableDb: never };
export type WritableDB = ReadableDB & { readonly __writableDb: never };

/** How long a connection waits for another one's write lock before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

/**
 * Checkpoint the WAL into the database every 4,000 pages (16 MB) rather than SQLite's 1,000:
 * screenshots make the WAL grow fast, and each checkpoint ends in an fsync. Writing 4,000 steps of
 * distinct half-resolution frames ran at 3,200 steps/s with 1,000 and 3,800 with 4,000 (10,000 gained
 * nothing more).
 */
const WAL_AUTOCHECKPOINT_PAGES = 4000;

/**
 * Opens (creating if needed) a trajectory store at `path`, or an in-memory one for ':memory:', and
 * brings its schema up to date. WAL lets readers (the UI, a resume) run beside the writer; with WAL,
 * synchronous=NORMAL keeps every committed transaction through a process crash (only an OS crash or
 * power loss can drop the last few), at a fraction of FULL's fsync cost. Runs left 'running' by a
 * process that has died are marked 'interrupted' here (runs.ts reapDeadRuns).
 */
export function openStore(path: string): WritableDB {
  if (path !== ':memory:') checkStoreFile(path);
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    // Read before anything writes (journal_mode = WAL rewrites the header): damage SQLite sees here is refused untouched.
    readSchema(db, path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    db.pragma('foreign_keys = ON');
    const writable = brandWritable(db);
    migrate(writable, path);
    // A run whose process died is shown as what it is (interrupted, resumable), not as live.
    if (path !== ':memory:') reapDeadRuns(writable);
    return writable;
  } catch (e) {
    db.close();
    throw e;
  }
}

/** Opens an existing store read-only (a viewer, a poller beside a live writer); never migrates it. */
export function openStoreReadonly(path: string): ReadableDB {
  checkStoreFile(path);
  const db = new Database(path, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  try {
    readSchema(db, path);
    const found = schemaVersion(db);
    if (found > LATEST_VERSION) throw new StoreVersionFromFutureError(path, found, LATEST_VERSION);
    if (found < LATEST_VERSION) throw new StoreNeedsMigrationError(path, found, LATEST_VERSION);
    return brandReadable(db);
  } catch (e) {
    db.close();
    throw e;
  }
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const HEADER_BYTES = 100;

/**
 * Refuses, before SQLite opens it, a path that cannot be a store: a folder, or a file without SQLite's 16-byte header
 * string (sqlite.org/fileformat.html §1.3). A missing or empty file is a new store. A truncated database passes here:
 * SQLite itself refuses one whose header counts more pages than the file and its WAL hold (readSchema).
 */
function checkStoreFile(path: string): void {
  let st;
  try {
    st = statSync(path);
  } catch {
    return; // missing: SQLite creates it (or, read-only, reports it)
  }
  if (st.isDirectory()) throw new StoreFileError(path, 'is a folder, not a trajectory store');
  if (!st.isFile()) throw new StoreFileError(path, 'is not a regular file');
  if (st.size === 0) return;
  const head = Buffer.alloc(HEADER_BYTES);
  const fd = openSync(path, 'r');
  let got: number;
  try {
    got = readSync(fd, head, 0, HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  if (got < HEADER_BYTES || !head.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) {
    throw new StoreFileError(path, `is not an SQLite database (${st.size} bytes, no SQLite header)`);
  }
}

/** Reads the schema (every page of sqlite_master): a damaged or truncated database fails here, before any write. */
function readSchema(db: Database.Database, path: string): void {
  try {
    db.prepare('SELECT count(*) FROM sqlite_master').pluck().get();
  } catch (e) {
    const code = (e as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') throw new StoreFileError(path, `is damaged (${(e as Error).message})`);
    throw e;
  }
}

// The brands exist only in the type system; these two helpers are the only place they are applied.
function brandWritable(db: Database.Database): WritableDB {
  return db as WritableDB;
}

function brandReadable(db: Database.Database): ReadableDB {
  return db as ReadableDB;
}

const STATEMENTS = new WeakMap<Database.Database, Map<string, Database.Statement<any, any>>>();

/**
 * A prepared statement, compiled once per connection and reused: compiling costs more than running
 * the small statements the recorder issues per step. A statement's mode (`pluck`, `raw`) sticks to
 * its SQL text, so each SQL text is used in one mode only.
 */
export function prepare<P extends unknown[] | object = unknown[], R = unknown>(db: ReadableDB, sql: string): Database.Statement<P, R> {
  let cache = STATEMENTS.get(db);
  if (!cache) STATEMENTS.set(db, (cache = new Map()));
  let stmt = cache.get(sql);
  if (!stmt) cache.set(sql, (stmt = db.prepare(sql)));
  // The cache holds statements of every shape; the caller's type parameters describe this SQL.
  return stmt as Database.Statement<P, R>;
}

/** Runs `fn` in one transaction (BEGIN IMMEDIATE: it takes the write lock up front, so it waits rather than failing mid-way). */
export function inTransaction<T>(db: WritableDB, fn: () => T): T {
  return db.transaction(fn).immediate();
}

/** Runs several reads against one snapshot of the store (a live writer may commit in between otherwise). */
export function readConsistent<T>(db: ReadableDB, fn: () => T): T {
  return db.transaction(fn).deferred();
}
