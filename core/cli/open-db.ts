import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { openStore, type WritableDB } from '../store/index.js';
import { dbPath } from '../util/data-dir.js';

/** The CLI's store: `--db PATH`, else $AWB_DB, else <data folder>/trajectories.db (util/data-dir.ts), created if missing. */
export function openDb(flag: string | undefined): { db: WritableDB; path: string } {
  const path = dbPath(flag);
  mkdirSync(dirname(path), { recursive: true });
  return { db: openStore(path), path };
}
