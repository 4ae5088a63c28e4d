import { describe, expect, it } from 'vitest';
import { assertSeed, createRng, SeedError } from '../../core/util/rng.js';

describe('Rng', () => {
  it('reproduces a stream from its seed and differs between seeds', () => {
    const a = Array.from({ length: 5 }, createRng(42).next);
    const b = Array.from({ length: 5 }, createRng(42).next);
    const c = Array.from({ length: 5 }, createRng(43).next);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });

  it('forks by label without consuming the parent, so forks are independent of each other', () => {
    const r1 = createRng(7);
    const first = r1.fork('contacts').next();
    const r2 = createRng(7);
    r2.fork('sms');
    r2.next();
    expect(r2.fork('contacts').next()).toBe(first);
    expect(r1.fork('sms').next()).not.toBe(first);
  });

  it('keeps integers in range, picks and samples without repeats', () => {
    const r = createRng('x');
    for (let i = 0; i < 1000; i++) {
      const v = r.int(-3, 3);
      expect(v).toBeGreaterThanOrEqual(-3);
      expect(v).toBeLessThanOrEqual(3);
    }
    const s = r.sample([1, 2, 3, 4, 5], 5);
    expect([...s].sort()).toEqual([1, 2, 3, 4, 5]);
    expect(() => r.pick([])).toThrow('empty');
    expect(() => r.int(3, 1)).toThrow(RangeError);
    expect(() => r.sample([1], 2)).toThrow(RangeError);
  });

  it('rejects seeds that are not non-negative safe integers', () => {
    for (const bad of [-1, 0.5, Number.NaN, Infinity, 2 ** 53, '1']) expect(() => assertSeed(bad)).toThrow(SeedError);
    expect(() => assertSeed(0)).not.toThrow();
  });
});
