import { describe, expect, it } from 'vitest';
import { AdaGrpoInputError, shortestPathRewards } from '../../core/rewards/shortest-path.js';

describe('shortestPathRewards (SPA)', () => {
  const spa = { alpha: 1, successReward: 1 };

  it('scales successes by 1 − α(T − T_min)/(2T) and leaves failures at 0', () => {
    // T_min = 4: T=8 → 1 − 4/16; T=5 → 1 − 1/10; the 2-step failure stays 0
    const r = shortestPathRewards([1, 1, 0, 1], [4, 8, 2, 5], spa);
    expect(r[0]).toBe(1);
    expect(r[1]).toBeCloseTo(0.75, 12);
    expect(r[2]).toBe(0);
    expect(r[3]).toBeCloseTo(0.9, 12);
  });

  it('scales the penalty by α', () => {
    expect(shortestPathRewards([1, 1], [4, 8], { ...spa, alpha: 0.5 })[1]).toBeCloseTo(0.875, 12);
    expect(shortestPathRewards([1, 1], [4, 8], { ...spa, alpha: 0 })).toEqual([1, 1]);
  });

  it('keeps every success above a failure for α ≤ 2 (reward T_min/T at α = 2)', () => {
    const r = shortestPathRewards([1, 1, 0], [1, 20, 1], { ...spa, alpha: 2 });
    expect(r[1]).toBeCloseTo(1 / 20, 12);
    expect(r[1]!).toBeGreaterThan(r[2]!);
  });

  it('changes nothing in a group without a success, and passes NaN through', () => {
    expect(shortestPathRewards([0, 0.5, 0], [3, 9, 1], spa)).toEqual([0, 0.5, 0]);
    const r = shortestPathRewards([1, Number.NaN, 1], [2, 3, 4], spa);
    expect(r[1]).toBeNaN();
    expect(r[2]).toBeCloseTo(0.75, 12);
  });

  it('refuses mismatched lengths and non-integer lengths', () => {
    expect(() => shortestPathRewards([1], [1, 2], spa)).toThrow(AdaGrpoInputError);
    expect(() => shortestPathRewards([1], [-1], spa)).toThrow(/non-negative integer/);
  });
});
