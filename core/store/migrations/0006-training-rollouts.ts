import type { WritableDB } from '../db.js';

/**
 * Which GRPO iteration, group and rollout a recorded training rollout belongs to (`awb train grpo
 * --record-episodes`). A resumed run redoes the iterations after its last checkpoint; it deletes their recorded
 * rollouts first (episodes cascade), as it replaces their metrics, so no iteration's rollouts are stored twice.
 */
export function up(db: WritableDB): void {
  db.exec(`
    CREATE TABLE training_rollouts (
      episode_id INTEGER PRIMARY KEY NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
      iteration INTEGER NOT NULL CHECK (iteration >= 1),
      group_index INTEGER NOT NULL CHECK (group_index >= 0),
      rollout_index INTEGER NOT NULL CHECK (rollout_index >= 0)
    ) STRICT;
    CREATE INDEX training_rollouts_iteration ON training_rollouts (iteration);
  `);
}
