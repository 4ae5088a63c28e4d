import { z } from 'zod';
import type { PolicyModel } from '../policy/builtin.js';
import { Adam, type ScorerNetwork } from '../policy/network.js';
import { issueLines } from '../util/zod-issues.js';
import { assertNever } from '../util/errors.js';
import { createRng } from '../util/rng.js';
import type { Demonstration } from './demonstrations.js';
import { scorerParameters, type TrainedScorer } from './trained-scorer.js';
import { PLAIN_ISSUES } from '../util/plain-issues.js';

/**
 * Supervised fine-tuning (behaviour cloning) of the builtin policy on demonstrations (demonstrations.ts):
 * every seed paper warm-starts with SFT before RL (digest 003 MobileRL §3.1 "reasoning-free SFT";
 * digest 004 AW-Gen §4 SFT baseline). Loss per step: −log π(a* | s), a* the demonstrated action,
 * averaged over a minibatch. A whole run from a config (demonstrations, model, checkpoint) is
 * train-sft.ts runSft.
 */
export const SftConfigSchema = z.strictObject({
  epochs: z.int().min(1).max(10_000).default(30).describe('Passes over the demonstrations (default 30)'),
  batchSize: z.int().min(1).max(100_000).default(32).describe('Steps per minibatch (default 32)'),
  lr: z.number().positive().max(1).default(1e-2).describe('Adam learning rate (default 1e-2: the scorer is small and the data few)'),
  weightDecay: z.number().min(0).max(1).default(0).describe('Decoupled (AdamW) weight decay (default 0)'),
  maxGradNorm: z.number().min(0).default(1).describe('Clip the global gradient norm to this, 0 = off (default 1, as TRL)'),
  seed: z.int().nonnegative().default(0).describe('Seed for minibatch shuffling'),
});
export type SftConfig = z.infer<typeof SftConfigSchema>;

export class SftConfigError extends Error {
  override name = 'SftConfigError';
  constructor(readonly input: unknown, readonly problems: string[]) {
    super(`Invalid SFT config: ${problems.join('; ')}`);
  }
}

export function parseSftConfig(input: unknown): SftConfig {
  const r = SftConfigSchema.safeParse(input ?? {}, PLAIN_ISSUES);
  if (!r.success) throw new SftConfigError(input, issueLines(r.error.issues, { root: '(root)' }));
  return r.data;
}

export interface SftEpochMetrics {
  epoch: number;
  /** Mean −log π(a*) over the epoch's steps. */
  'loss/nll': number;
  /** Fraction of steps whose highest-scoring candidate is the oracle's. */
  'acc/top1': number;
  /** Mean gradient norm before clipping. */
  'grad/norm': number;
  steps: number;
}

export class NonFiniteLossError extends Error {
  override name = 'NonFiniteLossError';
  constructor(readonly epoch: number, readonly value: number) {
    super(`SFT loss became ${value} in epoch ${epoch}; stopping (the parameters before this minibatch are kept)`);
  }
}

/**
 * One epoch's log line: mean NLL and gradient norm from the epoch's sums, and the top-1 agreement
 * with the demonstrations under the epoch's final parameters (`net` scores the demonstrations).
 */
export function sftEpochMetrics(
  net: Pick<ScorerNetwork, 'scores'>, demos: readonly Demonstration[], sums: { epoch: number; nll: number; gradNorm: number; batches: number },
): SftEpochMetrics {
  let correct = 0;
  for (const d of demos) {
    const s = net.scores(d.features, d.n);
    let best = 0;
    for (let j = 1; j < d.n; j++) if (s[j]! > s[best]!) best = j;
    if (best === d.chosen) correct++;
  }
  return {
    epoch: sums.epoch,
    'loss/nll': demos.length ? sums.nll / demos.length : 0,
    'acc/top1': demos.length ? correct / demos.length : 0,
    'grad/norm': sums.batches ? sums.gradNorm / sums.batches : 0,
    steps: demos.length,
  };
}

