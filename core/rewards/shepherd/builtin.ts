import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { createEncoder, DEFAULT_ENCODER, EncoderConfigSchema, type EncoderConfig, type TextEncoder } from '../../policy/encoder.js';
import { Adam } from '../../policy/network.js';
import { createRng, type Rng } from '../../util/rng.js';
import { judgeFeatureDim, judgeFeatures } from './features.js';
import type { JudgeInput, JudgeVerdict, StepJudge } from './judge.js';
import { mlpParamCount, sigmoid, SigmoidMlp } from '../mlp.js';
import { decodeFloat32Params, encodeFloat32Params, Float32ParamsSchema } from '../../util/float32-params.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { issueLines } from '../../util/zod-issues.js';

/** A labelled step: the judge's input and whether the step was correct (1) or deviating (0). */
export interface LabelledStep {
  input: JudgeInput;
  label: 0 | 1;
  templateId: string;
  seed: number;
}

export interface JudgeModel {
  encoder: TextEncoder;
  net: SigmoidMlp;
}

export const DEFAULT_JUDGE_HIDDEN = 16;

export function createJudgeModel(rng: Rng, encoder: EncoderConfig = DEFAULT_ENCODER, hidden = DEFAULT_JUDGE_HIDDEN): JudgeModel {
  const enc = createEncoder(encoder);
  return { encoder: enc, net: SigmoidMlp.init({ input: judgeFeatureDim(enc.dim), hidden }, rng, { outputScale: 0.1 }) };
}

/** The builtin classifier as a judge: P(correct) = σ(logit). It always answers. */
export class BuiltinJudge implements StepJudge {
  readonly name = 'builtin';
  constructor(readonly model: JudgeModel) {}

  probability(input: JudgeInput): number {
    return sigmoid(this.model.net.logit(judgeFeatures(input, this.model.encoder)));
  }

  judge(inputs: readonly JudgeInput[]): Promise<JudgeVerdict[]> {
    return Promise.resolve(inputs.map((i) => {
      const p = this.probability(i);
      return { p, explanation: `builtin judge: P(correct) = ${p.toFixed(2)}` };
    }));
  }
}

export const JudgeTrainConfigSchema = z.strictObject({
  epochs: z.int().min(1).max(10_000).default(40).describe('Passes over the labelled steps (default 40)'),
  batchSize: z.int().min(1).max(100_000).default(32).describe('Steps per minibatch (default 32, the paper\'s global batch)'),
  lr: z.number().positive().max(1).default(5e-3).describe('Adam learning rate (default 5e-3: a small classifier, few data)'),
  weightDecay: z.number().min(0).max(1).default(1e-4).describe('Decoupled (AdamW) weight decay (default 1e-4)'),
  balance: z.boolean().default(true).describe('Weight classes to 1:1, as the paper balances its data (default true)'),
  seed: z.int().nonnegative().default(0).describe('Seed for minibatch shuffling'),
});
export type JudgeTrainConfig = z.infer<typeof JudgeTrainConfigSchema>;

export class JudgeConfigError extends Error {
  override name = 'JudgeConfigError';
  constructor(readonly input: unknown, readonly problems: string[]) {
    super(`Invalid judge training config: ${problems.join('; ')}`);
  }
}

export function parseJudgeTrainConfig(input: unknown): JudgeTrainConfig {
  const r = JudgeTrainConfigSchema.safeParse(input ?? {});
  if (!r.success) throw new JudgeConfigError(input, issueLines(r.error.issues, { root: '(root)' }));
  return r.data;
}

export interface JudgeEpochMetrics {
  epoch: number;
  /** Mean (class-weighted) binary cross-entropy over the epoch. */
  'loss/bce': number;
  /** Fraction of training steps classified right at p ≥ 0.5, with the epoch's final parameters. */
  'acc/train': number;
}

export class NonFiniteJudgeLossError extends Error {
  override name = 'NonFiniteJudgeLossError';
  constructor(readonly epoch: number, readonly value: number) {
    super(`Judge loss became ${value} in epoch ${epoch}; the parameters before this minibatch are kept`);
  }
}

/** The (steps × featureDim) matrix of a labelled set, for training and evaluation. */
export function featureMatrix(model: JudgeModel, steps: readonly LabelledStep[]): Float32Array {
  const F = model.net.dims.input;
  const x = new Float32Array(steps.length * F);
  steps.forEach((s, r) => judgeFeatures(s.input, model.encoder, x, r * F));
  return x;
}

