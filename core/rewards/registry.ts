import { z } from 'zod';
import type { WritableDB } from '../store/db.js';
import { assertNever, WorkbenchError } from '../util/errors.js';
import type { RewardComponent, RewardEpisode, RewardKind, StepRewardValue } from './component.js';
import { FormatOptions, formatComponent } from './format.js';
import { OutcomeOptions, outcomeComponent } from './outcome.js';
import { shortestPathRewards } from './shortest-path.js';

/**
 * Every RewardKind maps to a module: a zod schema for its options (defaults are the paper's) and a
 * factory. outcome, format and shortest-path live here; admire, progrm and shepherd are loaded on
 * first use from core/rewards/<kind>/index.ts, which must export
 * `rewardModule = defineRewardModule({ options, create })`.
 * Until such a module exists, asking for its kind is a RewardUnavailableError, and nothing else breaks.
 */

/** What a component may need beyond one episode. */
export interface RewardContext {
  /**
   * The episodes sampled for the same task instance (GRPO's group), this one included or not:
   * shortest-path compares an episode with the group's shortest success. Default: the episode alone.
   */
  group?: readonly RewardEpisode[];
  /** The store, for components with persisted state (ADMIRE's milestone memory). */
  db?: WritableDB;
  /** The data folder ($AWB_HOME), for components that keep files (model checkpoints). */
  dataDir?: string;
}

export interface RewardComponentModule<O = unknown> {
  /** The component's options; parsing fills the defaults. Unknown keys are refused. */
  readonly options: z.ZodType<O>;
  create(options: O, ctx: RewardContext): RewardComponent | Promise<RewardComponent>;
}

/** A reward kind whose module is missing or does not have the expected shape. */
export class RewardUnavailableError extends WorkbenchError {
  override name = 'RewardUnavailableError';
  constructor(readonly kind: RewardKind, readonly reason: string) {
    super(`Reward component ${JSON.stringify(kind)} is not available: ${reason}`);
  }
}

// ---------------------------------------------------------------------------------------------
// shortest-path: MobileRL's SPA as a per-step component

export const ShortestPathOptions = z.strictObject({
  alpha: z.number().finite().nonnegative().default(1).describe('Penalty strength α (MobileRL Table 2 "SPA = 1.0"; the code has none, i.e. 1)'),
});
export type ShortestPathOptions = z.infer<typeof ShortestPathOptions>;

/**
 * MobileRL's shortest-path adjustment (digest 003 §2.3, formula as in core/rl/adagrpo.ts, from the
 * released code's check_uid_uuid_reward with the paper's α):
 *
 *   r̃_i = r_i − α · max(T_i − T_min, 0) / (2 T_i)   for a success, T_min = shortest success in the group
 *
 * As a component it gives the adjustment r̃_i − r_i (≤ 0) on the last step and 0 elsewhere, so
 * `outcome + shortest-path` (weights 1, 1) is the SPA reward. Group members without a verdict do not
 * count; an episode without a verdict is unscored.
 */
export function shortestPathComponent(options: Partial<ShortestPathOptions> = {}, ctx: RewardContext = {}): RewardComponent {
  const { alpha } = ShortestPathOptions.parse(options);
  return {
    kind: 'shortest-path',
    compute: async (episode): Promise<StepRewardValue[]> => {
      const last = episode.steps.length - 1;
      const given = ctx.group ?? [];
      const group = given.includes(episode) ? given : [...given, episode];
      const judged = group.filter((e) => e.success !== null);
      const adjusted = shortestPathRewards(judged.map((e) => (e.success ? 1 : 0)), judged.map((e) => e.steps.length), { alpha, successReward: 1 });
      const successes = judged.filter((e) => e.success).map((e) => e.steps.length);
      const tMin = successes.length ? Math.min(...successes) : null;
      return episode.steps.map((_, step): StepRewardValue => {
        if (episode.success === null) return { step, value: null, explanation: `no checker verdict: ${episode.verdictNote ?? 'the episode ended in an error'}` };
        if (step < last) return { step, value: 0, explanation: 'the adjustment is given on the last step' };
        if (!episode.success) return { step, value: 0, explanation: 'failure: no adjustment' };
        const t = episode.steps.length;
        const delta = adjusted[judged.indexOf(episode)]! - 1;
        return {
          step, value: delta,
          explanation: `success in ${t} steps, shortest success ${tMin} of ${judged.length} judged in the group: −${alpha}·(${t}−${tMin})/(2·${t}) = ${delta.toFixed(3)}`,
        };
      });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// the registry

/**
 * Types a module against its own options and erases them for the registry: the registry only ever
 * hands `create` what `options` parsed, so the erased type is safe (the one cast, here).
 */
export function defineRewardModule<O>(m: RewardComponentModule<O>): RewardComponentModule {
  return m as unknown as RewardComponentModule;
}

const BUILTIN: Record<'outcome' | 'format' | 'shortest-path', RewardComponentModule> = {
  outcome: defineRewardModule({ options: OutcomeOptions, create: (o) => outcomeComponent(o) }),
  format: defineRewardModule({ options: FormatOptions, create: (o) => formatComponent(o) }),
  'shortest-path': defineRewardModule({ options: ShortestPathOptions, create: (o, ctx) => shortestPathComponent(o, ctx) }),
};

type LazyKind = 'admire' | 'progrm' | 'shepherd';

/** Where each lazily loaded kind's module is (relative to this file). */
const LAZY_PATHS: Record<LazyKind, string> = {
  admire: './admire/index.js',
  progrm: './progrm/index.js',
  shepherd: './shepherd/index.js',
};

const loaded = new Map<RewardKind, Promise<RewardComponentModule>>();

/** The module of a kind; throws RewardUnavailableError for a lazy kind whose module is missing or malformed. */
export function loadRewardModule(kind: RewardKind): Promise<RewardComponentModule> {
  let m = loaded.get(kind);
  if (!m) {
    m = resolveModule(kind);
    // A failed load is not cached: the module may appear (another engineer's work in progress, a fixed file).
    m.catch(() => loaded.delete(kind));
    loaded.set(kind, m);
  }
  return m;
}

async function resolveModule(kind: RewardKind): Promise<RewardComponentModule> {
  switch (kind) {
    case 'outcome':
    case 'format':
    case 'shortest-path':
      return BUILTIN[kind];
    case 'admire':
    case 'progrm':
    case 'shepherd':
      return importRewardModule(kind, LAZY_PATHS[kind]);
    default:
      return assertNever(kind, 'reward kind');
  }
}

/** Imports a lazy kind's module from `path` (relative to this file) and checks its `rewardModule` export. */
export async function importRewardModule(kind: RewardKind, path: string): Promise<RewardComponentModule> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(path)) as Record<string, unknown>;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const missing = err.code === 'ERR_MODULE_NOT_FOUND' || /Cannot find module|Failed to load url|Does the file exist/i.test(err.message);
    const file = `core/rewards/${path.slice(2).replace(/\.js$/, '.ts')}`;
    throw new RewardUnavailableError(kind, missing ? `${file} does not exist yet` : `${file} failed to load (${err.name}: ${err.message})`);
  }
  const m = mod.rewardModule as Partial<RewardComponentModule> | undefined;
  if (!m || typeof m.create !== 'function' || typeof (m.options as { safeParse?: unknown } | undefined)?.safeParse !== 'function') {
    throw new RewardUnavailableError(kind, `core/rewards/${path.slice(2).replace(/\.js$/, '.ts')} does not export rewardModule = { options: zod schema, create(options, ctx) }`);
  }
  return m as RewardComponentModule;
}
