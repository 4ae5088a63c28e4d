import type { ScorerAdapter } from '../policy/adapter.js';
import type { ScorerNetwork } from '../policy/network.js';
import { assertNever } from '../util/errors.js';

/**
 * What SFT (sft.ts) and the local GRPO update (grpo-update.ts) train: the builtin policy's whole
 * scorer network, or a per-app adapter φ over a frozen base θ (core/policy/adapter.ts). Either way
 * the loss is back-propagated through a network with the current parameters; an adapter's gradient
 * is then projected onto φ, so one training loop serves both.
 */
export type TrainedScorer =
  | { kind: 'network'; net: ScorerNetwork }
  | { kind: 'adapter'; base: ScorerNetwork; adapter: ScorerAdapter };

export interface ScorerParameters {
  /** What the optimizer steps. */
  readonly params: Float32Array;
  /** How a parameter is named when it turns non-finite: weights[i] or adapter[i]. */
  readonly label: 'weights' | 'adapter';
  /** The network with the current parameters, for forward and backward (an adapter is merged into its base first). */
  current(): ScorerNetwork;
  /** After back-propagating into current()'s grads: the gradient with respect to `params`. */
  gradients(): Float32Array;
}

export function scorerParameters(t: TrainedScorer): ScorerParameters {
  switch (t.kind) {
    case 'network':
      return { params: t.net.params, label: 'weights', current: () => t.net, gradients: () => t.net.grads };
    case 'adapter': {
      // One merged network, rewritten in place before each use: the cost per step is the base network's.
      const merged = t.adapter.merge(t.base);
      return {
        params: t.adapter.params, label: 'adapter',
        current: () => t.adapter.merge(t.base, merged),
        gradients: () => {
          t.adapter.zeroGrad();
          t.adapter.accumulateFromMerged(merged.grads);
          return t.adapter.grads;
        },
      };
    }
    default:
      return assertNever(t, 'trained scorer');
  }
}
