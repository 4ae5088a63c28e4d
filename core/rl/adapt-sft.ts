import type { ScorerAdapter } from '../policy/adapter.js';
import { Adam, type ScorerNetwork } from '../policy/network.js';
import { createRng } from '../util/rng.js';
import type { Demonstration } from './sft.js';
import { NonFiniteLossError, sftEpochMetrics, type SftConfig, type SftEpochMetrics } from './sft.js';

/**
 * Behaviour cloning of an adapter: core/rl/sft.ts's loss, mean −log π(a*|s) over a minibatch,
 * minimised over the adapter's parameters φ only. Each minibatch merges θ_base + Δ(φ) once,
 * back-propagates every step into the merged network's gradient, then projects that gradient onto
 * φ once (core/policy/adapter.ts), so the cost per step is the base network's.
 */
export function trainAdapterSft(
  base: ScorerNetwork, adapter: ScorerAdapter, demos: readonly Demonstration[], config: SftConfig, onEpoch?: (m: SftEpochMetrics) => void, signal?: AbortSignal,
): SftEpochMetrics[] {
  const adam = new Adam(adapter.params.length, { lr: config.lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: config.weightDecay, maxGradNorm: config.maxGradNorm });
  const rng = createRng(`adapt-sft/${config.seed}`);
  const merged = adapter.merge(base);
  const history: SftEpochMetrics[] = [];
  for (let epoch = 1; epoch <= config.epochs && !signal?.aborted; epoch++) {
    const order = rng.shuffle(demos.map((_, i) => i));
    let nll = 0;
    let gradNorm = 0;
    let batches = 0;
    for (let b = 0; b < order.length; b += config.batchSize) {
      // update: d(−mean log π)/dθ_eff over the minibatch, projected onto φ, one Adam step
      const mb = order.slice(b, b + config.batchSize);
      adapter.merge(base, merged);
      merged.zeroGrad();
      let mbNll = 0;
      for (const i of mb) {
        const d = demos[i]!;
        mbNll -= merged.accumulateLogProb(d.features, d.n, d.chosen, -1 / mb.length);
      }
      if (!Number.isFinite(mbNll)) throw new NonFiniteLossError(epoch, mbNll);
      adapter.zeroGrad();
      adapter.accumulateFromMerged(merged.grads);
      gradNorm += adam.step(adapter.params, adapter.grads);
      nll += mbNll;
      batches++;
    }
    // log with the epoch's final parameters
    adapter.merge(base, merged);
    const m = sftEpochMetrics(merged, demos, { epoch, nll, gradNorm, batches });
    history.push(m);
    onEpoch?.(m);
  }
  return history;
}
