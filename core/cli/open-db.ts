import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { openStore, type WritableDB } from '../store/index.js';
import { dbPath } from '../util/data-dir.js';
import { UsageError } from './args.js';

let lastPath: string | null = null;

/** `--db PATH` as given: an empty one is a mistake (a shell variable that was not set), not the default store. */
export function storePathArg(flag: string | undefined): string {
  if (flag !== undefined && flag.trim() === '') throw new UsageError('--db needs a path (it was given an empty one); leave --db out for $AWB_DB or the data folder\'s store');
  return dbPath(flag);
}

/** The CLI's store: `--db PATH`, else $AWB_DB, else <data folder>/trajectories.db (util/data-dir.ts), created if missing. */
export function openDb(flag: string | undefined): { db: WritableDB; path: string } {
  const path = storePathArg(flag);
  lastPath = path;
  mkdirSync(dirname(path), { recursive: true });
  return { db: openStore(path), path };
}

/** The store this command opened last, for naming it in an error the store's driver reports without a path. */
export function lastStorePath(): string | null {
  return lastPath;
}
