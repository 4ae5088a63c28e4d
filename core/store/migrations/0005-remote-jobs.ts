import type { WritableDB } from '../db.js';

/**
 * Jobs submitted to remote trainer services (issue 8, core/remote-jobs). A row is written with the
 * client-generated idempotency key BEFORE the job is posted (status 'submitting', no remote id), so
 * a retry after a crash or a dropped connection posts the same key and the service answers with the
 * job it already has: a network drop never duplicates a job.
 *
 * - trainer: the profile name (its URL and token live in <dataDir>/trainers.json, never here).
 * - artifacts: JSON array of the downloaded files ({ name, path, sha256, size }).
 * - policy_path: where a downloaded builtin policy was registered (<dataDir>/policies/<id>.json).
 * - last_seq: the last event seq the workbench has seen (a follow resumes after it).
 */
export function up(db: WritableDB): void {
  db.exec(`
    CREATE TABLE remote_jobs (
      id INTEGER PRIMARY KEY,
      trainer TEXT NOT NULL CHECK (length(trainer) > 0),
      remote_id TEXT,
      idempotency_key TEXT NOT NULL UNIQUE CHECK (length(idempotency_key) > 0),
      kind TEXT NOT NULL CHECK (length(kind) > 0),
      name TEXT,
      status TEXT NOT NULL CHECK (status IN ('submitting', 'queued', 'running', 'succeeded', 'failed', 'cancelled')),
      dataset_sha256 TEXT NOT NULL CHECK (length(dataset_sha256) = 64),
      dataset_size INTEGER NOT NULL CHECK (dataset_size >= 0),
      config TEXT NOT NULL,
      error TEXT,
      created_at INTEGER NOT NULL,
      finished_at INTEGER,
      last_seq INTEGER NOT NULL DEFAULT 0 CHECK (last_seq >= 0),
      artifacts TEXT NOT NULL DEFAULT '[]',
      policy_path TEXT,
      UNIQUE (trainer, remote_id)
    ) STRICT;
    CREATE INDEX remote_jobs_created ON remote_jobs (created_at DESC, id DESC);
  `);
}
