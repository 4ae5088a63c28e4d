import { inTransaction, prepare, type ReadableDB, type WritableDB } from './db.js';
import { RunNotFoundError } from './errors.js';
import type { RunId } from './ids.js';

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
