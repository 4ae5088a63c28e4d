import { z } from 'zod';
import type { Difficulty } from '../tasks/task.js';
import { prepare, readConsistent, type ReadableDB } from './db.js';
import { asEpisodeId, type EpisodeId, type RunId } from './ids.js';
import { describeCondition, firstFailed, type CheckVerdict } from '../tasks/verdict.js';
import { fromJson } from './json.js';
import { emptyStatusCounts, STORED_EPISODE_STATUSES, type StatusCounts, type StoredEpisodeStatus } from './statuses.js';

const Status = z.enum(STORED_EPISODE_STATUSES);

/** The columns the episode table sorts by; a rollout's columns are null for other episodes, and those sort last. */
export const EPISODE_SORT_KEYS = ['id', 'template', 'app', 'seed', 'policy', 'status', 'steps', 'started', 'duration', 'iteration', 'group', 'reward', 'advantage'] as const;
export type EpisodeSortKey = (typeof EPISODE_SORT_KEYS)[number];

const SORT_SQL: Record<EpisodeSortKey, string> = {
  id: 'e.id', template: 'i.template_id', app: 't.app', seed: 'i.seed', policy: 'e.policy', status: 'e.status', steps: 'e.steps_count',
  started: 'e.started_at', duration: 'e.finished_at - e.started_at', iteration: 'r.iteration', group: 'r.group_index', reward: 'r.reward',
  advantage: 'r.advantage',
};

/** The episode table's filter; validated once here, since it arrives from the UI and the CLI. */
export const EpisodeFilterSchema = z.object({
  templateId: z.string().min(1).optional(),
  app: z.string().min(1).optional(),
  status: z.union([Status, z.array(Status).min(1)]).optional(),
  runId: z.number().int().positive().optional(),
  /** A training run's iteration: its recorded rollouts only. */
  iteration: z.number().int().positive().optional(),
  policy: z.string().min(1).optional(),
  /** Episodes started at or after this time (epoch ms). */
  since: z.number().int().optional(),
  /** Episodes started before this time (epoch ms). */
  until: z.number().int().optional(),
  /** A substring of the instruction (case-insensitive for ASCII). */
  search: z.string().min(1).optional(),
  /** These episodes only (a failure-taxonomy cell's episodes: core/analysis gives their ids). */
  episodeIds: z.array(z.number().int().positive()).min(1).optional(),
  limit: z.number().int().min(1).max(1000).default(50),
  offset: z.number().int().min(0).default(0),
  order: z.enum(['newest', 'oldest']).default('newest'),
  /** Sort by a column instead (ties by id, in the same direction); `order` then does not apply. */
  sort: z.strictObject({ by: z.enum(EPISODE_SORT_KEYS), dir: z.enum(['asc', 'desc']) }).optional(),
});
export type EpisodeFilter = z.input<typeof EpisodeFilterSchema> & { runId?: RunId };

/** One row of the episode table. */
export interface EpisodeSummary {
  id: EpisodeId;
  uid: string;
  templateId: string;
  app: string | null;
  difficulty: Difficulty | null;
  seed: number;
  instruction: string;
  policy: string;
  status: StoredEpisodeStatus;
  steps: number;
  startedAt: number;
  /** Null while running or when the end was never recorded (interrupted). */
  durationMs: number | null;
  /** Steps whose action a person chose instead of the policy's (step-through overrides): not the policy's own episode. */
  overriddenSteps: number;
  /** A GRPO training rollout's place and score (reward, advantage: null until its iteration was scored); else null. */
  rollout: RolloutPlace | null;
  /** The checker's first failed condition in one line ("answer equals 3: expected 3, found answered 4"); null when none failed or none was recorded. */
  reason: string | null;
}

export interface RolloutPlace {
  iteration: number;
  group: number;
  index: number;
  reward: number | null;
  advantage: number | null;
}

export interface EpisodePage {
  rows: EpisodeSummary[];
  /** Episodes matching the whole filter (for paging). */
  total: number;
  /**
   * Episodes per status matching the filter without its status part, so a status facet can show
   * what choosing each status would give.
   */
  counts: StatusCounts;
}

