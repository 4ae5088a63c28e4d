import type { WritableDB } from '../db.js';

/**
 * What GRPO learned from each recorded rollout: its episode return (the shaped reward the group was normalised
 * over) and its advantage (the trajectory advantage; for step-level advantages, their mean over the episode's
 * steps). Both null until the iteration's advantages are computed (a run stopped mid-iteration), and null for a
 * rollout that was recorded before this version.
 *
 * The indexes on the steps' content columns let a retention setting drop the screenshots and trees of pruned
 * rollouts that no other step refers to (and the foreign-key check of that delete) without scanning every step.
 */
export function up(db: WritableDB): void {
  db.exec(`
    ALTER TABLE training_rollouts ADD COLUMN reward REAL;
    ALTER TABLE training_rollouts ADD COLUMN advantage REAL;
    CREATE INDEX steps_screenshot ON steps (screenshot) WHERE screenshot IS NOT NULL;
    CREATE INDEX steps_tree ON steps (tree) WHERE tree IS NOT NULL;
  `);
}
