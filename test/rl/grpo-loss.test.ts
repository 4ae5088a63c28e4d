import { describe, expect, it } from 'vitest';
import { batchLoss, clippedSurrogate, klK3, stepLoss, LossInputError, type BatchLossOptions, type StepLossInput, type StepLossOptions } from '../../core/rl/grpo.js';

const opts: StepLossOptions = { clipEps: 0.2, klBeta: 0 };
const at = (ratio: number, advantage: number, extra: Partial<StepLossInput> = {}): StepLossInput => ({ logpNew: Math.log(ratio) - 1, logpOld: -1, advantage, ...extra });

/** Central finite difference of loss in logpNew. */
function fd(input: StepLossInput, o: StepLossOptions, h = 1e-6): number {
  const f = (x: number) => stepLoss({ ...input, logpNew: x }, o).loss;
  return (f(input.logpNew + h) - f(input.logpNew - h)) / (2 * h);
}

describe('clippedSurrogate and stepLoss', () => {
  it('is −Â with gradient −Â at ratio 1', () => {
    const s = stepLoss(at(1, 0.7), opts);
    expect(s.ratio).toBeCloseTo(1, 12);
    expect(s.loss).toBeCloseTo(-0.7, 12);
    expect(s.dLogp).toBeCloseTo(-0.7, 12);
    expect(s.clipped).toBe(false);
  });

  it('clips a positive advantage above 1 + ε: loss −(1 + ε)Â, gradient 0', () => {
    const s = stepLoss(at(1.5, 1), opts);
    expect(s.loss).toBeCloseTo(-1.2, 12);
    expect(s.dLogp).toBe(0);
    expect(s.clipped).toBe(true);
  });

  it('does not clip a negative advantage above 1 + ε (pessimistic branch): loss −ρÂ', () => {
    const s = stepLoss(at(1.5, -1), opts);
    expect(s.loss).toBeCloseTo(1.5, 12);
    expect(s.dLogp).toBeCloseTo(1.5, 12);
    expect(s.clipped).toBe(false);
  });

  it('clips a negative advantage below 1 − ε: loss (1 − ε)|Â|, gradient 0', () => {
    const s = stepLoss(at(0.5, -1), opts);
    expect(s.loss).toBeCloseTo(0.8, 12);
    expect(s.dLogp).toBe(0);
    expect(s.clipped).toBe(true);
  });

  it('does not clip a positive advantage below 1 − ε', () => {
    const s = stepLoss(at(0.5, 1), opts);
    expect(s.loss).toBeCloseTo(-0.5, 12);
    expect(s.dLogp).toBeCloseTo(-0.5, 12);
  });

  it('uses ε_high on the upper side only (clip-higher)', () => {
    expect(stepLoss(at(1.25, 1), opts).clipped).toBe(true);
    const s = stepLoss(at(1.25, 1), { ...opts, clipEpsHigh: 0.28 });
    expect(s.clipped).toBe(false);
    expect(s.loss).toBeCloseTo(-1.25, 12);
    expect(stepLoss(at(0.75, -1), { ...opts, clipEpsHigh: 0.28 }).clipped).toBe(true);
  });

  it('is 0 with gradient 0 for a zero advantage without KL', () => {
    const s = stepLoss(at(3, 0), opts);
    expect(s.loss === 0 && s.dLogp === 0 && !s.clipped).toBe(true);
  });

  it('adds β·k3 with k3 = exp(x) − x − 1, x = logpRef − logpNew', () => {
    const k = klK3(-1, -1 + Math.log(2));
    expect(k.kl).toBeCloseTo(1 - Math.log(2), 12);
    expect(k.dLogp).toBeCloseTo(-1, 12);
    const s = stepLoss({ logpNew: -1, logpOld: -1, logpRef: -1 + Math.log(2), advantage: 0.5 }, { ...opts, klBeta: 0.1 });
    expect(s.kl).toBeCloseTo(1 - Math.log(2), 12);
    expect(s.loss).toBeCloseTo(-0.5 + 0.1 * (1 - Math.log(2)), 12);
    expect(s.dLogp).toBeCloseTo(-0.5 - 0.1, 12);
    expect(klK3(-2, -2).kl).toBe(0);
  });

  it('matches finite differences of the loss on both branches, with and without KL', () => {
    const ratios = [0.3, 0.79, 0.95, 1, 1.1, 1.19, 1.27, 1.6, 4];
    const advantages = [-2, -0.4, 0.3, 1.7];
    for (const klBeta of [0, 0.05]) {
      for (const clipEpsHigh of [undefined, 0.28]) {
        const o: StepLossOptions = { clipEps: 0.2, klBeta, ...(clipEpsHigh === undefined ? {} : { clipEpsHigh }) };
        for (const r of ratios) {
          for (const a of advantages) {
            const input = at(r, a, { logpRef: -1.3 });
            const s = stepLoss(input, o);
            expect(s.dLogp, `ratio ${r} adv ${a} β ${klBeta} εh ${clipEpsHigh}`).toBeCloseTo(fd(input, o), 5);
            if (s.clipped) expect(s.dLogp).toBeCloseTo(klBeta ? fd({ ...input, advantage: 0 }, o) : 0, 5);
          }
        }
      }
    }
  });

  it('clamps the log-ratio so a huge ratio stays finite (gradient 0 where clamped)', () => {
    const s = stepLoss({ logpNew: 0, logpOld: -1000, advantage: -1 }, opts);
    expect(s.ratio).toBeCloseTo(Math.exp(20), 0);
    expect(Number.isFinite(s.loss)).toBe(true);
    expect(s.dLogp).toBe(0);
    expect(clippedSurrogate(0, -5, -1, 0.2, 0.2, 2).ratio).toBeCloseTo(Math.exp(2), 12);
    const k = klK3(-1000, 0);
    expect(Number.isFinite(k.kl) && k.dLogp === 0).toBe(true);
  });

  it('refuses non-finite inputs and a missing reference when β > 0', () => {
    expect(() => stepLoss({ logpNew: Number.NaN, logpOld: 0, advantage: 1 }, opts)).toThrow(LossInputError);
    expect(() => stepLoss({ logpNew: 0, logpOld: 0, advantage: Number.POSITIVE_INFINITY }, opts)).toThrow(/advantage/);
    expect(() => stepLoss({ logpNew: 0, logpOld: 0, advantage: 1 }, { ...opts, klBeta: 0.1 })).toThrow(/logpRef/);
  });
});

