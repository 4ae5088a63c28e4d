import type { ReadableDB } from '../store/db.js';
import type { RunId } from '../store/ids.js';
import { listEpisodes, type EpisodeSummary } from '../store/queries.js';
import { getRun } from '../store/runs.js';
import type { Difficulty } from '../tasks/task.js';
import type { Reference } from './align.js';
import { explainEpisode, type EpisodeExplanation } from './explain.js';
import type { ReferenceOptions } from './references.js';
import { FAILURE_CLASSES, type FailureClass } from './taxonomy.js';

/** One cell of the taxonomy table: a class in one template (its app and difficulty with it), and the episodes. */
export interface FailureCell {
  class: FailureClass;
  app: string | null;
  templateId: string;
  difficulty: Difficulty | null;
  count: number;
  episodeIds: number[];
}

export interface RunFailures {
  runId: number;
  episodes: number;
  failed: number;
  /** Episodes per primary class (every class present, zeros included). */
  byClass: Record<FailureClass, number>;
  cells: FailureCell[];
  /** Failed episodes classified: all of them, or the newest `limit`. */
  explained: number;
  /** The bound asked for (null: none): byClass and cells count the `explained` newest failures only. */
  limit: number | null;
  /** The classified failures' explanations, oldest first. */
  explanations: EpisodeExplanation[];
}

export interface RunFailuresOptions extends ReferenceOptions {
  /** Classify at most this many failed episodes, the newest (a GRPO run stores thousands). */
  limit?: number;
  /** Called after each classified episode: for progress. */
  onEpisode?: (done: number, total: number) => void;
}

/** Every episode of a run (paging through the store's 1000-row pages), oldest first; throws RunNotFoundError. */
function runEpisodes(db: ReadableDB, runId: RunId): EpisodeSummary[] {
  getRun(db, runId);
  const out: EpisodeSummary[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = listEpisodes(db, { runId, limit: 1000, offset, order: 'oldest' });
    out.push(...page.rows);
    if (out.length >= page.total || !page.rows.length) return out;
  }
}

/** The taxonomy of a run's failed and errored episodes, with the same references `explainEpisode` uses by default (stored successes, else the oracle's run), so an episode's class here is the one its explanation gives. */
export async function runFailures(db: ReadableDB, runId: RunId, o: RunFailuresOptions = {}): Promise<RunFailures> {
  const { limit, onEpisode, ...refs } = o;
  const episodes = runEpisodes(db, runId);
  const failed = episodes.filter((e) => e.status === 'failure' || e.status === 'error');
  const chosen = limit !== undefined && failed.length > limit ? failed.slice(failed.length - limit) : failed;
  const referenceCache = new Map<string, Promise<{ references: Reference[]; notes: string[] }>>();
  const explanations: EpisodeExplanation[] = [];
  for (const e of chosen) {
    explanations.push(await explainEpisode(db, e.id, { ...refs, referenceCache }));
    onEpisode?.(explanations.length, chosen.length);
  }
  const byClass = Object.fromEntries(FAILURE_CLASSES.map((c) => [c, 0])) as Record<FailureClass, number>;
  const cells = new Map<string, FailureCell>();
  for (const x of explanations) {
    const c = x.classification!.primary;
    byClass[c]++;
    const key = `${c}\n${x.templateId}`;
    let cell = cells.get(key);
    if (!cell) cells.set(key, (cell = { class: c, app: x.app, templateId: x.templateId, difficulty: x.difficulty, count: 0, episodeIds: [] }));
    cell.count++;
    cell.episodeIds.push(x.episodeId);
  }
  const order = (c: FailureClass) => FAILURE_CLASSES.indexOf(c);
  return {
    runId, episodes: episodes.length, failed: failed.length, explained: chosen.length, limit: limit ?? null, byClass, explanations,
    cells: [...cells.values()].sort((a, b) => order(a.class) - order(b.class) || b.count - a.count || a.templateId.localeCompare(b.templateId)),
  };
}

