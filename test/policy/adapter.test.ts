import { describe, expect, it } from 'vitest';
import { adapterParameterCount, AdapterSpecError, ScorerAdapter, type AdapterSpec } from '../../core/policy/adapter.js';
import { NetworkShapeError, ScorerNetwork } from '../../core/policy/network.js';
import { createRng } from '../../core/util/rng.js';

function randomInput(n: number, f: number, key: string): Float32Array {
  const rng = createRng(key);
  return Float32Array.from({ length: n * f }, () => 2 * rng.next() - 1);
}

function perturbed(spec: AdapterSpec, dims: { input: number; hidden: number }, key: string): ScorerAdapter {
  const a = ScorerAdapter.init(spec, dims, createRng(key));
  // Non-zero everywhere (A too), so every block of the chain rule is exercised.
  const rng = createRng(`${key}/extra`);
  for (let i = 0; i < a.params.length; i++) a.params[i] = a.params[i]! + 0.4 * (rng.next() - 0.5);
  return a;
}

/**
 * Central finite differences of log π(chosen) under base + adapter against the adapter gradient,
 * on every adapter parameter, as test/policy/network.test.ts does for the network. Checked to fail
 * when broken: reading A instead of B in the dA sum of accumulateFromMerged fails both low-rank
 * cases; dropping the Δw2 term of the projection fails all three.
 */
describe('ScorerAdapter gradients', () => {
  it.each<[string, AdapterSpec, number]>([
    ['head', { kind: 'head' }, 1],
    ['lowrank r=3', { kind: 'lowrank', rank: 3 }, 1],
    ['lowrank r=2, T=0.7', { kind: 'lowrank', rank: 2 }, 0.7],
  ])('match finite differences of log π (%s)', (_label, spec, temperature) => {
    const dims = { input: 7, hidden: 5 };
    const base = ScorerNetwork.init(dims, createRng('adapter-gradcheck/base'));
    const adapter = perturbed(spec, dims, 'adapter-gradcheck');
    const n = 6;
    const x = randomInput(n, dims.input, 'adapter-gradcheck/x');
    const chosen = 4;
    const dLogp = 1.3;
    adapter.zeroGrad();
    adapter.accumulateLogProb(adapter.merge(base), x, n, chosen, dLogp, temperature);
    const analytic = Float64Array.from(adapter.grads);
    const f = () => dLogp * adapter.merge(base).logProbs(x, n, temperature)[chosen]!;
    let worst = 0;
    for (let k = 0; k < adapter.params.length; k++) {
      const orig = adapter.params[k]!;
      adapter.params[k] = orig + 1e-2;
      const up = adapter.params[k]!;
      const fUp = f();
      adapter.params[k] = orig - 1e-2;
      const down = adapter.params[k]!;
      const fDown = f();
      adapter.params[k] = orig;
      const numeric = (fUp - fDown) / (up - down);
      worst = Math.max(worst, Math.abs(numeric - analytic[k]!) / Math.max(1e-6, Math.abs(numeric) + Math.abs(analytic[k]!)));
    }
    // float32 merged weights: looser than the network's 1e-3, far below what a wrong term gives (~1).
    expect(worst).toBeLessThan(5e-3);
  });
});

describe('ScorerAdapter', () => {
  it.each<AdapterSpec>([{ kind: 'head' }, { kind: 'lowrank', rank: 4 }])('starts as the identity: the same log-probs as the base (%o)', (spec) => {
    const dims = { input: 11, hidden: 6 };
    const base = ScorerNetwork.init(dims, createRng('identity/base'));
    const adapter = ScorerAdapter.init(spec, dims, createRng('identity/adapter'));
    const x = randomInput(9, dims.input, 'identity/x');
    expect(Array.from(adapter.merge(base).logProbs(x, 9))).toEqual(Array.from(base.logProbs(x, 9)));
    expect(adapter.merge(base).params).toEqual(base.params);
    if (spec.kind === 'lowrank') expect(adapter.params.some((v) => v !== 0)).toBe(true); // B is random, A is zero
  });

  it('merging and back-propagating leave the base parameters bit-identical', () => {
    const dims = { input: 7, hidden: 5 };
    const base = ScorerNetwork.init(dims, createRng('frozen/base'));
    const before = Buffer.from(base.params.buffer.slice(0));
    const adapter = perturbed({ kind: 'lowrank', rank: 2 }, dims, 'frozen');
    const merged = adapter.merge(base);
    adapter.accumulateLogProb(merged, randomInput(3, 7, 'frozen/x'), 3, 1, 1);
    expect(Buffer.from(base.params.buffer).equals(before)).toBe(true);
    expect(base.grads.every((g) => g === 0)).toBe(true);
    expect(merged.params).not.toEqual(base.params);
  });

  it('counts its parameters by kind and refuses bad ranks and shapes', () => {
    const dims = { input: 10, hidden: 4 };
    expect(adapterParameterCount({ kind: 'head' }, dims)).toBe(2 * 4 + 10);
    expect(adapterParameterCount({ kind: 'lowrank', rank: 3 }, dims)).toBe(4 * 3 + 3 * 10 + 2 * 4 + 10);
    expect(() => new ScorerAdapter({ kind: 'lowrank', rank: 0 }, dims)).toThrow(AdapterSpecError);
    expect(() => new ScorerAdapter({ kind: 'lowrank', rank: 2.5 }, dims)).toThrow(/rank must be an integer.*2\.5/);
    expect(() => new ScorerAdapter({ kind: 'head' }, dims, new Float32Array(3))).toThrow(NetworkShapeError);
    const a = new ScorerAdapter({ kind: 'head' }, dims);
    expect(() => a.merge(ScorerNetwork.init({ input: 9, hidden: 4 }, createRng('x')))).toThrow(NetworkShapeError);
  });
});
