import { prepare, inTransaction, type ReadableDB, type WritableDB } from './db.js';
import { EpisodeNotFoundError, StepNotFoundError } from './errors.js';
import type { EpisodeId } from './ids.js';
import { fromJson } from './json.js';
import { putRewards } from './rewards.js';

/**
 * Reward values that may be unscored, and SimDroid's ground-truth subgoal progress (migration 0003).
 * A reward component's null for a step ("the judge endpoint timed out") is not a number, so it cannot
 * live in step_rewards (finite REALs): its reason goes to step_reward_unscored instead, and the
 * replay viewer reads it as `StoredStep.unscored[kind]`.
 */

export interface MaybeStepReward {
  step: number;
  /** null: the step could not be scored; `explanation` says why. */
  value: number | null;
  explanation: string;
}

/** An unscored step without a reason would look like a silent gap in the viewer. */
export class UnscoredReasonError extends Error {
  override name = 'UnscoredReasonError';
  constructor(readonly episodeId: EpisodeId, readonly kind: string, readonly step: number) {
    super(`Reward ${JSON.stringify(kind)} for episode ${episodeId} step ${step} is unscored without a reason`);
  }
}

/**
 * Replaces every value of one kind for an episode: numbers through putRewards (step_rewards), nulls
 * as reasons in step_reward_unscored. One transaction, so a reader never sees half of a recompute.
 */
export function putRewardValues(db: WritableDB, episodeId: EpisodeId, kind: string, values: readonly MaybeStepReward[]): void {
  inTransaction(db, () => {
    const scored = values.filter((v): v is MaybeStepReward & { value: number } => v.value !== null);
    putRewards(db, episodeId, kind, scored);
    const steps = new Set(prepare<[number], number>(db, 'SELECT idx FROM steps WHERE episode_id = ?').pluck().all(episodeId));
    prepare(db, 'DELETE FROM step_reward_unscored WHERE episode_id = ? AND kind = ?').run(episodeId, kind);
    for (const v of values) {
      if (v.value !== null) continue;
      if (!steps.has(v.step)) throw new StepNotFoundError(episodeId, v.step);
      if (!v.explanation.trim()) throw new UnscoredReasonError(episodeId, kind, v.step);
      prepare(db, 'INSERT INTO step_reward_unscored (episode_id, step_idx, kind, reason) VALUES (?, ?, ?, ?)').run(episodeId, v.step, kind, v.explanation);
    }
  });
}

/** Why each unscored (step, kind) of an episode was not scored: step → kind → reason. */
export function loadUnscored(db: ReadableDB, episodeId: EpisodeId): Map<number, Record<string, string>> {
  const byStep = new Map<number, Record<string, string>>();
  for (const r of prepare<[number], { step_idx: number; kind: string; reason: string }>(
    db, 'SELECT step_idx, kind, reason FROM step_reward_unscored WHERE episode_id = ? ORDER BY step_idx, kind',
  ).all(episodeId)) {
    let k = byStep.get(r.step_idx);
    if (!k) byStep.set(r.step_idx, (k = {}));
    k[r.kind] = r.reason;
  }
  return byStep;
}

/** The template's ordered subgoals and, per step, how many were done after it (non-decreasing). */
export interface SubgoalProgress {
  names: string[];
  done: number[];
}

export class SubgoalProgressError extends Error {
  override name = 'SubgoalProgressError';
  constructor(readonly episodeId: EpisodeId, message: string, readonly got: unknown) {
    super(`Subgoal progress for episode ${episodeId}: ${message} (got ${JSON.stringify(got)})`);
  }
}

/** Checks progress against the episode's stored steps; throws SubgoalProgressError. */
function checkProgress(db: ReadableDB, episodeId: EpisodeId, p: SubgoalProgress): void {
  const steps = prepare<[number], number>(db, 'SELECT count(*) FROM steps WHERE episode_id = ?').pluck().get(episodeId)!;
  if (p.done.length !== steps) throw new SubgoalProgressError(episodeId, `expected one count per stored step (${steps})`, p.done.length);
  p.done.forEach((d, i) => {
    if (!Number.isInteger(d) || d < 0 || d > p.names.length) throw new SubgoalProgressError(episodeId, `step ${i} count must be an integer in 0..${p.names.length}`, d);
    if (i > 0 && d < p.done[i - 1]!) throw new SubgoalProgressError(episodeId, `step ${i} count decreases`, p.done.slice(0, i + 1));
  });
}

/** Stores (replaces) an episode's ground-truth subgoal progress. */
export function putSubgoalProgress(db: WritableDB, episodeId: EpisodeId, p: SubgoalProgress): void {
  inTransaction(db, () => {
    if (!prepare(db, 'SELECT 1 FROM episodes WHERE id = ?').get(episodeId)) throw new EpisodeNotFoundError(episodeId);
    checkProgress(db, episodeId, p);
    prepare(db, 'INSERT OR REPLACE INTO episode_subgoals (episode_id, names, done) VALUES (?, ?, ?)')
      .run(episodeId, JSON.stringify(p.names), JSON.stringify(p.done));
  });
}

/** The episode's captured subgoal progress, or null when none was captured (a real device, an old recording). */
export function getSubgoalProgress(db: ReadableDB, episodeId: EpisodeId): SubgoalProgress | null {
  const r = prepare<[number], { names: string; done: string }>(db, 'SELECT names, done FROM episode_subgoals WHERE episode_id = ?').get(episodeId);
  return r ? { names: fromJson<string[]>(r.names), done: fromJson<number[]>(r.done) } : null;
}
