import { z } from 'zod';
import { ADAPTER_KINDS, MAX_ADAPTER_RANK } from '../policy/adapter.js';
import { HOME_MODES } from '../policy/adapter-policy.js';
import { WorkbenchError } from '../util/errors.js';
import { RaySettingsSchema } from '../rollout/ray-settings.js';
import { TrainConfigSchema } from './config.js';
import type { AdvantageOptions, BatchLossOptions } from './grpo.js';
import { SftConfigSchema } from './sft.js';
import { issueLines } from '../util/zod-issues.js';
import { PLAIN_ISSUES } from '../util/plain-issues.js';

/**
 * The hyper-parameters of one per-app adaptation (docs/adaptation.md): what is adapted, how many
 * shots, and the SFT and GRPO settings. One zod schema, the single source of defaults and help.
 * The advantage and loss sections are the training run's own (core/rl/config.ts), so the two agree.
 */
export const ADAPT_METHODS = ['grpo', 'sft', 'sft+grpo'] as const;
export type AdaptMethod = (typeof ADAPT_METHODS)[number];

export const AdaptGrpoConfigSchema = z.strictObject({
  iterations: z.int().min(1).max(100_000).default(50).describe('GRPO iterations on the shots (AW-Gen §5.1 Q3: 50 more RL steps)'),
  instancesPerIteration: z.int().min(1).default(2)
    .describe('Shots rolled out per iteration, cycling through all shots (AW-Gen App. J: 2; the paper does not say it changed for adaptation)'),
  rolloutsPerInstance: z.int().min(2).default(8).describe('Group size G (AW-Gen: 8)'),
  maxSteps: z.int().min(1).max(200).default(20).describe('Step budget per episode (AW-Gen App. J: 20)'),
  temperature: z.number().gt(0).max(10).default(1).describe('Rollout sampling temperature (AW-Gen: 1.0)'),
  learningRate: z.number().gt(0).max(1).default(1e-2)
    .describe('Adam learning rate of the adapter (ours: the adapter is small and starts at zero; the base run uses 1e-3)'),
  warmupFraction: z.number().min(0).max(1).default(0.05).describe('Linear warmup share of the iterations (AW-Gen App. J: 5%)'),
  epochs: z.int().min(1).max(100).default(1).describe('Passes over each iteration’s batch (MobileRL Table 2: 1)'),
  minibatchSize: z.int().min(1).default(128).describe('Steps per gradient update (ADMIRE App. A.1.2: 128)'),
  maxGradNorm: z.number().gt(0).nullable().default(1).describe('Clip the adapter gradient norm (TRL/verl: 1.0); none = no clipping'),
  devices: z.int().min(1).max(64).default(4)
    .describe('SimDroids for the rollouts, the demonstrations and the before/after evaluation when none are given (ours: SimDroid interleaves in one thread)'),
  rolloutWorkers: TrainConfigSchema.shape.rolloutWorkers
    .describe("Worker threads for the GRPO rollouts, each driving one SimDroid: 'auto' = min(grpo.devices, CPU cores), in-process when that is 1; 0 = in-process on grpo.devices; N ≤ grpo.devices = N workers. The adapter is the same either way (ours)"),
  advantage: TrainConfigSchema.shape.advantage,
  loss: TrainConfigSchema.shape.loss,
});
export type AdaptGrpoConfig = z.infer<typeof AdaptGrpoConfigSchema>;

/**
 * core/rl/sft.ts's fields with adaptation defaults: 8 shots give 30–60 app steps, so sft.ts's 30
 * epochs of batch 32 (about 60 Adam steps) leave a low-rank adapter at 60–70% top-1 on its own
 * demonstrations; 60 epochs of batch 16 at 3e-2 reach 90–100% (ours, docs/adaptation.md).
 */
export const AdaptSftConfigSchema = SftConfigSchema.extend({
  epochs: z.int().min(1).max(10_000).default(60).describe('Passes over the demonstrations (default 60)'),
  batchSize: z.int().min(1).max(100_000).default(16).describe('Steps per minibatch (default 16)'),
  lr: z.number().positive().max(1).default(3e-2).describe('Adam learning rate of the adapter (default 3e-2)'),
});

