import { describe, expect, it } from 'vitest';
import { openStore } from '../../core/store/db.js';
import { createRun } from '../../core/store/runs.js';
import { RunNotFoundError } from '../../core/store/errors.js';
import { asRunId } from '../../core/store/ids.js';
import { listIterationMetrics, MetricValueError, metricSeries, putIterationMetrics } from '../../core/store/training.js';

describe('training metrics', () => {
  it('stores one row per iteration and metric, read back per iteration and as a series', () => {
    const db = openStore(':memory:');
    const run = createRun(db, { kind: 'training', name: 'grpo' });
    putIterationMetrics(db, run.id, 1, { 'reward/mean': 0.25, 'loss/policy': -0.1 });
    putIterationMetrics(db, run.id, 2, { 'reward/mean': 0.5, 'loss/policy': -0.2 });
    expect(listIterationMetrics(db, run.id)).toEqual([
      { iteration: 1, metrics: { 'reward/mean': 0.25, 'loss/policy': -0.1 } },
      { iteration: 2, metrics: { 'reward/mean': 0.5, 'loss/policy': -0.2 } },
    ]);
    expect(metricSeries(db, run.id, 'reward/mean')).toEqual([[1, 0.25], [2, 0.5]]);
    db.close();
  });

  it('replaces an iteration written again (a resumed run repeating it)', () => {
    const db = openStore(':memory:');
    const run = createRun(db, { kind: 'training', name: 'grpo' });
    putIterationMetrics(db, run.id, 1, { 'reward/mean': 0.25, 'adv/std': 1 });
    putIterationMetrics(db, run.id, 1, { 'reward/mean': 0.75 });
    expect(listIterationMetrics(db, run.id)).toEqual([{ iteration: 1, metrics: { 'reward/mean': 0.75 } }]);
    db.close();
  });

  it('refuses non-finite values and unknown runs, writing nothing', () => {
    const db = openStore(':memory:');
    const run = createRun(db, { kind: 'training', name: 'grpo' });
    expect(() => putIterationMetrics(db, run.id, 1, { 'reward/mean': 0.5, 'loss/policy': Number.NaN })).toThrow(MetricValueError);
    expect(listIterationMetrics(db, run.id)).toEqual([]);
    expect(() => putIterationMetrics(db, asRunId(999), 1, { 'reward/mean': 0.5 })).toThrow(RunNotFoundError);
    db.close();
  });

  it('is a STRICT table whose run_id is a NOT NULL foreign key, iterations ≥ 1', () => {
    const db = openStore(':memory:');
    expect(db.prepare(`SELECT strict FROM pragma_table_list WHERE name = 'training_metrics'`).pluck().get()).toBe(1);
    expect(db.prepare(`SELECT "notnull" FROM pragma_table_info('training_metrics') WHERE name = 'run_id'`).pluck().get()).toBe(1);
    expect(db.prepare(`SELECT "table" FROM pragma_foreign_key_list('training_metrics')`).pluck().get()).toBe('runs');
    expect(() => db.prepare(`INSERT INTO training_metrics (run_id, iteration, name, value) VALUES (99, 1, 'x', 1)`).run()).toThrow(/FOREIGN KEY/);
    const run = createRun(db, { kind: 'training', name: 'grpo' });
    expect(() => db.prepare(`INSERT INTO training_metrics (run_id, iteration, name, value) VALUES (?, 0, 'x', 1)`).run(run.id)).toThrow(/CHECK/);
    expect(() => db.prepare(`INSERT INTO training_metrics (run_id, iteration, name, value) VALUES (?, 1, 'x', 'high')`).run(run.id)).toThrow();
    db.close();
  });

  it('migrates a version-1 store to version 2 keeping its runs', async () => {
    const Database = (await import('better-sqlite3')).default;
    const { migrate, schemaVersion } = await import('../../core/store/migrate.js');
    const raw = new Database(':memory:') as Parameters<typeof migrate>[0];
    migrate(raw, ':memory:', 1);
    raw.prepare(`INSERT INTO runs (uid, kind, name, status, created_at) VALUES ('u', 'training', 'old', 'running', 0)`).run();
    expect(raw.prepare(`SELECT count(*) FROM pragma_table_list WHERE name = 'training_metrics'`).pluck().get()).toBe(0);
    expect(migrate(raw, ':memory:', 2)).toBe(2);
    expect(schemaVersion(raw)).toBe(2);
    raw.prepare(`INSERT INTO training_metrics (run_id, iteration, name, value) VALUES (1, 1, 'reward/mean', 0.5)`).run();
    expect(raw.prepare('SELECT name FROM runs').pluck().all()).toEqual(['old']);
    raw.close();
  });
});