/** Trains the classifier with Adam on mean (class-weighted) BCE over shuffled minibatches. */
export function trainJudge(model: JudgeModel, steps: readonly LabelledStep[], config: JudgeTrainConfig, onEpoch?: (m: JudgeEpochMetrics) => void): JudgeEpochMetrics[] {
  const net = model.net;
  const x = featureMatrix(model, steps);
  const pos = steps.filter((s) => s.label === 1).length;
  const neg = steps.length - pos;
  // Class weights N / (2 N_c): both classes carry half of the loss, as in the paper's 1:1 data.
  const w = (y: 0 | 1) => (!config.balance || pos === 0 || neg === 0 ? 1 : steps.length / (2 * (y === 1 ? pos : neg)));
  const adam = new Adam(net.params.length, { lr: config.lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: config.weightDecay, maxGradNorm: 1 });
  const rng = createRng(`shepherd-judge/${config.seed}`);
  const history: JudgeEpochMetrics[] = [];
  for (let epoch = 1; epoch <= config.epochs; epoch++) {
    const order = rng.shuffle(steps.map((_, i) => i));
    let loss = 0;
    for (let b = 0; b < order.length; b += config.batchSize) {
      const mb = order.slice(b, b + config.batchSize);
      const backup = net.params.slice();
      net.zeroGrad();
      let mbLoss = 0;
      for (const i of mb) {
        const y = steps[i]!.label;
        mbLoss += w(y) * net.accumulate(x, y, w(y) / mb.length, i);
      }
      if (!Number.isFinite(mbLoss)) {
        net.params.set(backup);
        throw new NonFiniteJudgeLossError(epoch, mbLoss);
      }
      adam.step(net.params, net.grads);
      loss += mbLoss;
    }
    let right = 0;
    steps.forEach((s, r) => {
      if ((net.logit(x, r) >= 0 ? 1 : 0) === s.label) right++;
    });
    const m: JudgeEpochMetrics = { epoch, 'loss/bce': steps.length ? loss / steps.length : 0, 'acc/train': steps.length ? right / steps.length : 0 };
    history.push(m);
    onEpoch?.(m);
  }
  return history;
}

// ------------------------------------------------------------------ checkpoint (JSON)

export const JUDGE_CHECKPOINT_FORMAT = 'awb-shepherd-judge';
export const JUDGE_CHECKPOINT_VERSION = 1;

const JudgeCheckpointSchema = z.strictObject({
  format: z.literal(JUDGE_CHECKPOINT_FORMAT).describe('File kind marker'),
  version: z.literal(JUDGE_CHECKPOINT_VERSION).describe('Format version; newer versions are refused'),
  encoder: EncoderConfigSchema,
  network: z.strictObject({ input: z.int().positive(), hidden: z.int().nonnegative() }),
  params: Float32ParamsSchema,
  meta: z.record(z.string(), z.unknown()),
});

export class JudgeCheckpointError extends Error {
  override name = 'JudgeCheckpointError';
  constructor(readonly path: string, readonly problems: string[]) {
    super(`Bad judge checkpoint ${path}: ${problems.join('; ')}`);
  }
}

export function serializeJudge(model: JudgeModel, meta: Record<string, unknown> = {}): string {
  return JSON.stringify({
    format: JUDGE_CHECKPOINT_FORMAT, version: JUDGE_CHECKPOINT_VERSION, encoder: model.encoder.config,
    network: { ...model.net.dims }, params: encodeFloat32Params(model.net.params), meta,
  });
}

export function deserializeJudge(text: string, where = '<text>'): { model: JudgeModel; meta: Record<string, unknown> } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new JudgeCheckpointError(where, [`not JSON (${(e as Error).message})`]);
  }
  const r = JudgeCheckpointSchema.safeParse(json);
  if (!r.success) throw new JudgeCheckpointError(where, issueLines(r.error.issues, { root: '(root)' }));
  const f = r.data;
  const problems: string[] = [];
  const wantInput = judgeFeatureDim(f.encoder.dim);
  if (f.network.input !== wantInput) problems.push(`network.input ${f.network.input} does not match the features of encoder dim ${f.encoder.dim} (${wantInput})`);
  const wantCount = mlpParamCount(f.network);
  if (f.params.count !== wantCount) problems.push(`params.count ${f.params.count}, the network needs ${wantCount}`);
  const { params, problems: paramProblems } = decodeFloat32Params(f.params);
  problems.push(...paramProblems);
  if (problems.length || !params) throw new JudgeCheckpointError(where, problems);
  return { model: { encoder: createEncoder(f.encoder), net: new SigmoidMlp(f.network, params) }, meta: f.meta };
}

/** Writes atomically (a temporary file renamed over the target). */
export function saveJudge(path: string, model: JudgeModel, meta: Record<string, unknown> = {}): void {
  writeFileAtomic(path, serializeJudge(model, meta));
}

export function loadJudge(path: string): { model: JudgeModel; meta: Record<string, unknown> } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new JudgeCheckpointError(path, [`cannot read (${(e as Error).message})`]);
  }
  return deserializeJudge(text, path);
}
