import { isAbsolute, normalize } from 'node:path';
import { prepareRewards, RewardConfigError } from '../rewards/compose.js';
import { scoreStoredEpisode } from '../rewards/stored.js';
import { loadTrajectory, type EpisodeId, type Trajectory, type WritableDB } from '../store/index.js';
import { WorkbenchError } from '../util/errors.js';
import type { EpisodeRewardsQuery, EpisodeRewardsView, StoredRewardValue } from '../api/api.js';
import { parseIssueLine } from '../util/zod-issues.js';

/**
 * The replay viewer's rewards (issue 7): what the store holds for an episode, and on request the
 * components recomputed with their details, as `awb rewards compute` does, with the workbench's
 * store and data folder as the reward context.
 */

/**
 * A reward config the rewards refused, with its problems in the bridge's `{ path, message }` form so
 * the UI can list them. Named like core's RewardConfigError (whose issues are `path: message` lines):
 * to the user it is the same error.
 */
export class EpisodeRewardsConfigError extends WorkbenchError {
  override name = 'RewardConfigError';
  readonly issues: Array<{ path: string; message: string }>;
  constructor(readonly lines: string[]) {
    super(`Invalid reward config:\n  ${lines.join('\n  ')}`);
    this.issues = lines.map(parseIssueLine);
  }
}

/** The stored rewards of every step: scored values and unscored reasons by kind. */
export function storedRewards(t: Trajectory): Pick<EpisodeRewardsView, 'storedKinds' | 'stored'> {
  const kinds = new Set<string>();
  const stored = t.steps.map((s) => {
    const byKind: Record<string, StoredRewardValue> = {};
    for (const [kind, r] of Object.entries(s.rewards)) byKind[kind] = { value: r.value, explanation: r.explanation };
    for (const [kind, reason] of Object.entries(s.unscored ?? {})) byKind[kind] = { value: null, explanation: reason };
    Object.keys(byKind).forEach((k) => kinds.add(k));
    return byKind;
  });
  return { storedKinds: [...kinds].sort(), stored };
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Checkpoints (and ADMIRE's sentence-embedding model folder) named in a config through the API are
 * files under the data folder (the modules resolve relative paths there): an absolute path or one
 * climbing out with `..` is refused, since a page must not make the workbench read any file. The rest
 * of the config is left for the rewards to validate.
 */
export function confineCheckpoints(config: unknown): unknown {
  if (!isRecord(config) || !Array.isArray(config.components)) return config;
  const problems: string[] = [];
  config.components.forEach((c: unknown, i) => {
    if (!isRecord(c) || !isRecord(c.options)) return;
    const check = (path: unknown, at: string, what = 'checkpoint'): void => {
      if (typeof path !== 'string') return;
      if (isAbsolute(path) || normalize(path).split(/[\\/]/).includes('..')) {
        problems.push(`components.${i}.options.${at}: a ${what} through the workbench is a path under the data folder, got ${JSON.stringify(path)}`);
      }
    };
    if (c.kind === 'progrm') check(c.options.checkpoint, 'checkpoint');
    if (c.kind === 'admire' && isRecord(c.options.embedder)) check(c.options.embedder.path, 'embedder.path', 'model folder');
    if (c.kind === 'shepherd' && isRecord(c.options.judge)) check(c.options.judge.checkpoint, 'judge.checkpoint');
  });
  if (problems.length) throw new EpisodeRewardsConfigError(problems);
  return config;
}

export interface RewardsDeps {
  db(): WritableDB;
  dataDir(): string;
}

/**
 * Answers getEpisodeRewards. Recomputations run one at a time (they share the CPU with every other
 * call), and yield to the event loop between episodes, so a long one never holds other calls for
 * more than one episode's scoring.
 */
export class EpisodeRewards {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: RewardsDeps) {}

  async get(q: EpisodeRewardsQuery): Promise<EpisodeRewardsView> {
    const db = this.deps.db();
    const id = q.episodeId as EpisodeId;
    const t = loadTrajectory(db, id);
    if (q.config === undefined) return { episodeId: q.episodeId, ...storedRewards(t), computed: null, group: [q.episodeId], written: false };
    const run = this.queue.then(() => this.compute(db, t, q.config, q.write ?? false));
    this.queue = run.catch(() => undefined); // a failed request must not fail the next one
    return run;
  }

  private async compute(db: WritableDB, t: Trajectory, rawConfig: unknown, write: boolean): Promise<EpisodeRewardsView> {
    const dataDir = this.deps.dataDir();
    let prepared;
    try {
      prepared = await prepareRewards(confineCheckpoints(rawConfig));
    } catch (e) {
      if (e instanceof RewardConfigError) throw new EpisodeRewardsConfigError(e.issues);
      throw e;
    }
    const id = t.episode.id;
    const { breakdown: computed, group: groupIds } = await scoreStoredEpisode(db, t, prepared, { dataDir, write, details: true });
    const now = write ? loadTrajectory(db, id) : t;
    return { episodeId: id, ...storedRewards(now), computed, group: groupIds, written: write };
  }
}
