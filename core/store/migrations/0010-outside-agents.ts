import type { WritableDB } from '../db.js';

/** The kinds a version-9 runs table allows, as its CHECK constraint spells them. */
const OLD_KINDS = `kind IN ('suite', 'single', 'training', 'import')`;
const NEW_KINDS = `kind IN ('suite', 'single', 'training', 'import', 'env')`;

/** A migration that found the schema other than this code expects it (a hand-edited store): nothing is changed. */
export class SchemaShapeError extends Error {
  override name = 'SchemaShapeError';
  constructor(readonly table: string, readonly expected: string) {
    super(`The store's ${table} table is not as schema version 9 wrote it (expected ${JSON.stringify(expected)} in its definition); it was not migrated`);
  }
}

/**
 * Episodes of outside agents (docs/env-protocol.md): runs of kind 'env', and per step what the agent attached — the
 * request it sent its model (`prompt`: text, or the chat messages as JSON) and the model's reply (`reply`) — for the
 * replay view and for training on what the model really said.
 *
 * The new run kind widens the runs table's CHECK constraint. SQLite cannot alter a constraint, and rebuilding the table
 * is not possible here: foreign keys stay on inside the migrations' one transaction, and dropping the old table would
 * orphan every episode. So the stored definition is edited in place, the procedure SQLite documents for changes that
 * do not touch the stored format (https://www.sqlite.org/lang_altertable.html, "Making Other Kinds Of Table Schema
 * Changes"): a wider IN list accepts every row the old one did. The schema version is bumped so every connection
 * re-reads the definition, and the edit must match exactly once or nothing changes.
 */
export function up(db: WritableDB): void {
  const row = db.prepare(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'runs'`).get() as { sql: string } | undefined;
  if (!row || row.sql.split(OLD_KINDS).length !== 2) throw new SchemaShapeError('runs', OLD_KINDS);
  const version = db.pragma('schema_version', { simple: true }) as number;
  // better-sqlite3 opens connections in SQLite's defensive mode, which forbids writing the schema table.
  db.unsafeMode(true);
  try {
    db.pragma('writable_schema = ON');
    db.prepare(`UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = 'runs'`).run(row.sql.replace(OLD_KINDS, NEW_KINDS));
    db.pragma(`schema_version = ${version + 1}`);
  } finally {
    db.pragma('writable_schema = OFF');
    db.unsafeMode(false);
  }
  db.exec(`
    ALTER TABLE steps ADD COLUMN prompt TEXT;
    ALTER TABLE steps ADD COLUMN reply TEXT;
  `);
}
