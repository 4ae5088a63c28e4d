import { entropy, type Adam, type ScorerNetwork } from '../policy/network.js';
import type { Rng } from '../util/rng.js';
import { batchLoss, LossInputError, type BatchLossOptions, type StepLossInput } from './grpo.js';
import { mean, METRIC, type GrpoAdvantages, type UpdateStats } from './grpo-loop.js';
import type { ScorerParameters } from './trained-scorer.js';

/**
 * The local GRPO update (grpo-loop.ts's update section for training and adaptation): epochs ×
 * minibatches of whole episodes (≈ minibatchSize steps each), the clipped surrogate + k3 KL of
 * core/rl/grpo.ts with log π recomputed at each step's recorded temperature, one Adam step per
 * minibatch on the whole network or on an adapter (trained-scorer.ts).
 */

/** What the update needs of a recorded step (core/policy/builtin.ts PolicyStepRecord). */
export interface UpdateStep {
  features: Float32Array;
  n: number;
  chosen: number;
  /** log π_old(chosen) at `temperature`, as sampled. */
  logProb: number;
  temperature: number;
}

/** One episode in the update batch: its step records and one advantage per step. */
export interface BatchEpisode<S extends UpdateStep = UpdateStep> {
  records: readonly S[];
  advantages: readonly number[];
}

/**
 * The episodes an iteration trains on: those with steps, of groups with a reward spread (zero-std
 * groups are skipped when the options say so), minus those `keep` prunes; group by group, in order.
 */
export function trainingBatch<S extends UpdateStep>(
  groups: readonly (readonly { records: readonly S[] }[])[], a: GrpoAdvantages, keep?: readonly (readonly boolean[])[],
): BatchEpisode<S>[] {
  const batch: BatchEpisode<S>[] = [];
  groups.forEach((g, gi) => {
    if (a.groups[gi]!.skipped) return;
    g.forEach((r, i) => {
      if ((keep ? keep[gi]![i]! : true) && r.records.length) batch.push({ records: r.records, advantages: a.advantages[gi]![i]! });
    });
  });
  return batch;
}

/** Minibatches of whole episodes in `order`: each takes episodes until it holds ≥ `minSteps` steps. */
export function packMinibatches(order: readonly number[], steps: (i: number) => number, minSteps: number): number[][] {
  const out: number[][] = [];
  for (let start = 0; start < order.length;) {
    const mb: number[] = [];
    let n = 0;
    while (start < order.length && (n < minSteps || mb.length === 0)) {
      const i = order[start++]!;
      mb.push(i);
      n += steps(i);
    }
    out.push(mb);
  }
  return out;
}

export interface LocalUpdateOptions<S extends UpdateStep> {
  scorer: ScorerParameters;
  /**
   * Whether a step's log π depends on the trained parameters. Steps that do not (an adapted policy's
   * steps scored by the base) stay in the batch with their recorded log π, so the loss is normalised
   * over the same steps as a full-model run (their ratio is 1 and their KL 0), and carry no gradient.
   */
  trains: (step: S) => boolean;
  /** The frozen KL reference; null when the loss has no KL term. */
  reference: ScorerNetwork | null;
  adam: Adam;
  lr: number;
  epochs: number;
  minibatchSize: number;
  loss: BatchLossOptions;
  /** The iteration's RNG: epoch e shuffles with its fork `epoch/e`. */
  rng: Rng;
  /** Episodes at the end of the batch that are replayed, not fresh (left out of the entropy). */
  replayed: number;
  /** Called when the update turns non-finite, with the metric and its value; must throw. */
  diverged: (metric: string, value: number) => never;
}

/** Updates the scorer's parameters in place; see the module comment. */
export function updatePolicy<S extends UpdateStep>(batch: readonly BatchEpisode<S>[], o: LocalUpdateOptions<S>): UpdateStats {
  const { scorer, trains, reference } = o;
  o.adam.opts.lr = o.lr;
  const logpRef = reference
    ? batch.map((e) => e.records.map((r) => (trains(r) ? reference.logProbs(r.features, r.n, r.temperature)[r.chosen]! : r.logProb)))
    : null;
  const fresh = batch.slice(0, batch.length - o.replayed).flatMap((e) => e.records.filter(trains));
  const net0 = scorer.current();
  // No fresh step trained (every group had zero variance): the entropy is undefined, not 0.
  const ent = fresh.length ? mean(fresh.map((r) => entropy(net0.logProbs(r.features, r.n, r.temperature)))) : null;
  const policyLosses: number[] = [];
  const kls: number[] = [];
  const clips: number[] = [];
  const gradNorms: number[] = [];
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    const order = o.rng.fork(`epoch/${epoch}`).shuffle(batch.map((_, i) => i));
    for (const mbIdx of packMinibatches(order, (i) => batch[i]!.records.length, o.minibatchSize)) {
      const net = scorer.current();
      const mbInputs: StepLossInput[][] = mbIdx.map((i) => batch[i]!.records.map((r, t) => ({
        logpNew: trains(r) ? net.logProbs(r.features, r.n, r.temperature)[r.chosen]! : r.logProb,
        logpOld: r.logProb,
        ...(logpRef ? { logpRef: logpRef[i]![t]! } : {}),
        advantage: batch[i]!.advantages[t]!,
      })));
      let mbLoss;
      try {
        mbLoss = batchLoss(mbInputs, o.loss);
      } catch (e) {
        if (e instanceof LossInputError) return o.diverged(METRIC.lossPolicy, Number(e.value));
        throw e;
      }
      if (!Number.isFinite(mbLoss.loss)) return o.diverged(METRIC.lossPolicy, mbLoss.loss);
      net.zeroGrad();
      mbIdx.forEach((i, k) => batch[i]!.records.forEach((r, t) => {
        if (trains(r)) net.accumulateLogProb(r.features, r.n, r.chosen, mbLoss.dLogp[k]![t]!, r.temperature);
      }));
      const grads = scorer.gradients();
      let sq = 0;
      for (const g of grads) sq += g * g;
      if (!Number.isFinite(sq)) return o.diverged(METRIC.gradNorm, Math.sqrt(sq));
      gradNorms.push(o.adam.step(scorer.params, grads));
      policyLosses.push(mbLoss.stats.meanPolicyLoss);
      kls.push(mbLoss.stats.meanKl);
      clips.push(mbLoss.stats.clipFraction);
    }
  }
  const bad = scorer.params.findIndex((x) => !Number.isFinite(x));
  if (bad >= 0) return o.diverged(`${scorer.label}[${bad}]`, scorer.params[bad]!);
  return { policyLoss: mean(policyLosses), kl: mean(kls), entropy: ent, clipFraction: mean(clips), gradNorm: mean(gradNorms) };
}
