import { inTransaction, prepare, type ReadableDB, type WritableDB } from './db.js';
import { RunNotFoundError } from './errors.js';
import type { EpisodeId, RunId } from './ids.js';

/** One iteration's metrics of a training run, by name ('reward/mean', 'loss/policy', …). */
export interface IterationMetricsRow {
  iteration: number;
  metrics: Record<string, number>;
}

export class MetricValueError extends Error {
  override name = 'MetricValueError';
  constructor(readonly runId: RunId, readonly iteration: number, readonly metric: string, readonly value: unknown) {
    super(`Training metric ${metric} of run ${runId}, iteration ${iteration}, must be a finite number, got ${String(value)}`);
  }
}

/**
 * Writes one iteration's metrics (replacing the rows of that iteration: a resumed run may repeat
 * iterations past its last checkpoint). All values must be finite and the iteration ≥ 1; nothing is
 * written otherwise.
 */
export function putIterationMetrics(db: WritableDB, runId: RunId, iteration: number, metrics: Readonly<Record<string, number>>): void {
  inTransaction(db, () => {
    if (!prepare(db, 'SELECT 1 FROM runs WHERE id = ?').get(runId)) throw new RunNotFoundError(runId);
    for (const [name, value] of Object.entries(metrics)) {
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new MetricValueError(runId, iteration, name, value);
    }
    prepare(db, 'DELETE FROM training_metrics WHERE run_id = ? AND iteration = ?').run(runId, iteration);
    const insert = prepare(db, 'INSERT INTO training_metrics (run_id, iteration, name, value) VALUES (?, ?, ?, ?)');
    for (const [name, value] of Object.entries(metrics)) insert.run(runId, iteration, name, value);
  });
}

/** A run's metrics, one entry per iteration in order (metric names in insertion order). */
export function listIterationMetrics(db: ReadableDB, runId: RunId): IterationMetricsRow[] {
  const rows = prepare<[number], { iteration: number; name: string; value: number }>(
    db, 'SELECT iteration, name, value FROM training_metrics WHERE run_id = ? ORDER BY iteration, rowid',
  ).all(runId);
  const out: IterationMetricsRow[] = [];
  for (const r of rows) {
    let last = out.at(-1);
    if (!last || last.iteration !== r.iteration) out.push((last = { iteration: r.iteration, metrics: {} }));
    last.metrics[r.name] = r.value;
  }
  return out;
}

/** One metric's series over a run: [iteration, value] pairs in order (for charts). */
export function metricSeries(db: ReadableDB, runId: RunId, name: string): Array<[number, number]> {
  return prepare<[number, string], { iteration: number; value: number }>(
    db, 'SELECT iteration, value FROM training_metrics WHERE run_id = ? AND name = ? ORDER BY iteration',
  ).all(runId, name).map((r) => [r.iteration, r.value]);
}

/**
 * Deletes the recorded rollouts (training_rollouts, their episodes and everything that cascades from them) of a
 * training run's iterations after `completed`: a resumed run redoes those iterations and records them again.
 * Returns how many episodes went.
 */
export function deleteRolloutsAfter(db: WritableDB, runId: RunId, completed: number): number {
  return prepare(db, `DELETE FROM episodes WHERE id IN (
    SELECT r.episode_id FROM training_rollouts r JOIN episodes e ON e.id = r.episode_id WHERE e.run_id = ? AND r.iteration > ?)`).run(runId, completed).changes;
}

/** What GRPO learned from one recorded rollout: its episode return and its advantage. */
export interface RolloutScore {
  episodeId: EpisodeId;
  reward: number;
  advantage: number;
}

/** Writes the scores of an iteration's recorded rollouts (after its advantages are computed), in one transaction. */
export function putRolloutScores(db: WritableDB, scores: readonly RolloutScore[]): void {
  inTransaction(db, () => {
    const update = prepare(db, 'UPDATE training_rollouts SET reward = ?, advantage = ? WHERE episode_id = ?');
    for (const s of scores) {
      // NaN (an unscorable rollout) is stored as unknown, not as a number.
      update.run(Number.isFinite(s.reward) ? s.reward : null, Number.isFinite(s.advantage) ? s.advantage : null, s.episodeId);
    }
  });
}

/** How the recorded rollouts of a long run are thinned (TrainConfig `recording`). */
export interface RolloutRetention {
  /** Keep every rollout of each k-th iteration (and of the last); of the others, only successes (or none). */
  keepEvery: number;
  keepSuccesses: boolean;
}

/** Whether an iteration's rollouts are kept whole under a retention setting. */
export function keepsIteration(r: RolloutRetention, iteration: number, lastIteration: number): boolean {
  return iteration % r.keepEvery === 0 || iteration === lastIteration;
}

/**
 * Deletes the recorded rollouts of one iteration that a retention setting does not keep (all but successes, or all),
 * with the screenshots and trees no other step or episode refers to. Returns how many episodes went.
 */
export function pruneIterationRollouts(db: WritableDB, runId: RunId, iteration: number, keepSuccesses: boolean): number {
  return inTransaction(db, () => {
    const ids = prepare<[number, number], number>(db, `SELECT r.episode_id FROM training_rollouts r JOIN episodes e ON e.id = r.episode_id
      WHERE e.run_id = ? AND r.iteration = ?${keepSuccesses ? ` AND e.status != 'success'` : ''}`).pluck().all(runId, iteration);
    if (!ids.length) return 0;
    const list = ids.join(', ');
    const shots = prepare<[], string>(db, `SELECT screenshot FROM steps WHERE episode_id IN (${list}) AND screenshot IS NOT NULL
      UNION SELECT final_screenshot FROM episodes WHERE id IN (${list}) AND final_screenshot IS NOT NULL`).pluck().all();
    const trees = prepare<[], string>(db, `SELECT tree FROM steps WHERE episode_id IN (${list}) AND tree IS NOT NULL
      UNION SELECT final_tree FROM episodes WHERE id IN (${list}) AND final_tree IS NOT NULL`).pluck().all();
    const n = prepare(db, `DELETE FROM episodes WHERE id IN (${list})`).run().changes;
    const dropShot = prepare(db, `DELETE FROM screenshots WHERE sha256 = ? AND NOT EXISTS (SELECT 1 FROM steps WHERE screenshot = ?)
      AND NOT EXISTS (SELECT 1 FROM episodes WHERE final_screenshot = ?)`);
    for (const s of shots) dropShot.run(s, s, s);
    const dropTree = prepare(db, `DELETE FROM ui_trees WHERE sha256 = ? AND NOT EXISTS (SELECT 1 FROM steps WHERE tree = ?)
      AND NOT EXISTS (SELECT 1 FROM episodes WHERE final_tree = ?)`);
    for (const t of trees) dropTree.run(t, t, t);
    return n;
  });
}

/** The iterations of a run that have recorded rollouts, with how many each (the Trajectories view's iteration filter). */
export function rolloutIterations(db: ReadableDB, runId: RunId): Array<{ iteration: number; episodes: number }> {
  return prepare<[number], { iteration: number; episodes: number }>(db, `SELECT r.iteration, count(*) AS episodes FROM training_rollouts r
    JOIN episodes e ON e.id = r.episode_id WHERE e.run_id = ? GROUP BY r.iteration ORDER BY r.iteration`).all(runId);
}
