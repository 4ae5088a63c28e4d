import type { WritableDB } from '../db.js';

/**
 * The checker's verdict with its reasons: the conditions it tested, each with what it expected and
 * what it found, as JSON (`{ ok, conditions: [{ name, ok, expected?, found? }] }`). Null for
 * episodes recorded before verdicts had reasons, and for those with no verdict (environment error).
 */
export function up(db: WritableDB): void {
  db.exec(`ALTER TABLE episodes ADD COLUMN verdict TEXT CHECK (verdict IS NULL OR json_valid(verdict));`);
}