/** Per-epoch SFT metrics as a training run stores them (its iterations are epochs), and as the Training view charts them. */
export const SFT_METRIC = { nll: 'loss/nll', top1: 'acc/top1', gradNorm: 'grad/norm', steps: 'batch/steps', epochS: 'perf/epoch_s' } as const;

/** One epoch's row of a training run: its metrics under SFT_METRIC, with the epoch's seconds. */
export function storedSftMetrics(m: SftEpochMetrics, epochS: number): Record<string, number> {
  return {
    [SFT_METRIC.nll]: m['loss/nll'], [SFT_METRIC.top1]: m['acc/top1'], [SFT_METRIC.gradNorm]: m['grad/norm'],
    [SFT_METRIC.steps]: m.steps, [SFT_METRIC.epochS]: epochS,
  };
}

export interface BehaviourCloneHooks {
  /** After each epoch, with its metrics under the epoch's final parameters. */
  onEpoch?: (m: SftEpochMetrics) => void;
  /** Stops before the next epoch. */
  signal?: AbortSignal;
}

/** The shuffling seed of each target: the keys the two trainers have always used, so runs repeat. */
function shuffleKey(target: TrainedScorer, seed: number): string {
  switch (target.kind) {
    case 'network': return `sft/${seed}`;
    case 'adapter': return `adapt-sft/${seed}`;
    default: return assertNever(target, 'trained scorer');
  }
}

/**
 * Behaviour cloning: minimises mean −log π(a*|s) with Adam over shuffled minibatches, of the whole
 * network or of an adapter over its frozen base (trained-scorer.ts; an adapter's minibatch merges
 * θ_base + Δ(φ) once, back-propagates every step into the merged network, then projects onto φ).
 */
export function behaviourClone(target: TrainedScorer, demos: readonly Demonstration[], config: SftConfig, hooks: BehaviourCloneHooks = {}): SftEpochMetrics[] {
  const scorer = scorerParameters(target);
  const adam = new Adam(scorer.params.length, { lr: config.lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: config.weightDecay, maxGradNorm: config.maxGradNorm });
  const rng = createRng(shuffleKey(target, config.seed));
  const history: SftEpochMetrics[] = [];
  for (let epoch = 1; epoch <= config.epochs && !hooks.signal?.aborted; epoch++) {
    const order = rng.shuffle(demos.map((_, i) => i));
    let nll = 0;
    let gradNorm = 0;
    let batches = 0;
    for (let b = 0; b < order.length; b += config.batchSize) {
      // update: accumulate d(−mean log π)/dθ over the minibatch, then one Adam step
      const mb = order.slice(b, b + config.batchSize);
      const net = scorer.current();
      net.zeroGrad();
      let mbNll = 0;
      for (const i of mb) {
        const d = demos[i]!;
        mbNll -= net.accumulateLogProb(d.features, d.n, d.chosen, -1 / mb.length);
      }
      // Nothing has been stepped yet: the parameters are still those before this minibatch.
      if (!Number.isFinite(mbNll)) throw new NonFiniteLossError(epoch, mbNll);
      gradNorm += adam.step(scorer.params, scorer.gradients());
      nll += mbNll;
      batches++;
    }
    // log with the epoch's final parameters
    const m = sftEpochMetrics(scorer.current(), demos, { epoch, nll, gradNorm, batches });
    history.push(m);
    hooks.onEpoch?.(m);
  }
  return history;
}

/** Behaviour cloning of the builtin policy's whole network (behaviourClone). */
export function trainSft(model: PolicyModel, demos: readonly Demonstration[], config: SftConfig, onEpoch?: (m: SftEpochMetrics) => void): SftEpochMetrics[] {
  return behaviourClone({ kind: 'network', net: model.net }, demos, config, onEpoch ? { onEpoch } : {});
}
