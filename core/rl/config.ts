import { z } from 'zod';
import { RewardComponentConfig } from '../rewards/compose.js';
import { PARTS, SPLITS } from '../tasks/splits.js';
import { WorkbenchError } from '../util/errors.js';
import type { ShortestPathOptions } from '../rewards/shortest-path.js';
import type { FailureCurriculumOptions, PositiveReplayOptions } from './adagrpo.js';
import { REWARD_CREDITS } from './credit.js';
import type { CurriculumOptions } from './curriculum.js';
import type { AdvantageOptions, BatchLossOptions } from './grpo.js';
import { issueLines } from '../util/zod-issues.js';
import { PLAIN_ISSUES } from '../util/plain-issues.js';
import { RaySettingsSchema } from '../rollout/ray-settings.js';

/**
 * One typed config for a GRPO / AdaGRPO training run: the single source for validation, defaults,
 * `awb train --help` (trainConfigHelp) and the persisted run config. Every default names its source;
 * digests: 003 MobileRL, 004 AW-Gen, 000 ADMIRE (shared/research/digests). docs/rl.md explains the choices.
 */

const Advantage = z.strictObject({
  mode: z.enum(['trajectory', 'step']).default('trajectory')
    .describe("'trajectory': group-normalised episode reward broadcast to every step (AW-Gen Eq. 3, MobileRL Eq. 2); 'step': z-score over all steps of a group (ADMIRE Eq. 13)"),
  scale: z.enum(['group', 'batch', 'none']).default('group')
    .describe("Divide the centred reward by the group's std (GRPO), the batch's std (TRL scale_rewards='batch') or nothing (Dr. GRPO)"),
  std: z.enum(['sample', 'population']).default('sample')
    .describe('Std estimator: sample (n − 1, torch.std as in TRL and MobileRL code) or population (n); the papers do not say'),
  eps: z.number().min(0).max(1).default(1e-4).describe('Added to the std in the denominator (TRL 1e-4; MobileRL code 1e-6)'),
  zeroStdGroups: z.enum(['skip', 'keep']).default('skip')
    .describe("Groups whose rewards are all equal: 'skip' leaves them out of the loss (MobileRL mute_uid_all_zero_reward, DAPO), 'keep' trains on them with advantage 0 (TRL)"),
});

const Loss = z.strictObject({
  clipEps: z.number().gt(0).lt(1).default(0.2).describe('PPO clip ε (MobileRL Table 2 and ADMIRE: 0.2; AW-Gen does not say)'),
  clipEpsHigh: z.number().gt(0).lt(10).nullable().default(null).describe('Upper clip ε_high (DAPO clip-higher, e.g. 0.28); none = clipEps'),
  klBeta: z.number().min(0).default(0.05)
    .describe('KL coefficient β, k3 estimator to the frozen starting policy (AW-Gen App. J 0.05; MobileRL 0.001; ADMIRE AndroidWorld 0)'),
  aggregation: z.enum(['step-mean', 'episode-mean', 'constant']).default('step-mean')
    .describe("Loss average: over all steps (AW-Gen Eq. 1, ADMIRE Eq. 12), per episode then over episodes (MobileRL reconstruction), or sum / (episodes × maxSteps) (Dr. GRPO)"),
  maxLogRatio: z.number().gt(0).max(50).default(20).describe('Clamp on |log π_θ − log π_old| and the KL log-ratio before exp (verl: 20)'),
});

const Optimizer = z.strictObject({
  learningRate: z.number().gt(0).max(1).default(1e-3)
    .describe('Adam learning rate. The papers use 1e-6 for 7B VLMs (AW-Gen App. J, MobileRL); the builtin policy is a small network, so the default is ours'),
  warmupFraction: z.number().min(0).max(1).default(0.05).describe('Linear warmup over this share of iterations, then constant (AW-Gen App. J: 5%)'),
  epochs: z.int().min(1).max(100).default(1).describe('Passes over each iteration’s batch (MobileRL Table 2 PPO epochs: 1)'),
  minibatchSize: z.int().min(1).default(128).describe('Steps per gradient update (ADMIRE App. A.1.2: 128)'),
  maxGradNorm: z.number().gt(0).nullable().default(1).describe('Clip the global gradient norm (TRL/verl default 1.0); none = no clipping'),
});

