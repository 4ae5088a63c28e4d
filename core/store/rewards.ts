import { inTransaction, prepare, type WritableDB } from './db.js';
import { EpisodeNotFoundError, RewardValueError, StepNotFoundError } from './errors.js';
import type { EpisodeId } from './ids.js';

/** The reward the recorder writes on an episode's last step: 1 if the checker said success, else 0. */
export const OUTCOME_REWARD = 'outcome';

export interface StepReward {
  step: number;
  value: number;
  explanation: string;
}

/**
 * Replaces the rewards of one kind for an episode (a reward model recomputed, say). Values must be
 * finite: a reward that cannot be scored is left out, not stored as NaN.
 */
export function putRewards(db: WritableDB, episodeId: EpisodeId, kind: string, rewards: readonly StepReward[]): void {
  inTransaction(db, () => {
    if (!prepare(db, 'SELECT 1 FROM episodes WHERE id = ?').get(episodeId)) throw new EpisodeNotFoundError(episodeId);
    const steps = new Set(prepare<[number], number>(db, 'SELECT idx FROM steps WHERE episode_id = ?').pluck().all(episodeId));
    for (const r of rewards) {
      if (typeof r.value !== 'number' || !Number.isFinite(r.value)) throw new RewardValueError(episodeId, kind, r.step, r.value);
      if (!steps.has(r.step)) throw new StepNotFoundError(episodeId, r.step);
    }
    prepare(db, 'DELETE FROM step_rewards WHERE episode_id = ? AND kind = ?').run(episodeId, kind);
    for (const r of rewards) writeReward(db, episodeId, r.step, kind, r.value, r.explanation);
  });
}

/** One reward row, replacing any of the same kind on that step; callers have validated it. */
export function writeReward(db: WritableDB, episodeId: EpisodeId, step: number, kind: string, value: number, explanation: string): void {
  prepare(db, 'INSERT OR REPLACE INTO step_rewards (episode_id, step_idx, kind, value, explanation) VALUES (?, ?, ?, ?, ?)')
    .run(episodeId, step, kind, value, explanation);
}