/** An instance's outcome in a run: success when most of its judged episodes succeeded. */
type InstanceOutcome = 'success' | 'failure' | 'error';

export interface Flip {
  templateId: string;
  seed: number;
  app: string | null;
  /** Each side's episodes of the instance and the primary classes of its failed ones. */
  before: { outcome: InstanceOutcome; episodeIds: number[]; classes: FailureClass[] };
  after: { outcome: InstanceOutcome; episodeIds: number[]; classes: FailureClass[] };
}

export interface RunComparison {
  runs: [RunFailures, RunFailures];
  /** Instances in both runs. */
  shared: number;
  onlyBefore: number;
  onlyAfter: number;
  /** Failed (or errored) in the first run, succeeded in the second. */
  fixed: Flip[];
  /** Succeeded in the first, failed in the second. */
  broke: Flip[];
  stillFailing: number;
  stillSucceeding: number;
}

function outcomes(episodes: readonly EpisodeSummary[]): Map<string, { templateId: string; seed: number; app: string | null; ids: number[]; outcome: InstanceOutcome }> {
  const by = new Map<string, { templateId: string; seed: number; app: string | null; ids: number[]; ok: number; judged: number; outcome: InstanceOutcome }>();
  for (const e of episodes) {
    if (e.status !== 'success' && e.status !== 'failure' && e.status !== 'error') continue;
    const k = `${e.templateId}:${e.seed}`;
    let g = by.get(k);
    if (!g) by.set(k, (g = { templateId: e.templateId, seed: e.seed, app: e.app, ids: [], ok: 0, judged: 0, outcome: 'error' }));
    g.ids.push(e.id);
    if (e.status !== 'error') g.judged++;
    if (e.status === 'success') g.ok++;
    g.outcome = g.judged === 0 ? 'error' : g.ok * 2 > g.judged ? 'success' : 'failure';
  }
  return by;
}

/** Run vs run on the instances they share: which flipped each way, with the failing side's classes. */
export async function compareRuns(db: ReadableDB, before: RunId, after: RunId, o: RunFailuresOptions = {}): Promise<RunComparison> {
  // Progress counts both runs' classified episodes as one job.
  let first = 0;
  const a = await runFailures(db, before, { ...o, ...(o.onEpisode ? { onEpisode: (d, t) => { first = t; o.onEpisode!(d, t); } } : {}) });
  const b = await runFailures(db, after, { ...o, ...(o.onEpisode ? { onEpisode: (d, t) => o.onEpisode!(first + d, first + t) } : {}) });
  const classOf = new Map<number, FailureClass>();
  for (const x of [...a.explanations, ...b.explanations]) classOf.set(x.episodeId, x.classification!.primary);
  const oa = outcomes(runEpisodes(db, before));
  const ob = outcomes(runEpisodes(db, after));
  const side = (g: { ids: number[]; outcome: InstanceOutcome }) => ({
    outcome: g.outcome, episodeIds: g.ids, classes: g.ids.flatMap((id) => (classOf.has(id) ? [classOf.get(id)!] : [])),
  });
  const fixed: Flip[] = [];
  const broke: Flip[] = [];
  let shared = 0;
  let stillFailing = 0;
  let stillSucceeding = 0;
  for (const [k, x] of oa) {
    const y = ob.get(k);
    if (!y) continue;
    shared++;
    const flip = { templateId: x.templateId, seed: x.seed, app: x.app, before: side(x), after: side(y) };
    if (x.outcome !== 'success' && y.outcome === 'success') fixed.push(flip);
    else if (x.outcome === 'success' && y.outcome !== 'success') broke.push(flip);
    else if (x.outcome === 'success') stillSucceeding++;
    else stillFailing++;
  }
  return { runs: [a, b], shared, onlyBefore: oa.size - shared, onlyAfter: ob.size - shared, fixed, broke, stillFailing, stillSucceeding };
}