interface SummaryRow {
  id: number;
  uid: string;
  template_id: string;
  app: string | null;
  difficulty: Difficulty | null;
  seed: number;
  instruction: string;
  policy: string;
  status: StoredEpisodeStatus;
  steps_count: number;
  started_at: number;
  finished_at: number | null;
  overridden_steps: number;
  r_iteration: number | null;
  r_group: number | null;
  r_index: number | null;
  r_reward: number | null;
  r_advantage: number | null;
  verdict: string | null;
}

const SUMMARY_COLUMNS = `e.id, e.uid, i.template_id, t.app, t.difficulty, i.seed, i.instruction, e.policy, e.status, e.steps_count,
  e.started_at, e.finished_at, e.verdict,
  (SELECT count(*) FROM steps s WHERE s.episode_id = e.id AND s.overridden = 1) AS overridden_steps,
  r.iteration AS r_iteration, r.group_index AS r_group, r.rollout_index AS r_index, r.reward AS r_reward, r.advantage AS r_advantage`;
const SUMMARY_FROM = `episodes e JOIN task_instances i ON i.id = e.instance_id JOIN task_templates t ON t.id = i.template_id
  LEFT JOIN training_rollouts r ON r.episode_id = e.id`;

/** A recorded rollout's place and scores, or null for an episode that is not one. */
export function rolloutOf(db: ReadableDB, id: EpisodeId): RolloutPlace | null {
  const r = prepare<[number], { iteration: number; group_index: number; rollout_index: number; reward: number | null; advantage: number | null }>(db,
    'SELECT iteration, group_index, rollout_index, reward, advantage FROM training_rollouts WHERE episode_id = ?').get(id);
  return r ? { iteration: r.iteration, group: r.group_index, index: r.rollout_index, reward: r.reward, advantage: r.advantage } : null;
}

function rowToSummary(r: SummaryRow): EpisodeSummary {
  return {
    id: asEpisodeId(r.id), uid: r.uid, templateId: r.template_id, app: r.app, difficulty: r.difficulty, seed: r.seed,
    instruction: r.instruction, policy: r.policy, status: r.status, steps: r.steps_count, startedAt: r.started_at,
    durationMs: r.finished_at === null ? null : r.finished_at - r.started_at, overriddenSteps: r.overridden_steps,
    rollout: r.r_iteration === null ? null : { iteration: r.r_iteration, group: r.r_group!, index: r.r_index!, reward: r.r_reward, advantage: r.r_advantage },
    reason: reasonOf(r.verdict),
  };
}

function reasonOf(verdict: string | null): string | null {
  const failed = verdict === null ? undefined : firstFailed(fromJson<CheckVerdict>(verdict));
  return failed ? describeCondition(failed) : null;
}

interface Where {
  clauses: string[];
  params: unknown[];
  /** Whether a clause reads the instance or template tables (else counting can skip the joins). */
  joins: boolean;
}