const ShortestPath = z.strictObject({
  enabled: z.boolean().default(false).describe('SPA: shrink the reward of longer successes relative to the shortest success of the group (MobileRL §2.3)'),
  alpha: z.number().min(0).max(2).default(1).describe('Penalty strength α in r − α(T − T_min)/(2T) (MobileRL Table 2: 1.0); ≤ 2 keeps successes above failures'),
});

const PositiveReplay = z.strictObject({
  enabled: z.boolean().default(false).describe('AdaPR: replay successful high-advantage episodes alongside fresh ones (MobileRL §2.5)'),
  capacity: z.int().min(1).default(256).describe('Most episodes in the replay buffer (MobileRL Table 2: 256)'),
  topFraction: z.number().gt(0).max(1).default(0.25).describe('Share of each batch inserted, best advantage first, successes only (MobileRL Table 2: 0.25)'),
  replayRatio: z.number().min(0).max(10).default(1).describe('Replayed episodes per fresh episode, at most (MobileRL Table 2: 1.0)'),
  maxAge: z.int().min(1).default(4).describe('Iterations an entry stays in the buffer (MobileRL code max_age_steps: 4)'),
  balance: z.number().min(0).max(1).default(0.5).describe('Eviction score weight of advantage vs recency (MobileRL code balance_alpha: 0.5)'),
  weighting: z.enum(['difficulty', 'top-advantage']).default('difficulty')
    .describe("Which entries are replayed: drawn ∝ 1 − group success rate ('difficulty'), or the best advantages (MobileRL code)"),
  negativeRatio: z.number().min(0).nullable().default(2)
    .describe('Keep at most this many failed episodes per success in a group (MobileRL: 1:2); none = keep all'),
});

const FailureCurriculum = z.strictObject({
  enabled: z.boolean().default(false).describe('FCF: down-weight tasks that keep failing in every rollout, then re-try them (MobileRL §2.6)'),
  failStreak: z.int().min(1).default(2).describe('Consecutive all-zero iterations that start a cooldown (MobileRL: two)'),
  cooldown: z.int().min(1).default(3).describe('Iterations of reduced sampling weight exp(−f) (MobileRL: three; weight from its code)'),
  removeAfter: z.int().min(1).nullable().default(6).describe('Consecutive all-zero iterations that remove a task for good (MobileRL: unstated; ours); none = never'),
});

const AdaGrpo = z.strictObject({
  shortestPath: ShortestPath.prefault({}).describe('Shortest-path reward adjustment'),
  positiveReplay: PositiveReplay.prefault({}).describe('Difficulty-adaptive positive replay'),
  failureCurriculum: FailureCurriculum.prefault({}).describe('Failure curriculum filtering'),
});

const Curriculum = z.strictObject({
  mode: z.enum(['iterations', 'success', 'none']).default('iterations')
    .describe("Easy → Easy+Medium → All (AW-Gen §4.1): switch at fixed shares of the run, when training success reaches a threshold, or 'none' (all difficulties)"),
  stageAt: z.tuple([z.number().min(0).max(1), z.number().min(0).max(1)]).default([1 / 3, 2 / 3])
    .describe("'iterations': shares of the run at which stages 2 and 3 start (AW-Gen: only in its Fig. 3; ours)"),
  threshold: z.number().min(0).max(1).default(0.6).describe("'success': mean training success rate that advances a stage (ours)"),
  window: z.int().min(1).default(5).describe("'success': iterations averaged for the threshold (ours)"),
});

const Rewards = z.strictObject({
  components: z.array(RewardComponentConfig).min(1).nullable().default(null)
    .describe("Composed per-step reward, e.g. [{kind:'outcome',weight:1,options:{placement:'every'}},{kind:'format',weight:1},{kind:'admire',weight:1}] (docs/rewards.md); none = the checker's binary outcome (AW-Gen, MobileRL)"),
  credit: z.enum(REWARD_CREDITS).default('episode-sum')
    .describe("How step rewards are credited: 'episode-sum' Σ_t r_t per episode (either advantage.mode); 'step' each step's own r_t (ADMIRE Eq. 13) or 'return-to-go' Σ γ^k r_{t+k} (ProgRM), both with advantage.mode 'step'"),
  gamma: z.number().min(0).max(1).default(0.9).describe("Discount γ of 'return-to-go' (ProgRM Table 6: 0.9)"),
});

