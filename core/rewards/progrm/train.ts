import { z } from 'zod';
import { Adam } from '../../policy/network.js';
import { createRng } from '../../util/rng.js';
import { WorkbenchError } from '../../util/errors.js';
import type { AnnotatedEpisode } from './annotate.js';
import { episodeFeatures, type ProgressModel } from './model.js';
import { issueLines } from '../../util/zod-issues.js';

/**
 * Training the progress model with BCE on soft labels (ProgRM Eq. 5):
 *   L(θ) = E_i [ −p*_i log p̂_i − (1 − p*_i) log(1 − p̂_i) ]
 * One sample per state: the initial state (label 0) and the state after every step (its label).
 * Adam with (β1, β2) = (0.9, 0.95) as the paper's Table 5; the learning rate is ours (a small MLP
 * from scratch, not a 7B model fine-tuned at 5e-5).
 */
export const ProgressTrainConfigSchema = z.strictObject({
  epochs: z.int().min(1).max(10_000).default(60).describe('Passes over the samples (default 60; paper: 3 over 113k samples)'),
  batchSize: z.int().min(1).max(100_000).default(32).describe('Samples per minibatch (default 32; paper 128)'),
  lr: z.number().positive().max(1).default(3e-3).describe('Adam learning rate (default 3e-3)'),
  weightDecay: z.number().min(0).max(1).default(0).describe('Decoupled (AdamW) weight decay (default 0)'),
  seed: z.int().nonnegative().default(0).describe('Seed for minibatch shuffling'),
});
export type ProgressTrainConfig = z.infer<typeof ProgressTrainConfigSchema>;

export class ProgressTrainConfigError extends WorkbenchError {
  override name = 'ProgressTrainConfigError';
  constructor(readonly input: unknown, readonly problems: string[]) {
    super(`Invalid ProgRM training config: ${problems.join('; ')} (got ${JSON.stringify(input)})`);
  }
}

export function parseProgressTrainConfig(input: unknown): ProgressTrainConfig {
  const r = ProgressTrainConfigSchema.safeParse(input ?? {});
  if (!r.success) throw new ProgressTrainConfigError(input, issueLines(r.error.issues, { root: '(root)' }));
  return r.data;
}

export interface ProgressSample {
  x: Float32Array;
  y: number;
}

/** The samples of labelled episodes: state −1 with label 0, then state t with labels[t]. */
export function progressSamples(model: ProgressModel, annotated: readonly AnnotatedEpisode[]): ProgressSample[] {
  const out: ProgressSample[] = [];
  for (const a of annotated) {
    const rows = episodeFeatures(model.encoder, a.episode);
    rows.forEach((x, r) => out.push({ x, y: r === 0 ? 0 : a.labels[r - 1]! }));
  }
  return out;
}

export interface ProgressEpochMetrics {
  epoch: number;
  'loss/bce': number;
  /** Mean |p̂ − p*| over the epoch's samples (before each minibatch's update). */
  'err/mae': number;
  'grad/norm': number;
}

export class ProgressDivergedError extends WorkbenchError {
  override name = 'ProgressDivergedError';
  constructor(readonly epoch: number, readonly value: number) {
    super(`ProgRM training loss became ${value} in epoch ${epoch}`);
  }
}

/** Minimises the mean BCE with Adam over shuffled minibatches; returns one metrics row per epoch. */
export function trainProgressModel(
  model: ProgressModel, samples: readonly ProgressSample[], config: ProgressTrainConfig, onEpoch?: (m: ProgressEpochMetrics) => void,
): ProgressEpochMetrics[] {
  if (samples.length === 0) throw new ProgressTrainConfigError({ samples: 0 }, ['no training samples']);
  const net = model.net;
  const adam = new Adam(net.params.length, { lr: config.lr, beta1: 0.9, beta2: 0.95, eps: 1e-8, weightDecay: config.weightDecay, maxGradNorm: 1 });
  const rng = createRng(`progrm-train/${config.seed}`);
  const history: ProgressEpochMetrics[] = [];
  for (let epoch = 1; epoch <= config.epochs; epoch++) {
    const order = rng.shuffle(samples.map((_, i) => i));
    let loss = 0;
    let err = 0;
    let norm = 0;
    let batches = 0;
    for (let b = 0; b < order.length; b += config.batchSize) {
      const batch = order.slice(b, b + config.batchSize);
      net.zeroGrad();
      for (const i of batch) {
        const s = samples[i]!;
        err += Math.abs(net.predict(s.x) - s.y);
        loss += net.accumulate(s.x, s.y, 1 / batch.length);
      }
      if (!Number.isFinite(loss)) throw new ProgressDivergedError(epoch, loss);
      norm += adam.step(net.params, net.grads);
      batches++;
    }
    const m: ProgressEpochMetrics = { epoch, 'loss/bce': loss / samples.length, 'err/mae': err / samples.length, 'grad/norm': norm / batches };
    history.push(m);
    onEpoch?.(m);
  }
  return history;
}

/** Mean |Prog(s) − p*| of the model over samples. */
export function meanAbsoluteError(model: ProgressModel, samples: readonly ProgressSample[]): number {
  if (samples.length === 0) return NaN;
  return samples.reduce((s, x) => s + Math.abs(model.net.predict(x.x) - x.y), 0) / samples.length;
}

/** The trivial baseline: the training labels' mean, predicted everywhere; its mean absolute error on `test`. */
export function constantBaselineError(train: readonly ProgressSample[], test: readonly ProgressSample[]): number {
  const mean = train.reduce((s, x) => s + x.y, 0) / train.length;
  return test.reduce((s, x) => s + Math.abs(mean - x.y), 0) / test.length;
}