export const AdaptConfigSchema = z.strictObject({
  shots: z.int().min(1).max(1000).default(8).describe('Adaptation instances of the app (AW-Gen §5.1 Q3: 8 per unseen app)'),
  method: z.enum(ADAPT_METHODS).default('grpo')
    .describe("'grpo': RL with the checker's reward on the shots (the paper); 'sft': behaviour cloning of demonstrations; 'sft+grpo': SFT then GRPO"),
  kind: z.enum(ADAPTER_KINDS).default('lowrank').describe("'lowrank': ΔW1 = A·B plus head deltas (LoRA-style); 'head': deltas on b1, w2, wl only"),
  rank: z.int().min(1).max(MAX_ADAPTER_RANK).default(4).describe('Rank r of ΔW1 for a low-rank adapter (ours; LoRA commonly uses 4–8)'),
  home: z.enum(HOME_MODES).default('task-app')
    .describe("What scores the home screen: 'task-app' the adapter of the task's app (AW-Gen evaluates each app with its own model), 'base' the base (foreground package only)"),
  seed: z.int().min(0).default(0).describe('Seeds the choice of shots, the adapter initialisation, rollouts and minibatch order'),
  sft: AdaptSftConfigSchema.prefault({}).describe('SFT of the adapter (behaviour cloning, core/rl/sft.ts loss)'),
  grpo: AdaptGrpoConfigSchema.prefault({}).describe('GRPO of the adapter'),
  ray: RaySettingsSchema.prefault({})
    .describe('GRPO rollouts on a Ray cluster instead of this machine (docs/ray.md): ray.envs SimDroids there take the place of grpo.rolloutWorkers; the demonstrations and the before/after evaluation stay here'),
  recording: TrainConfigSchema.shape.recording
    .describe('What is kept of the recorded GRPO rollouts on the shots, and the screenshots of those and of the before/after episodes (browsable in Trajectories)'),
});
export type AdaptConfig = z.infer<typeof AdaptConfigSchema>;
export type AdaptConfigInput = z.input<typeof AdaptConfigSchema>;

export class AdaptConfigError extends WorkbenchError {
  override name = 'AdaptConfigError';
  constructor(readonly problems: string[]) {
    super(`Invalid adaptation config:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

/** Validates and fills defaults, listing every problem. */
export function parseAdaptConfig(input: unknown): AdaptConfig {
  const r = AdaptConfigSchema.safeParse(input ?? {}, PLAIN_ISSUES);
  if (!r.success) throw new AdaptConfigError(issueLines(r.error.issues, { root: '(config)' }));
  const c = r.data;
  const problems: string[] = [];
  if (c.grpo.loss.clipEpsHigh !== null && c.grpo.loss.clipEpsHigh < c.grpo.loss.clipEps) {
    problems.push(`grpo.loss.clipEpsHigh: must be ≥ grpo.loss.clipEps (${c.grpo.loss.clipEps}), got ${c.grpo.loss.clipEpsHigh}`);
  }
  if (typeof c.grpo.rolloutWorkers === 'number' && c.grpo.rolloutWorkers > c.grpo.devices) {
    problems.push(`grpo.rolloutWorkers: each worker drives one of the devices, so at most grpo.devices (${c.grpo.devices}), got ${c.grpo.rolloutWorkers}`);
  }
  if (problems.length) throw new AdaptConfigError(problems);
  return c;
}

export function adaptAdvantageOptions(c: AdaptGrpoConfig): AdvantageOptions {
  const { scale, std, eps, zeroStdGroups } = c.advantage;
  return { scale, std, eps, zeroStdGroups };
}

export function adaptLossOptions(c: AdaptGrpoConfig): BatchLossOptions {
  const { clipEps, clipEpsHigh, klBeta, aggregation, maxLogRatio } = c.loss;
  return { clipEps, klBeta, aggregation, maxLogRatio, maxSteps: c.maxSteps, ...(clipEpsHigh === null ? {} : { clipEpsHigh }) };
}

/** Linear warmup over ⌈warmupFraction · iterations⌉ iterations, then constant (AW-Gen App. J). */
export function adaptLearningRate(c: AdaptGrpoConfig, iteration0: number): number {
  const warm = Math.ceil(c.warmupFraction * c.iterations);
  return c.learningRate * (warm > 0 ? Math.min(1, (iteration0 + 1) / warm) : 1);
}
