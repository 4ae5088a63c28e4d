import type { EpisodeTimings, StepError, Termination } from '../episode/record.js';
import { prepare, type ReadableDB, type WritableDB } from './db.js';
import { EpisodeNotFoundError } from './errors.js';
import { asEpisodeId, asRunId, type EpisodeId, type RunId } from './ids.js';
import { fromJson } from './json.js';
import type { DeviceInfo } from './catalog.js';
import type { StoredEpisodeStatus } from './statuses.js';
import type { CheckVerdict } from '../tasks/verdict.js';

/** The episode row: what was run, how it ended, and the final observation (by hash). */
export interface EpisodeInfo {
  id: EpisodeId;
  /** A UUID: kept by export and import, so the same episode has the same uid in every store. */
  uid: string;
  runId: RunId;
  policy: string;
  status: StoredEpisodeStatus;
  /** The checker's verdict; null until the episode ended. */
  success: boolean | null;
  /** The checker's conditions (what it expected, what it found); null without a verdict or when recorded before verdicts had reasons. */
  verdict: CheckVerdict | null;
  terminatedBy: Termination | null;
  answer: string | null;
  error: StepError | null;
  stepsCount: number;
  maxSteps: number | null;
  startedAt: number;
  finishedAt: number | null;
  timings: EpisodeTimings | null;
  device: DeviceInfo | null;
}

export interface NewEpisode {
  uid: string;
  runId: RunId;
  instanceId: number;
  deviceId: number | null;
  policy: string;
  maxSteps: number | null;
  startedAt: number;
}

/** Inserts an episode as 'running' (its steps follow one transaction each). */
export function insertEpisode(db: WritableDB, e: NewEpisode): EpisodeId {
  return asEpisodeId(prepare(db, `
    INSERT INTO episodes (uid, run_id, instance_id, device_id, policy, status, max_steps, started_at)
    VALUES (?, ?, ?, ?, ?, 'running', ?, ?)`).run(e.uid, e.runId, e.instanceId, e.deviceId, e.policy, e.maxSteps, e.startedAt).lastInsertRowid);
}

export interface EpisodeEnd {
  status: StoredEpisodeStatus;
  success: boolean | null;
  verdict: CheckVerdict | null;
  terminatedBy: Termination | null;
  answer: string | null;
  error: StepError | null;
  finishedAt: number | null;
  timings: EpisodeTimings | null;
  finalScreenshot: string | null;
  finalTree: string | null;
}

/** Writes how an episode ended; `steps_count` is recounted from the stored steps. */
export function completeEpisode(db: WritableDB, id: EpisodeId, end: EpisodeEnd): void {
  const r = prepare(db, `
    UPDATE episodes SET status = ?, success = ?, verdict = ?, terminated_by = ?, answer = ?, error_name = ?, error_message = ?,
      finished_at = ?, timings = ?, final_screenshot = ?, final_tree = ?,
      steps_count = (SELECT count(*) FROM steps s WHERE s.episode_id = episodes.id)
    WHERE id = ?`).run(
    end.status, end.success === null ? null : end.success ? 1 : 0, end.verdict ? JSON.stringify(end.verdict) : null, end.terminatedBy, end.answer, end.error?.name ?? null,
    end.error?.message ?? null, end.finishedAt, end.timings ? JSON.stringify(end.timings) : null, end.finalScreenshot, end.finalTree, id,
  );
  if (r.changes === 0) throw new EpisodeNotFoundError(id);
}

export interface EpisodeRow {
  id: number;
  uid: string;
  run_id: number;
  instance_id: number;
  policy: string;
  status: StoredEpisodeStatus;
  success: 0 | 1 | null;
  verdict: string | null;
  // Written only from the runner's Termination values or a zod-checked import.
  terminated_by: Termination | null;
  answer: string | null;
  error_name: string | null;
  error_message: string | null;
  steps_count: number;
  max_steps: number | null;
  started_at: number;
  finished_at: number | null;
  timings: string | null;
  final_screenshot: string | null;
  final_tree: string | null;
  serial: string | null;
  width: number | null;
  height: number | null;
  density: number | null;
}

export function rowToEpisode(r: EpisodeRow): EpisodeInfo {
  return {
    id: asEpisodeId(r.id), uid: r.uid, runId: asRunId(r.run_id), policy: r.policy, status: r.status,
    success: r.success === null ? null : r.success === 1, verdict: fromJson<CheckVerdict>(r.verdict), terminatedBy: r.terminated_by, answer: r.answer,
    error: r.error_name === null ? null : { name: r.error_name, message: r.error_message ?? '' },
    stepsCount: r.steps_count, maxSteps: r.max_steps, startedAt: r.started_at, finishedAt: r.finished_at,
    timings: fromJson<EpisodeTimings>(r.timings),
    device: r.serial === null ? null : { serial: r.serial, width: r.width!, height: r.height!, density: r.density! },
  };
}

export function getEpisodeRow(db: ReadableDB, id: EpisodeId): EpisodeRow {
  const row = prepare<[number], EpisodeRow>(db, `
    SELECT e.*, d.serial, d.width, d.height, d.density FROM episodes e LEFT JOIN devices d ON d.id = e.device_id
    WHERE e.id = ?`).get(id);
  if (!row) throw new EpisodeNotFoundError(id);
  return row;
}

/** The local id of the episode with this uid, or null. */
export function episodeIdByUid(db: ReadableDB, uid: string): EpisodeId | null {
  const id = prepare<[string], number>(db, 'SELECT id FROM episodes WHERE uid = ?').pluck().get(uid);
  return id === undefined ? null : asEpisodeId(id);
}
