import Database from 'better-sqlite3';
import type { FileSystem } from './fs.js';
import { dirname, normalizePath } from './fs.js';

export type Db = Database.Database;

interface Entry {
  db: Db;
  changes: Database.Statement;
}

/** What a snapshot keeps of one database: its bytes, and how to tell whether it changed since. */
export interface DbSnapshot {
  readonly bytes: Buffer;
  /** The connection and its change counters when the bytes were taken (or last restored). */
  conn: Db;
  totalChanges: number;
  schemaVersion: number;
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** Whether bytes are an SQLite database file (its 16-byte header string). */
export function isSqliteFile(bytes: Buffer): boolean {
  return bytes.length >= 100 && bytes.subarray(0, 16).equals(SQLITE_MAGIC);
}

/**
 * The device's SQLite databases, each at a filesystem path as on Android
 * (/data/data/<package>/databases/<name>.db), each an in-memory SQLite database so the real
 * `sqlite3` semantics apply to checkers. A snapshot serialises them; restoring skips the ones that
 * did not change since, which keeps a reset in a few milliseconds.
 */
export class DatabaseRegistry {
  private readonly open = new Map<string, Entry>();

  constructor(private readonly fs: FileSystem, private readonly clock: { now(): number }) {}

  private register(path: string, db: Db): Db {
    this.open.set(path, { db, changes: db.prepare('SELECT total_changes()').pluck() });
    if (this.fs.entries.get(path)?.type !== 'sqlite') {
      this.fs.mkdirp(dirname(path));
      this.fs.entries.set(path, { type: 'sqlite', mtime: this.clock.now() });
    }
    return db;
  }

  /** Creates (or replaces) a database at `path` with a schema. */
  create(path: string, schema: string): Db {
    const p = normalizePath(path);
    this.open.get(p)?.db.close();
    const db = new Database(':memory:');
    db.exec(schema);
    return this.register(p, db);
  }

  /** Replaces (or creates) the database at `path` from the bytes of an SQLite file. */
  load(path: string, bytes: Buffer): Db {
    const p = normalizePath(path);
    let file = bytes;
    if (file[18] === 2 || file[19] === 2) {
      // A WAL-mode file (Room's default) opens in memory only in rollback mode; the header says which.
      file = Buffer.from(bytes);
      file[18] = 1;
      file[19] = 1;
    }
    const db = new Database(file);
    this.open.get(p)?.db.close();
    return this.register(p, db);
  }

  get(path: string): Db | undefined {
    return this.open.get(normalizePath(path))?.db;
  }

  require(path: string): Db {
    const db = this.get(path);
    if (!db) throw new Error(`No database at ${normalizePath(path)}`);
    return db;
  }

  /** Opens a database like `sqlite3 <path>` does: an existing one, or a new empty one. */
  openOrCreate(path: string): Db {
    return this.get(path) ?? this.create(path, '');
  }

  has(path: string): boolean {
    return this.open.has(normalizePath(path));
  }

  remove(path: string): void {
    const p = normalizePath(path);
    this.open.get(p)?.db.close();
    this.open.delete(p);
    if (this.fs.entries.get(p)?.type === 'sqlite') this.fs.entries.delete(p);
  }

  paths(): string[] {
    return [...this.open.keys()].sort();
  }

  serialize(path: string): Buffer {
    return this.require(path).serialize();
  }

  private counters(e: Entry): { totalChanges: number; schemaVersion: number } {
    return {
      totalChanges: e.changes.get() as number,
      schemaVersion: e.db.pragma('schema_version', { simple: true }) as number,
    };
  }

  snapshot(): Map<string, DbSnapshot> {
    const out = new Map<string, DbSnapshot>();
    for (const [path, e] of this.open) out.set(path, { bytes: e.db.serialize(), conn: e.db, ...this.counters(e) });
    return out;
  }

  restore(snap: Map<string, DbSnapshot>): void {
    for (const path of [...this.open.keys()]) if (!snap.has(path)) this.remove(path);
    for (const [path, s] of snap) {
      const e = this.open.get(path);
      if (e && e.db === s.conn) {
        const c = this.counters(e);
        if (c.totalChanges === s.totalChanges && c.schemaVersion === s.schemaVersion) continue;
      }
      e?.db.close();
      const db = new Database(s.bytes);
      this.register(path, db);
      // The restored connection is now the reference: an untouched database is skipped next time.
      s.conn = db;
      const c = this.counters(this.open.get(path)!);
      s.totalChanges = c.totalChanges;
      s.schemaVersion = c.schemaVersion;
    }
  }

  closeAll(): void {
    for (const e of this.open.values()) e.db.close();
    this.open.clear();
  }
}