const Recording = z.strictObject({
  keepEvery: z.int().min(1).default(1)
    .describe('Recorded rollouts (the workbench, --record-episodes): keep every rollout of each k-th iteration and of the last; 1 = all (ours; BENCHMARKS.md measures the growth)'),
  keepSuccesses: z.boolean().default(true).describe('Of the other iterations, keep the successful rollouts (ours)'),
  screenshots: z.enum(['none', 'half', 'full']).default('none')
    .describe("Screenshots of recorded rollouts: 'none' (trees and actions; no cost), 'half' resolution (enough to see what happened) or 'full'; rendering them slows rollouts several times (BENCHMARKS.md)"),
});

export const TrainConfigSchema = z.strictObject({
  split: z.enum(SPLITS).default('unseen-instance').describe('Generalization regime whose training part is sampled (AW-Gen §3)'),
  part: z.enum(PARTS).default('train').describe("Part of the split to train on ('adapt' for few-shot per-app adaptation)"),
  seed: z.int().min(0).default(0).describe('Seeds task sampling, rollouts and minibatch order'),
  init: z.string().min(1).nullable().default(null).describe('Checkpoint to start from (and the frozen KL reference), e.g. the SFT warm start; none = a fresh policy'),
  iterations: z.int().min(1).default(500).describe('GRPO iterations (rollout + update) (AW-Gen regime runs: 500)'),
  instancesPerIteration: z.int().min(1).default(2).describe('Task instances rolled out per iteration (AW-Gen App. J: 2)'),
  rolloutsPerInstance: z.int().min(2).default(8).describe('Group size G: episodes per task instance (AW-Gen: 8; MobileRL: 16)'),
  maxSteps: z.int().min(1).max(200).default(20).describe('Step budget per episode (AW-Gen App. J: 20; MobileRL: 50)'),
  temperature: z.number().gt(0).max(10).default(1).describe('Rollout sampling temperature (AW-Gen and MobileRL: 1.0)'),
  devices: z.int().min(1).max(64).default(16).describe('Parallel simulated devices for rollouts (AW-Gen: 16 environments)'),
  rolloutWorkers: z.union([z.literal('auto'), z.int().min(0).max(64)], { error: (i) => `expected 'auto' or an integer from 0 to 64, got ${JSON.stringify(i.input)}` }).default('auto')
    .describe("Worker threads for rollouts, each driving one SimDroid: 'auto' = min(devices, CPU cores), in-process when that is 1; 0 = in-process (the devices interleave in the training thread); N ≤ devices = N workers. Results are identical either way (ours)"),
  ray: RaySettingsSchema.prefault({}).describe('Rollouts on a Ray cluster instead of this machine (docs/ray.md): ray.envs SimDroids there take the place of devices and rolloutWorkers'),
  checkpointEvery: z.int().min(1).default(25).describe('Iterations between checkpoints (ours)'),
  advantage: Advantage.prefault({}).describe('Advantage estimation'),
  loss: Loss.prefault({}).describe('Policy loss'),
  optimizer: Optimizer.prefault({}).describe('Optimisation'),
  adagrpo: AdaGrpo.prefault({}).describe('AdaGRPO switches (MobileRL); all off = plain GRPO'),
  curriculum: Curriculum.prefault({}).describe('Difficulty curriculum (AW-Gen)'),
  rewards: Rewards.prefault({}).describe('Reward components (issue 7): outcome, format, ADMIRE, ProgRM, GUI-Shepherd'),
  recording: Recording.prefault({}).describe('What is kept of the recorded rollouts (browsable in Trajectories)'),
});

/** A validated run config (all defaults filled). */
export type TrainConfig = z.infer<typeof TrainConfigSchema>;
/** What a config file may contain (every field optional). */
export type TrainConfigInput = z.input<typeof TrainConfigSchema>;

