import type { WritableDB } from '../db.js';

/**
 * Per-iteration training metrics ('reward/mean', 'loss/policy', …) of a 'training' run: one row per
 * (run, iteration, metric name). A resumed run that repeats an iteration overwrites its rows, so the
 * key is unique. Values are finite REALs (a NaN stops training before it is written).
 */
export function up(db: WritableDB): void {
  db.exec(`
    CREATE TABLE training_metrics (
      run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
      iteration INTEGER NOT NULL CHECK (iteration >= 1),
      name TEXT NOT NULL CHECK (length(name) > 0),
      value REAL NOT NULL,
      PRIMARY KEY (run_id, iteration, name)
    ) STRICT;
  `);
}