function whereOf(f: z.output<typeof EpisodeFilterSchema>): Where {
  const w: Where = { clauses: [], params: [], joins: false };
  const add = (clause: string, joins: boolean, ...params: unknown[]) => {
    w.clauses.push(clause);
    w.params.push(...params);
    w.joins ||= joins;
  };
  if (f.templateId !== undefined) add('i.template_id = ?', true, f.templateId);
  if (f.app !== undefined) add('t.app = ?', true, f.app);
  if (f.runId !== undefined) add('e.run_id = ?', false, f.runId);
  if (f.iteration !== undefined) add('r.iteration = ?', true, f.iteration);
  if (f.policy !== undefined) add('e.policy = ?', false, f.policy);
  if (f.since !== undefined) add('e.started_at >= ?', false, f.since);
  if (f.until !== undefined) add('e.started_at < ?', false, f.until);
  // One JSON parameter, so a long id list does not run into SQLite's bound-parameter limit.
  if (f.episodeIds !== undefined) add('e.id IN (SELECT value FROM json_each(?))', false, JSON.stringify(f.episodeIds));
  if (f.search !== undefined) add(`i.instruction LIKE ? ESCAPE '\\'`, true, `%${f.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  return w;
}

const sqlWhere = (clauses: string[]) => (clauses.length ? `WHERE ${clauses.join(' AND ')}` : '');

/**
 * A page of episodes with the filter's total and per-status counts. Newest first by default. The
 * page query walks the start-time index and stops at the page; the counts are one grouped pass over
 * the matching episodes (index-only when the filter is on episode columns).
 */
export function listEpisodes(db: ReadableDB, filter: EpisodeFilter = {}): EpisodePage {
  const f = EpisodeFilterSchema.parse(filter);
  const statuses = f.status === undefined ? null : Array.isArray(f.status) ? [...new Set(f.status)] : [f.status];
  const base = whereOf(f);
  const pageClauses = statuses ? [...base.clauses, `e.status IN (${statuses.map(() => '?').join(', ')})`] : base.clauses;
  const pageParams = statuses ? [...base.params, ...statuses] : base.params;
  const dir = f.sort ? (f.sort.dir === 'asc' ? 'ASC' : 'DESC') : f.order === 'newest' ? 'DESC' : 'ASC';
  // Without a sort, by start time (the index the page query walks); a sorted page sorts the matching episodes.
  const orderBy = f.sort ? `${SORT_SQL[f.sort.by]} ${dir} NULLS LAST, e.id ${dir}` : `e.started_at ${dir}, e.id ${dir}`;
  return readConsistent(db, () => {
    const rows = prepare<unknown[], SummaryRow>(db, `
      SELECT ${SUMMARY_COLUMNS} FROM ${SUMMARY_FROM} ${sqlWhere(pageClauses)}
      ORDER BY ${orderBy} LIMIT ? OFFSET ?`).all(...pageParams, f.limit, f.offset);
    const counts = emptyStatusCounts();
    for (const c of prepare<unknown[], { status: StoredEpisodeStatus; n: number }>(db, `
      SELECT e.status, count(*) AS n FROM ${base.joins ? SUMMARY_FROM : 'episodes e'} ${sqlWhere(base.clauses)}
      GROUP BY e.status`).all(...base.params)) {
      counts[c.status] = c.n;
    }
    let total = 0;
    for (const s of statuses ?? STORED_EPISODE_STATUSES) total += counts[s];
    return { rows: rows.map(rowToSummary), total, counts };
  });
}

/** The ids of every episode matching a filter (its paging ignored), oldest first: what an export walks. */
export function episodeIds(db: ReadableDB, filter: EpisodeFilter = {}): EpisodeId[] {
  const f = EpisodeFilterSchema.parse(filter);
  const w = whereOf(f);
  const statuses = f.status === undefined ? [] : Array.isArray(f.status) ? f.status : [f.status];
  if (statuses.length) w.clauses.push(`e.status IN (${statuses.map(() => '?').join(', ')})`);
  return prepare<unknown[], number>(db, `SELECT e.id FROM ${SUMMARY_FROM} ${sqlWhere(w.clauses)} ORDER BY e.started_at, e.id`)
    .pluck().all(...w.params, ...statuses).map(asEpisodeId);
}

/**
 * Successful episodes of a template, newest first: the replay viewer diffs a failure against these.
 * (`+e.status` keeps SQLite from walking every success by time: going through the template's
 * instances reads only its own episodes.)
 */
export function successfulEpisodes(
  db: ReadableDB, templateId: string, opts: { excludeEpisode?: EpisodeId; limit?: number } = {},
): EpisodeSummary[] {
  const limit = z.number().int().min(1).max(1000).parse(opts.limit ?? 20);
  return prepare<unknown[], SummaryRow>(db, `
    SELECT ${SUMMARY_COLUMNS} FROM ${SUMMARY_FROM}
    WHERE i.template_id = ? AND +e.status = 'success' AND e.id != ?
    ORDER BY e.started_at DESC, e.id DESC LIMIT ?`).all(templateId, opts.excludeEpisode ?? -1, limit).map(rowToSummary);
}

/** The values the episode table's filters can take: templates, apps and policies seen in this store. */
export function episodeFilterValues(db: ReadableDB): { templates: string[]; apps: string[]; policies: string[] } {
  return readConsistent(db, () => ({
    templates: prepare<[], string>(db, 'SELECT DISTINCT template_id FROM task_instances ORDER BY 1').pluck().all(),
    apps: prepare<[], string>(db, 'SELECT DISTINCT app FROM task_templates WHERE app IS NOT NULL ORDER BY 1').pluck().all(),
    policies: prepare<[], string>(db, 'SELECT DISTINCT policy FROM episodes ORDER BY 1').pluck().all(),
  }));
}