export class TrainConfigError extends WorkbenchError {
  override name = 'TrainConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid training config (${problems.length} problem${problems.length === 1 ? '' : 's'}):\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Checks across fields (run once the fields themselves are valid). */
function crossFieldProblems(c: TrainConfig): string[] {
  const problems: string[] = [];
  if (c.loss.clipEpsHigh !== null && c.loss.clipEpsHigh < c.loss.clipEps) {
    problems.push(`loss.clipEpsHigh: must be ≥ loss.clipEps (${c.loss.clipEps}), got ${c.loss.clipEpsHigh}`);
  }
  if (c.curriculum.stageAt[0] > c.curriculum.stageAt[1]) {
    problems.push(`curriculum.stageAt: stage 2 must start no later than stage 3, got ${JSON.stringify(c.curriculum.stageAt)}`);
  }
  if (typeof c.rolloutWorkers === 'number' && c.rolloutWorkers > c.devices) {
    problems.push(`rolloutWorkers: each worker drives one of the devices, so at most devices (${c.devices}), got ${c.rolloutWorkers}`);
  }
  const r = c.rewards;
  if (r.components === null && r.credit !== 'episode-sum') {
    problems.push(`rewards.credit: '${r.credit}' needs rewards.components (the checker's outcome alone is one value per episode)`);
  }
  if (r.components !== null) {
    if (r.credit !== 'episode-sum' && c.advantage.mode !== 'step') {
      problems.push(`rewards.credit: '${r.credit}' gives every step its own value, so it needs advantage.mode 'step', got '${c.advantage.mode}'`);
    }
    r.components.forEach((k, i) => {
      if (k.kind === 'shortest-path') {
        problems.push(`rewards.components.${i}: the shortest-path component compares an episode with its group; in training use adagrpo.shortestPath (it adjusts the composed reward the same way)`);
      }
    });
    const seen = new Map<string, number>();
    r.components.forEach((k, i) => {
      const first = seen.get(k.kind);
      if (first !== undefined) problems.push(`rewards.components.${i}.kind: ${k.kind} is already rewards.components[${first}]`);
      else seen.set(k.kind, i);
    });
  }
  const fcf = c.adagrpo.failureCurriculum;
  if (fcf.removeAfter !== null && fcf.removeAfter < fcf.failStreak) {
    problems.push(`adagrpo.failureCurriculum.removeAfter: must be ≥ failStreak (${fcf.failStreak}), got ${fcf.removeAfter}`);
  }
  return problems;
}

/**
 * Validates a training config (an object, or JSON text) and fills defaults. Throws TrainConfigError
 * listing every problem (field path and message), never just the first.
 */
export function parseTrainConfig(input: unknown): TrainConfig {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (e) {
      throw new TrainConfigError([`not JSON: ${(e as Error).message}`]);
    }
  }
  const r = TrainConfigSchema.safeParse(value ?? {}, PLAIN_ISSUES);
  if (!r.success) throw new TrainConfigError(issueLines(r.error.issues, { root: '(config)' }));
  const problems = crossFieldProblems(r.data);
  if (problems.length) throw new TrainConfigError(problems);
  return r.data;
}

export function defaultTrainConfig(): TrainConfig {
  return parseTrainConfig({});
}

// ---------------------------------------------------------------------------------------------
// views for the algorithm modules (derived at runtime)

export function advantageOptions(c: TrainConfig): AdvantageOptions {
  const { scale, std, eps, zeroStdGroups } = c.advantage;
  return { scale, std, eps, zeroStdGroups };
}

export function lossOptions(c: TrainConfig): BatchLossOptions {
  const { clipEps, clipEpsHigh, klBeta, aggregation, maxLogRatio } = c.loss;
  return { clipEps, klBeta, aggregation, maxLogRatio, maxSteps: c.maxSteps, ...(clipEpsHigh === null ? {} : { clipEpsHigh }) };
}

export function curriculumOptions(c: TrainConfig): CurriculumOptions {
  const { mode, stageAt, threshold, window } = c.curriculum;
  if (mode === 'iterations') return { mode, stageAt };
  if (mode === 'success') return { mode, threshold, window };
  return { mode };
}

export function shortestPathOptions(c: TrainConfig): ShortestPathOptions {
  return { alpha: c.adagrpo.shortestPath.alpha, successReward: 1 };
}

