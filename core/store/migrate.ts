import type Database from 'better-sqlite3';
import type { WritableDB } from './db.js';
import { MigrationListError, StoreVersionFromFutureError } from './errors.js';
import { MIGRATIONS, type Migration } from './migrations/index.js';

export const LATEST_VERSION = MIGRATIONS.length;

export function schemaVersion(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/** Versions must run 1, 2, 3, … in order: a gap or a duplicate would skip or repeat a schema change. */
export function checkMigrationList(list: readonly Pick<Migration, 'version'>[]): void {
  if (list.some((m, i) => m.version !== i + 1)) throw new MigrationListError(list.map((m) => m.version));
}

/**
 * Applies the pending migrations up to `target` in one transaction, setting `user_version` after
 * each, so a store is either at its old version or at the target, never between. Refuses a store
 * written by a newer build: its tables may mean something this code does not know.
 *
 * Migrations that rebuild a table must not rely on turning foreign keys off: that pragma is a no-op
 * inside a transaction. Copy the rows in an order the constraints accept instead.
 */
export function migrate(db: WritableDB, path: string, target: number = LATEST_VERSION, list: readonly Migration[] = MIGRATIONS): number {
  checkMigrationList(list);
  const found = schemaVersion(db);
  if (found > list.length) throw new StoreVersionFromFutureError(path, found, list.length);
  if (found >= target) return found;
  db.transaction(() => {
    for (const m of list.slice(found, target)) {
      m.up(db);
      db.pragma(`user_version = ${m.version}`);
    }
  }).immediate();
  return target;
}
