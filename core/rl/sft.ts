import { z } from 'zod';
import { parseAction, type ActionType } from '../actions/schema.js';
import type { Device } from '../device/device.js';
import { OraclePolicy } from '../episode/policies/oracle.js';
import type { Policy } from '../episode/policy.js';
import { runEpisode } from '../episode/runner.js';
import type { TaskInstance } from '../tasks/instance.js';
import { createRng } from '../util/rng.js';
import { matchCandidate, type CandidateKind } from '../policy/candidates.js';
import { stepInputs, type PolicyModel } from '../policy/builtin.js';
import { Adam, type ScorerNetwork } from '../policy/network.js';
import { issueLines } from '../util/zod-issues.js';

/**
 * Supervised fine-tuning (behaviour cloning) of the builtin policy on oracle demonstrations: every
 * seed paper warm-starts with SFT before RL (digest 003 MobileRL §3.1 "reasoning-free SFT";
 * digest 004 AW-Gen §4 SFT baseline). Loss per step: −log π(a* | s), a* the oracle's action,
 * averaged over a minibatch.
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
  const r = SftConfigSchema.safeParse(input ?? {});
  if (!r.success) throw new SftConfigError(input, issueLines(r.error.issues, { root: '(root)' }));
  return r.data;
}

/** One demonstrated step: the candidate features and which candidate the oracle chose. */
export interface Demonstration {
  features: Float32Array;
  n: number;
  chosen: number;
  /** The kind of the oracle's action (for per-kind accuracy). */
  kind: CandidateKind;
  templateId: string;
}

export interface DemonstrationSet {
  demos: Demonstration[];
  /** Oracle steps whose action was not among the candidates, by action type (not trained on). */
  skipped: Partial<Record<ActionType, number>>;
  episodes: number;
  /** Oracle episodes that did not succeed (their steps are kept: the oracle's actions are still the reference). */
  oracleFailures: number;
}

/**
 * Runs the oracle on each instance and records, at every step, the builtin policy's candidates
 * (features built with `model`'s encoder, from the same screen and history the policy would see)
 * and the index of the oracle's action among them.
 */
export async function collectDemonstrations(device: Device, instances: readonly TaskInstance[], model: PolicyModel): Promise<DemonstrationSet> {
  const set: DemonstrationSet = { demos: [], skipped: {}, episodes: 0, oracleFailures: 0 };
  for (const instance of instances) {
    const oracle = new OraclePolicy();
    const spy: Policy = {
      name: 'oracle',
      start: (ctx) => oracle.start(ctx),
      act(obs, ctx) {
        const decision = oracle.act(obs, ctx);
        const action = parseAction(decision.action);
        const { candidates, features } = stepInputs(model, obs, ctx);
        const chosen = matchCandidate(candidates, action, obs);
        if (chosen < 0) set.skipped[action.action_type] = (set.skipped[action.action_type] ?? 0) + 1;
        else set.demos.push({ features, n: candidates.length, chosen, kind: candidates[chosen]!.kind, templateId: instance.template.id });
        return decision;
      },
    };
    const r = await runEpisode({ device, instance, policy: spy });
    set.episodes++;
    if (!r.success) set.oracleFailures++;
  }
  return set;
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

/** Behaviour cloning: minimises mean −log π(a*|s) with Adam over shuffled minibatches. */
export function trainSft(model: PolicyModel, demos: readonly Demonstration[], config: SftConfig, onEpoch?: (m: SftEpochMetrics) => void): SftEpochMetrics[] {
  const net = model.net;
  const adam = new Adam(net.params.length, { lr: config.lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: config.weightDecay, maxGradNorm: config.maxGradNorm });
  const rng = createRng(`sft/${config.seed}`);
  const history: SftEpochMetrics[] = [];
  for (let epoch = 1; epoch <= config.epochs; epoch++) {
    const order = rng.shuffle(demos.map((_, i) => i));
    let nll = 0;
    let gradNorm = 0;
    let batches = 0;
    for (let b = 0; b < order.length; b += config.batchSize) {
      // update: accumulate d(−mean log π)/dθ over the minibatch, then one Adam step
      const mb = order.slice(b, b + config.batchSize);
      const backup = net.params.slice();
      net.zeroGrad();
      let mbNll = 0;
      for (const i of mb) {
        const d = demos[i]!;
        const lp = net.accumulateLogProb(d.features, d.n, d.chosen, -1 / mb.length);
        mbNll -= lp;
      }
      if (!Number.isFinite(mbNll)) {
        net.params.set(backup);
        throw new NonFiniteLossError(epoch, mbNll);
      }
      gradNorm += adam.step(net.params, net.grads);
      nll += mbNll;
      batches++;
    }
    const m = sftEpochMetrics(net, demos, { epoch, nll, gradNorm, batches });
    history.push(m);
    onEpoch?.(m);
  }
  return history;
}
