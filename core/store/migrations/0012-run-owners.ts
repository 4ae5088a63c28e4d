import type { WritableDB } from '../db.js';

/**
 * Which process records a run (`{ pid, host, start }` as JSON, core/util/process-owner.ts), so that a resume refuses a
 * run another live process is recording, and a run whose process died is seen as dead, not live. NULL for runs
 * recorded before this version and for runs that are not running.
 */
export function up(db: WritableDB): void {
  db.exec(`ALTER TABLE runs ADD COLUMN owner TEXT CHECK (owner IS NULL OR json_valid(owner));`);
}