describe('batchLoss', () => {
  // episode 0: one step Â = 1; episode 1: three steps Â = −1; all at ratio 1, so ℓ = −Â
  const batch: StepLossInput[][] = [[at(1, 1)], [at(1, -1), at(1, -1), at(1, -1)]];
  const base: BatchLossOptions = { ...opts, aggregation: 'step-mean', maxSteps: 20 };

  it("'step-mean' averages over all steps: (−1 + 3)/4", () => {
    const r = batchLoss(batch, base);
    expect(r.loss).toBeCloseTo(0.5, 12);
    expect(r.dLogp).toEqual([[-0.25], [0.25, 0.25, 0.25]]);
  });

  it("'episode-mean' averages within each episode, then over episodes: (−1 + 1)/2", () => {
    const r = batchLoss(batch, { ...base, aggregation: 'episode-mean' });
    expect(r.loss).toBeCloseTo(0, 12);
    expect(r.dLogp[0]![0]).toBeCloseTo(-0.5, 12);
    expect(r.dLogp[1]![0]).toBeCloseTo(1 / 6, 12);
  });

  it("'constant' divides the sum by episodes × maxSteps: 2/(2·20)", () => {
    const r = batchLoss(batch, { ...base, aggregation: 'constant' });
    expect(r.loss).toBeCloseTo(0.05, 12);
    expect(r.dLogp[1]![2]).toBeCloseTo(1 / 40, 12);
    expect(() => batchLoss(batch, { ...base, aggregation: 'constant', maxSteps: 0 })).toThrow(LossInputError);
  });

  it('returns per-step weights equal to finite differences of the batch loss', () => {
    const mixed: StepLossInput[][] = [[at(1.4, 1, { logpRef: -0.5 }), at(0.9, 0.5, { logpRef: -1.2 })], [at(1.1, -1, { logpRef: -2 })]];
    for (const aggregation of ['step-mean', 'episode-mean', 'constant'] as const) {
      const o: BatchLossOptions = { ...base, klBeta: 0.05, aggregation };
      const r = batchLoss(mixed, o);
      mixed.forEach((episode, i) => episode.forEach((step, t) => {
        const h = 1e-6;
        const bump = (d: number) => batchLoss(mixed.map((e, j) => e.map((s, u) => (j === i && u === t ? { ...s, logpNew: s.logpNew + d } : s))), o).loss;
        expect(r.dLogp[i]![t], `${aggregation} ${i},${t}`).toBeCloseTo((bump(h) - bump(-h)) / (2 * h), 5);
      }));
    }
  });

  it('reports clip fraction, mean KL, mean ratio and the policy-loss mean', () => {
    const r = batchLoss([[at(1.5, 1, { logpRef: -1 }), at(1, 1, { logpRef: -1 })]], { ...base, klBeta: 0.1 });
    expect(r.stats.clipFraction).toBe(0.5);
    expect(r.stats.meanRatio).toBeCloseTo(1.25, 12);
    expect(r.stats.meanKl).toBeCloseTo((Math.exp(-Math.log(1.5)) + Math.log(1.5) - 1) / 2, 12);
    expect(r.stats.meanPolicyLoss).toBeCloseTo((-1.2 - 1) / 2, 12);
    expect(r.stats).toMatchObject({ steps: 2, episodes: 1 });
  });

  it('gives loss 0 for an empty batch and ignores empty episodes in the normalisers', () => {
    const empty = batchLoss([], base);
    expect(empty.loss).toBe(0);
    expect(empty.stats).toMatchObject({ steps: 0, episodes: 0, clipFraction: 0 });
    const r = batchLoss([[], [at(1, 2)]], { ...base, aggregation: 'episode-mean' });
    expect(r.loss).toBeCloseTo(-2, 12);
    expect(r.dLogp).toEqual([[], [-2]]);
  });
});
