import { randomUUID } from 'node:crypto';
import { inTransaction, prepare, type ReadableDB, type WritableDB } from './db.js';
import { RunNotFoundError } from './errors.js';
import { asEpisodeId, asRunId, type EpisodeId, type RunId } from './ids.js';
import { fromJson } from './json.js';
import { emptyStatusCounts, type StatusCounts, type StoredEpisodeStatus } from './statuses.js';

export const RUN_KINDS = ['suite', 'single', 'training', 'import', 'env'] as const;
export type RunKind = (typeof RUN_KINDS)[number];
export const RUN_STATUSES = ['running', 'finished', 'interrupted'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** How a run was started (split, part, policy, parallelism …), as JSON. */
export type RunConfig = Record<string, unknown>;

export interface Run {
  id: RunId;
  uid: string;
  kind: RunKind;
  name: string;
  config: RunConfig;
  status: RunStatus;
  createdAt: number;
  finishedAt: number | null;
}

export interface RunSummary extends Run {
  episodes: number;
  counts: StatusCounts;
}

interface RunRow {
  id: number;
  uid: string;
  kind: RunKind;
  name: string;
  config: string;
  status: RunStatus;
  created_at: number;
  finished_at: number | null;
}

function rowToRun(r: RunRow): Run {
  return {
    id: asRunId(r.id), uid: r.uid, kind: r.kind, name: r.name, config: fromJson<RunConfig>(r.config), status: r.status,
    createdAt: r.created_at, finishedAt: r.finished_at,
  };
}

export interface NewRun {
  kind: RunKind;
  name: string;
  config?: RunConfig;
  /** Default: a fresh UUID. */
  uid?: string;
  createdAt?: number;
}

export function createRun(db: WritableDB, run: NewRun): Run {
  const uid = run.uid ?? randomUUID();
  const createdAt = run.createdAt ?? Date.now();
  const id = prepare(db, `INSERT INTO runs (uid, kind, name, config, status, created_at) VALUES (?, ?, ?, ?, 'running', ?)`)
    .run(uid, run.kind, run.name, JSON.stringify(run.config ?? {}), createdAt).lastInsertRowid;
  return getRun(db, asRunId(id));
}

export function getRun(db: ReadableDB, id: RunId): Run {
  const row = prepare<[number], RunRow>(db, 'SELECT * FROM runs WHERE id = ?').get(id);
  if (!row) throw new RunNotFoundError(id);
  return rowToRun(row);
}

export function finishRun(db: WritableDB, id: RunId, status: Exclude<RunStatus, 'running'> = 'finished', at = Date.now()): void {
  const r = prepare(db, 'UPDATE runs SET status = ?, finished_at = ? WHERE id = ?').run(status, at, id);
  if (r.changes === 0) throw new RunNotFoundError(id);
}

/** Every run, newest first, with how many of its episodes ended each way. */
export function listRuns(db: ReadableDB): RunSummary[] {
  const runs = prepare<[], RunRow>(db, 'SELECT * FROM runs ORDER BY created_at DESC, id DESC').all();
  const counts = new Map<number, StatusCounts>();
  for (const c of prepare<[], { run_id: number; status: StoredEpisodeStatus; n: number }>(
    db, 'SELECT run_id, status, count(*) AS n FROM episodes GROUP BY run_id, status',
  ).all()) {
    let k = counts.get(c.run_id);
    if (!k) counts.set(c.run_id, (k = emptyStatusCounts()));
    k[c.status] = c.n;
  }
  return runs.map((r) => {
    const k = counts.get(r.id) ?? emptyStatusCounts();
    return { ...rowToRun(r), counts: k, episodes: Object.values(k).reduce((a, b) => a + b, 0) };
  });
}

/** A set of (template id, seed) pairs. */
export class InstanceSet implements Iterable<{ templateId: string; seed: number }> {
  private readonly seeds = new Map<string, Set<number>>();

  add(templateId: string, seed: number): void {
    let s = this.seeds.get(templateId);
    if (!s) this.seeds.set(templateId, (s = new Set()));
    s.add(seed);
  }

  has(templateId: string, seed: number): boolean {
    return this.seeds.get(templateId)?.has(seed) ?? false;
  }

  get size(): number {
    let n = 0;
    for (const s of this.seeds.values()) n += s.size;
    return n;
  }

  *[Symbol.iterator](): Iterator<{ templateId: string; seed: number }> {
    for (const [templateId, seeds] of this.seeds) for (const seed of seeds) yield { templateId, seed };
  }
}

export interface ResumeState {
  run: Run;
  /** Episodes that were running when the run stopped; now 'interrupted', their completed steps kept. */
  interrupted: EpisodeId[];
  /** Instances with an episode the agent finished (success or failure): a resumed suite skips them. */
  finished: InstanceSet;
  /**
   * Instances whose every attempt so far ended in an environment error (a device or adb failure, not the agent's
   * doing): a resumed suite runs them again, and the errored attempts stay in the run with status 'error'.
   */
  errored: InstanceSet;
}

/**
 * Picks a run up after a crash or a stop: its episodes still 'running' cannot continue (the device
 * state is gone), so they become 'interrupted'; the run is 'running' again.
 */
export function resumeRun(db: WritableDB, runId: RunId): ResumeState {
  return inTransaction(db, () => {
    getRun(db, runId);
    const interrupted = prepare<[number], number>(db, `
      UPDATE episodes SET status = 'interrupted', steps_count = (SELECT count(*) FROM steps s WHERE s.episode_id = episodes.id)
      WHERE run_id = ? AND status = 'running' RETURNING id`).pluck().all(runId).map(asEpisodeId).sort((a, b) => a - b);
    prepare(db, `UPDATE runs SET status = 'running', finished_at = NULL WHERE id = ?`).run(runId);
    const finished = new InstanceSet();
    const errored = new InstanceSet();
    for (const r of prepare<[number], { template_id: string; seed: number; done: number }>(db, `
      SELECT i.template_id, i.seed, max(e.status IN ('success', 'failure')) AS done FROM episodes e JOIN task_instances i ON i.id = e.instance_id
      WHERE e.run_id = ? AND e.status IN ('success', 'failure', 'error') GROUP BY i.template_id, i.seed`).all(runId)) {
      (r.done ? finished : errored).add(r.template_id, r.seed);
    }
    return { run: getRun(db, runId), interrupted, finished, errored };
  });
}
