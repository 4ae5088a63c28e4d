import { randomUUID } from 'node:crypto';
import { currentProcess, ownerState, processCommand, type ProcessOwner } from '../util/process-owner.js';
import { inTransaction, prepare, type ReadableDB, type WritableDB } from './db.js';
import { RunLiveError, RunNotFoundError } from './errors.js';
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
  // The run is this process's until it finishes: a resume elsewhere is refused while this process lives.
  const id = prepare(db, `INSERT INTO runs (uid, kind, name, config, status, created_at, owner) VALUES (?, ?, ?, ?, 'running', ?, ?)`)
    .run(uid, run.kind, run.name, JSON.stringify(run.config ?? {}), createdAt, JSON.stringify(currentProcess())).lastInsertRowid;
  return getRun(db, asRunId(id));
}

export function getRun(db: ReadableDB, id: RunId): Run {
  const row = prepare<[number], RunRow>(db, 'SELECT * FROM runs WHERE id = ?').get(id);
  if (!row) throw new RunNotFoundError(id);
  return rowToRun(row);
}

export function finishRun(db: WritableDB, id: RunId, status: Exclude<RunStatus, 'running'> = 'finished', at = Date.now()): void {
  const r = prepare(db, 'UPDATE runs SET status = ?, finished_at = ?, owner = NULL WHERE id = ?').run(status, at, id);
  if (r.changes === 0) throw new RunNotFoundError(id);
}

/** The process recording a running run (null: not running, or recorded before owners were kept). */
export function runOwner(db: ReadableDB, id: RunId): ProcessOwner | null {
  const text = prepare<[number], string | null>(db, "SELECT CASE WHEN status = 'running' THEN owner END FROM runs WHERE id = ?").pluck().get(id);
  if (text === undefined) throw new RunNotFoundError(id);
  return text === null ? null : fromJson<ProcessOwner>(text);
}

/**
 * Stops a run where it is (a signal, an environment error): the episodes it was recording become 'interrupted' with
 * the steps they completed, the run 'interrupted'; `awb suite run --resume` (or the trainer's resume) continues it.
 */
export function interruptRun(db: WritableDB, id: RunId, at = Date.now()): EpisodeId[] {
  return inTransaction(db, () => {
    const episodes = markRunningEpisodesInterrupted(db, id);
    finishRun(db, id, 'interrupted', at);
    return episodes;
  });
}

function markRunningEpisodesInterrupted(db: WritableDB, runId: RunId): EpisodeId[] {
  return prepare<[number], number>(db, `
    UPDATE episodes SET status = 'interrupted', steps_count = (SELECT count(*) FROM steps s WHERE s.episode_id = episodes.id)
    WHERE run_id = ? AND status = 'running' RETURNING id`).pluck().all(runId).map(asEpisodeId).sort((a, b) => a - b);
}

/**
 * Runs left 'running' by a process that is gone (killed, crashed, its machine rebooted) are 'interrupted' from now
 * on, with their running episodes: what the store shows is then what happened. Runs of a live process, of another
 * host (it cannot be asked) and runs without an owner (recorded before owners were kept) are left as they are.
 */
export function reapDeadRuns(db: WritableDB): RunId[] {
  const candidates = prepare<[], { id: number; owner: string }>(db, "SELECT id, owner FROM runs WHERE status = 'running' AND owner IS NOT NULL").all();
  const dead = candidates.filter((r) => ownerState(fromJson<ProcessOwner>(r.owner)) === 'dead').map((r) => asRunId(r.id));
  for (const id of dead) interruptRun(db, id);
  return dead;
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
  /**
   * Episodes cut short (the run's process stopped or died while they ran): 'interrupted', their completed steps
   * kept, of instances with no finished attempt. Marked by this resume, or already when the store was opened
   * (reapDeadRuns) or the run was interrupted (interruptRun).
   */
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
 * state is gone), so they become 'interrupted'; the run is 'running' again, and this process's.
 * A run another live process on this host is recording is refused (RunLiveError), in the same
 * transaction that claims it: of two resumes at once, the second is refused. Within one process the
 * caller keeps track of what it runs (the workbench's job table).
 */
export function resumeRun(db: WritableDB, runId: RunId): ResumeState {
  return inTransaction(db, () => {
    getRun(db, runId);
    const owner = runOwner(db, runId);
    const me = currentProcess();
    if (owner && !(owner.pid === me.pid && owner.host === me.host) && ownerState(owner) === 'alive') throw new RunLiveError(runId, owner, processCommand(owner.pid));
    markRunningEpisodesInterrupted(db, runId);
    prepare(db, `UPDATE runs SET status = 'running', finished_at = NULL, owner = ? WHERE id = ?`).run(JSON.stringify(me), runId);
    const finished = new InstanceSet();
    const errored = new InstanceSet();
    for (const r of prepare<[number], { template_id: string; seed: number; done: number }>(db, `
      SELECT i.template_id, i.seed, max(e.status IN ('success', 'failure')) AS done FROM episodes e JOIN task_instances i ON i.id = e.instance_id
      WHERE e.run_id = ? AND e.status IN ('success', 'failure', 'error') GROUP BY i.template_id, i.seed`).all(runId)) {
      (r.done ? finished : errored).add(r.template_id, r.seed);
    }
    const interrupted = prepare<[number], { id: number; template_id: string; seed: number }>(db, `
      SELECT e.id, i.template_id, i.seed FROM episodes e JOIN task_instances i ON i.id = e.instance_id
      WHERE e.run_id = ? AND e.status = 'interrupted' ORDER BY e.id`).all(runId)
      .filter((r) => !finished.has(r.template_id, r.seed)).map((r) => asEpisodeId(r.id));
    return { run: getRun(db, runId), interrupted, finished, errored };
  });
}
