import type { WritableDB } from '../db.js';

/**
 * ADMIRE's milestone memory (issue 7), per task template:
 *
 * - milestone_versions: every version of a template's milestone list (a JSON array of strings with
 *   <Placeholders>), numbered from 1; a refinement that changes the list adds the next version, so a
 *   run can say which milestones scored it and old versions stay inspectable.
 * - milestone_exemplars: the abstracted step descriptions of the successes the consensus distiller
 *   aligns (the newest few per template are kept).
 *
 * template_id is not a foreign key: memories can be distilled from episodes that were never recorded
 * (a training run without a store), so task_templates may not have the row.
 */
export function up(db: WritableDB): void {
  db.exec(`
    CREATE TABLE milestone_versions (
      template_id TEXT NOT NULL CHECK (length(template_id) > 0),
      version INTEGER NOT NULL CHECK (version >= 1),
      milestones TEXT NOT NULL,
      distiller TEXT NOT NULL CHECK (distiller IN ('consensus', 'llm')),
      successes INTEGER NOT NULL CHECK (successes >= 0),
      created_at INTEGER NOT NULL,
      PRIMARY KEY (template_id, version)
    ) STRICT;

    CREATE TABLE milestone_exemplars (
      id INTEGER PRIMARY KEY,
      template_id TEXT NOT NULL CHECK (length(template_id) > 0),
      descriptions TEXT NOT NULL,
      added_at INTEGER NOT NULL
    ) STRICT;
    CREATE INDEX milestone_exemplars_template ON milestone_exemplars (template_id, id);
  `);
}