export function positiveReplayOptions(c: TrainConfig): PositiveReplayOptions {
  const { capacity, topFraction, replayRatio, maxAge, balance, weighting } = c.adagrpo.positiveReplay;
  return { capacity, topFraction, replayRatio, maxAge, balance, weighting };
}

export function failureCurriculumOptions(c: TrainConfig): FailureCurriculumOptions {
  const { failStreak, cooldown, removeAfter } = c.adagrpo.failureCurriculum;
  return { failStreak, cooldown, removeAfter };
}

/** The MobileRL ablation rows (its Table/Fig. of AdaGRPO components): which AdaGRPO switches are on. */
export const ADAGRPO_ABLATIONS = {
  adagrpo: { shortestPath: true, positiveReplay: true, failureCurriculum: true },
  'no-shortest-path': { shortestPath: false, positiveReplay: true, failureCurriculum: true },
  'no-replay': { shortestPath: true, positiveReplay: false, failureCurriculum: true },
  'no-failure-curriculum': { shortestPath: true, positiveReplay: true, failureCurriculum: false },
  grpo: { shortestPath: false, positiveReplay: false, failureCurriculum: false },
} as const satisfies Record<string, Record<keyof TrainConfig['adagrpo'], boolean>>;
export type AdaGrpoAblation = keyof typeof ADAGRPO_ABLATIONS;

/** The config with one ablation row's switches applied (other AdaGRPO settings unchanged). */
export function withAblation(c: TrainConfig, ablation: AdaGrpoAblation): TrainConfig {
  const on = ADAGRPO_ABLATIONS[ablation];
  const a = c.adagrpo;
  return {
    ...c,
    adagrpo: {
      shortestPath: { ...a.shortestPath, enabled: on.shortestPath },
      positiveReplay: { ...a.positiveReplay, enabled: on.positiveReplay },
      failureCurriculum: { ...a.failureCurriculum, enabled: on.failureCurriculum },
    },
  };
}

// ---------------------------------------------------------------------------------------------
// help text

type JsonSchema = { type?: string | string[]; enum?: unknown[]; const?: unknown; description?: string; properties?: Record<string, JsonSchema>; anyOf?: JsonSchema[] };

/** One leaf field of the config: dotted path, default, accepted values and description. */
export interface TrainConfigField {
  path: string;
  default: unknown;
  /** 'a | b' for choices, else the JSON type. */
  accepts: string;
  description: string;
}

/** Every leaf field in schema order (derived from the schema's JSON Schema, so nothing is described twice). */
export function trainConfigFields(): TrainConfigField[] {
  const defaults = defaultTrainConfig() as unknown as Record<string, unknown>;
  const out: TrainConfigField[] = [];
  const walk = (props: Record<string, JsonSchema>, prefix: string, defs: Record<string, unknown>) => {
    for (const [key, s] of Object.entries(props)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (s.properties) {
        walk(s.properties, path, defs[key] as Record<string, unknown>);
        continue;
      }
      const alts = s.anyOf ?? [s];
      const types = alts.flatMap((a) => ([] as string[]).concat(a.type ?? []));
      // Each alternative reads as its values when it has some ('auto'), else as its type ('integer').
      const accepts = alts.flatMap((a) => a.enum ?? (a.const !== undefined ? [a.const] : ([] as unknown[]).concat(a.type ?? []).filter((t) => t !== 'null')))
        .join(' | ') || 'value';
      out.push({ path, default: defs[key], accepts: types.includes('null') ? `${accepts} | null` : accepts, description: s.description ?? '' });
    }
  };
  walk((z.toJSONSchema(TrainConfigSchema, { io: 'input' }) as { properties: Record<string, JsonSchema> }).properties, '', defaults);
  return out;
}

function formatDefault(v: unknown): string {
  if (typeof v === 'number') return String(Number(v.toPrecision(4)));
  if (Array.isArray(v)) return `[${v.map(formatDefault).join(', ')}]`;
  return v === null ? 'none' : String(v);
}

/** The schema as help text for `awb train --help`: one block per field with its default and description. */
export function trainConfigHelp(): string {
  return trainConfigFields()
    .map((f) => `  ${f.path}  (${f.accepts}; default ${formatDefault(f.default)})\n      ${f.description}`)
    .join('\n');
}
