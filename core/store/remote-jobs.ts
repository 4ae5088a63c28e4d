import { inTransaction, prepare, type ReadableDB, type WritableDB } from './db.js';
import { fromJson } from './json.js';

/**
 * Remote trainer jobs (migration 0005): one row per submission, written before the job is posted
 * (status 'submitting') so its idempotency key survives a crash. `RemoteJobRow` is the only
 * translation between SQL and `RemoteJob`.
 */

export type RemoteJobLocalId = number & { readonly __brand: 'RemoteJobLocalId' };
export const asRemoteJobLocalId = (n: number | bigint): RemoteJobLocalId => Number(n) as RemoteJobLocalId;

export const REMOTE_JOB_STATUSES = ['submitting', 'queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type RemoteJobStatus = (typeof REMOTE_JOB_STATUSES)[number];

export interface DownloadedArtifact {
  name: string;
  path: string;
  sha256: string;
  size: number;
}

export interface RemoteJob {
  id: RemoteJobLocalId;
  trainer: string;
  /** The service's job id; null until the submission was answered. */
  remoteId: string | null;
  idempotencyKey: string;
  kind: string;
  name: string | null;
  status: RemoteJobStatus;
  datasetSha256: string;
  datasetSize: number;
  config: Record<string, unknown>;
  error: { code: string; message: string } | null;
  createdAt: number;
  finishedAt: number | null;
  lastSeq: number;
  artifacts: DownloadedArtifact[];
  policyPath: string | null;
}

export interface RemoteJobRow {
  id: number;
  trainer: string;
  remote_id: string | null;
  idempotency_key: string;
  kind: string;
  name: string | null;
  status: string;
  dataset_sha256: string;
  dataset_size: number;
  config: string;
  error: string | null;
  created_at: number;
  finished_at: number | null;
  last_seq: number;
  artifacts: string;
  policy_path: string | null;
}

export class RemoteJobStoreError extends Error {
  override name = 'RemoteJobStoreError';
  constructor(readonly id: number | string, reason: string) {
    super(`Remote job ${id}: ${reason}`);
  }
}

const isStatus = (s: string): s is RemoteJobStatus => (REMOTE_JOB_STATUSES as readonly string[]).includes(s);

export function rowToRemoteJob(r: RemoteJobRow): RemoteJob {
  if (!isStatus(r.status)) throw new RemoteJobStoreError(r.id, `unknown status ${JSON.stringify(r.status)}`);
  return {
    id: asRemoteJobLocalId(r.id), trainer: r.trainer, remoteId: r.remote_id, idempotencyKey: r.idempotency_key, kind: r.kind, name: r.name,
    status: r.status, datasetSha256: r.dataset_sha256, datasetSize: r.dataset_size, config: fromJson<Record<string, unknown>>(r.config),
    error: fromJson<RemoteJob['error']>(r.error), createdAt: r.created_at, finishedAt: r.finished_at, lastSeq: r.last_seq,
    artifacts: fromJson<DownloadedArtifact[]>(r.artifacts), policyPath: r.policy_path,
  };
}

export function remoteJobToRow(j: RemoteJob): RemoteJobRow {
  return {
    id: j.id, trainer: j.trainer, remote_id: j.remoteId, idempotency_key: j.idempotencyKey, kind: j.kind, name: j.name, status: j.status,
    dataset_sha256: j.datasetSha256, dataset_size: j.datasetSize, config: JSON.stringify(j.config), error: j.error ? JSON.stringify(j.error) : null,
    created_at: j.createdAt, finished_at: j.finishedAt, last_seq: j.lastSeq, artifacts: JSON.stringify(j.artifacts), policy_path: j.policyPath,
  };
}

export type NewRemoteJob = Pick<RemoteJob, 'trainer' | 'idempotencyKey' | 'kind' | 'name' | 'datasetSha256' | 'datasetSize' | 'config' | 'createdAt'>;

/** Records a submission about to be posted (status 'submitting'); returns the row. */
export function insertRemoteJob(db: WritableDB, j: NewRemoteJob): RemoteJob {
  const row = remoteJobToRow({ ...j, id: asRemoteJobLocalId(0), remoteId: null, status: 'submitting', error: null, finishedAt: null, lastSeq: 0, artifacts: [], policyPath: null });
  const info = prepare(db, `INSERT INTO remote_jobs (trainer, idempotency_key, kind, name, status, dataset_sha256, dataset_size, config, created_at)
    VALUES (@trainer, @idempotency_key, @kind, @name, @status, @dataset_sha256, @dataset_size, @config, @created_at)`).run(row);
  return getRemoteJob(db, asRemoteJobLocalId(info.lastInsertRowid))!;
}

export function getRemoteJob(db: ReadableDB, id: RemoteJobLocalId): RemoteJob | null {
  const r = prepare<[number], RemoteJobRow>(db, 'SELECT * FROM remote_jobs WHERE id = ?').get(id);
  return r ? rowToRemoteJob(r) : null;
}

export function getRemoteJobByRemoteId(db: ReadableDB, trainer: string, remoteId: string): RemoteJob | null {
  const r = prepare<[string, string], RemoteJobRow>(db, 'SELECT * FROM remote_jobs WHERE trainer = ? AND remote_id = ?').get(trainer, remoteId);
  return r ? rowToRemoteJob(r) : null;
}

/** Newest first; optionally one trainer's. */
export function listRemoteJobs(db: ReadableDB, opts: { trainer?: string; limit?: number } = {}): RemoteJob[] {
  const limit = opts.limit ?? 1000;
  const rows = opts.trainer === undefined
    ? prepare<[number], RemoteJobRow>(db, 'SELECT * FROM remote_jobs ORDER BY created_at DESC, id DESC LIMIT ?').all(limit)
    : prepare<[string, number], RemoteJobRow>(db, 'SELECT * FROM remote_jobs WHERE trainer = ? ORDER BY created_at DESC, id DESC LIMIT ?').all(opts.trainer, limit);
  return rows.map(rowToRemoteJob);
}

export type RemoteJobUpdate = Partial<Pick<RemoteJob, 'remoteId' | 'status' | 'error' | 'finishedAt' | 'lastSeq' | 'artifacts' | 'policyPath'>>;

/**
 * Updates some fields. `lastSeq` only grows (an older reader's update cannot rewind a follow), and a
 * finished status is not replaced by an earlier one.
 */
export function updateRemoteJob(db: WritableDB, id: RemoteJobLocalId, u: RemoteJobUpdate): RemoteJob {
  return inTransaction(db, () => {
    const cur = getRemoteJob(db, id);
    if (!cur) throw new RemoteJobStoreError(id, 'not found');
    const finished = (s: RemoteJobStatus) => s === 'succeeded' || s === 'failed' || s === 'cancelled';
    const next: RemoteJob = {
      ...cur,
      ...u,
      status: u.status && !(finished(cur.status) && !finished(u.status)) ? u.status : cur.status,
      lastSeq: Math.max(cur.lastSeq, u.lastSeq ?? 0),
    };
    if (cur.remoteId !== null && u.remoteId !== undefined && u.remoteId !== cur.remoteId) {
      throw new RemoteJobStoreError(id, `already has remote id ${cur.remoteId}, got ${u.remoteId}`);
    }
    const row = remoteJobToRow(next);
    prepare(db, `UPDATE remote_jobs SET remote_id = @remote_id, status = @status, error = @error, finished_at = @finished_at,
      last_seq = @last_seq, artifacts = @artifacts, policy_path = @policy_path WHERE id = @id`).run(row);
    return next;
  });
}

/** Forgets a record (the remote job is untouched). */
export function deleteRemoteJob(db: WritableDB, id: RemoteJobLocalId): boolean {
  return prepare(db, 'DELETE FROM remote_jobs WHERE id = ?').run(id).changes > 0;
}
