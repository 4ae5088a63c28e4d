import { describe, expect, it } from 'vitest';
import { Adam, entropy, logSoftmax, NetworkShapeError, ScorerNetwork } from '../../core/policy/network.js';
import { createRng } from '../../core/util/rng.js';

function randomInput(n: number, f: number, key: string): Float32Array {
  const rng = createRng(key);
  return Float32Array.from({ length: n * f }, () => 2 * rng.next() - 1);
}

/**
 * Central finite differences of log π(chosen) against the accumulated gradient, on every
 * parameter of a small network. The perturbation actually applied is re-read from the Float32
 * buffer, so float32 rounding of θ ± ε does not count as gradient error; sums run in float64.
 * Six rows exercise both the four-row blocked path and the remainder. Checked to fail when broken:
 * flipping `(1 - a * a)` to `(a * a - 1)` in backwardScores, or reading row 0's features for row 1
 * in the blocked W1 update, fails both cases; dropping the `/ temperature` in accumulateLogProb
 * fails the T = 0.7 case.
 */
describe('ScorerNetwork gradients', () => {
  it.each([1, 0.7])('match finite differences of log π (temperature %s)', (temperature) => {
    const dims = { input: 7, hidden: 5 };
    const net = ScorerNetwork.init(dims, createRng('gradcheck'));
    // Non-zero skip weights and biases so every parameter block is exercised.
    const rng = createRng('gradcheck/extra');
    for (let i = 0; i < net.params.length; i++) net.params[i] = net.params[i]! + 0.3 * (rng.next() - 0.5);
    const n = 6;
    const x = randomInput(n, dims.input, 'gradcheck/x');
    const chosen = 2;
    const dLogp = -1.7;
    net.zeroGrad();
    net.accumulateLogProb(x, n, chosen, dLogp, temperature);
    const analytic = Float64Array.from(net.grads);
    let worst = 0;
    for (let k = 0; k < net.params.length; k++) {
      const orig = net.params[k]!;
      net.params[k] = orig + 1e-2;
      const up = net.params[k]!;
      const fUp = dLogp * net.logProbs(x, n, temperature)[chosen]!;
      net.params[k] = orig - 1e-2;
      const down = net.params[k]!;
      const fDown = dLogp * net.logProbs(x, n, temperature)[chosen]!;
      net.params[k] = orig;
      const numeric = (fUp - fDown) / (up - down);
      const rel = Math.abs(numeric - analytic[k]!) / Math.max(1e-6, Math.abs(numeric) + Math.abs(analytic[k]!));
      worst = Math.max(worst, rel);
    }
    expect(worst).toBeLessThan(1e-3);
  });

  it('accumulates across calls and zeroGrad clears', () => {
    const net = ScorerNetwork.init({ input: 4, hidden: 3 }, createRng('acc'));
    const x = randomInput(3, 4, 'acc/x');
    net.accumulateLogProb(x, 3, 0, 1);
    const once = Float64Array.from(net.grads);
    net.accumulateLogProb(x, 3, 0, 1);
    net.grads.forEach((g, i) => expect(g).toBeCloseTo(2 * once[i]!, 5));
    net.zeroGrad();
    expect(net.grads.every((g) => g === 0)).toBe(true);
  });

  it('refuses a feature matrix of the wrong shape and a chosen index out of range', () => {
    const net = ScorerNetwork.init({ input: 4, hidden: 3 }, createRng('shape'));
    expect(() => net.scores(new Float32Array(7), 2)).toThrow(NetworkShapeError);
    expect(() => net.accumulateLogProb(new Float32Array(8), 2, 2, 1)).toThrow(NetworkShapeError);
    expect(() => new ScorerNetwork({ input: 4, hidden: 3 }, new Float32Array(5))).toThrow(NetworkShapeError);
  });
});

describe('softmax helpers', () => {
  it('log-probabilities sum to one, temperature flattens, extreme scores stay finite', () => {
    const lp = logSoftmax([1, 2, 3]);
    expect(lp.reduce((s, v) => s + Math.exp(v), 0)).toBeCloseTo(1, 12);
    expect(entropy(logSoftmax([1, 2, 3], 10))).toBeGreaterThan(entropy(lp));
    expect(entropy(logSoftmax([0, 0, 0, 0]))).toBeCloseTo(Math.log(4), 12);
    const big = logSoftmax([1e6, 0]);
    expect(big[0]).toBe(0);
    expect(Number.isFinite(big[1])).toBe(true);
    expect(() => logSoftmax([1], 0)).toThrow(NetworkShapeError);
  });
});

describe('Adam', () => {
  it('drives a quadratic to its minimum', () => {
    const params = new Float32Array([3, -2]);
    const grads = new Float32Array(2);
    const adam = new Adam(2, { lr: 0.1, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, maxGradNorm: 0 });
    for (let t = 0; t < 500; t++) {
      grads[0] = 2 * (params[0]! - 1);
      grads[1] = 2 * (params[1]! + 0.5);
      adam.step(params, grads);
    }
    expect(params[0]).toBeCloseTo(1, 2);
    expect(params[1]).toBeCloseTo(-0.5, 2);
  });
});
