import type { WritableDB } from '../db.js';

/**
 * What the reward framework (issue 7) keeps beside step_rewards:
 *
 * - step_reward_unscored: a component that could not score a step (a judge endpoint down, an episode
 *   without a verdict) leaves its value out of step_rewards, whose value is a finite REAL, and records
 *   why here, so the replay viewer can say "unscored: …" instead of showing nothing or a silent 0.
 *   A (step, kind) is in at most one of the two tables (putRewardValues keeps that true).
 * - episode_subgoals: SimDroid's ground-truth subgoal progress captured while the episode ran (the
 *   template's ordered subgoal names, and for each step how many were done after it), so rewards can
 *   be recomputed and milestone/progress matching checked later without the device.
 */
export function up(db: WritableDB): void {
  db.exec(`
    CREATE TABLE step_reward_unscored (
      episode_id INTEGER NOT NULL,
      step_idx INTEGER NOT NULL,
      kind TEXT NOT NULL,
      reason TEXT NOT NULL CHECK (length(reason) > 0),
      PRIMARY KEY (episode_id, step_idx, kind),
      FOREIGN KEY (episode_id, step_idx) REFERENCES steps (episode_id, idx) ON DELETE CASCADE
    ) STRICT, WITHOUT ROWID;

    -- names, done: JSON arrays (strings; non-decreasing integers, one per step).
    CREATE TABLE episode_subgoals (
      episode_id INTEGER PRIMARY KEY NOT NULL REFERENCES episodes (id) ON DELETE CASCADE,
      names TEXT NOT NULL,
      done TEXT NOT NULL
    ) STRICT;
  `);
}
