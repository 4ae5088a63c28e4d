import { describe, expect, it } from 'vitest';
import {
  broadcastToSteps,
  episodeStepAdvantages,
  groupAdvantages,
  skippedGroups,
  stepAdvantages,
  stepGroupAdvantages,
  trajectoryAdvantages,
  AdvantageInputError,
  type AdvantageOptions,
} from '../../core/rl/grpo.js';

const sample: AdvantageOptions = { scale: 'group', std: 'sample', eps: 0, zeroStdGroups: 'skip' };
const population: AdvantageOptions = { ...sample, std: 'population' };

function close(actual: readonly number[], expected: readonly number[], digits = 6): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((a, i) => expect(a).toBeCloseTo(expected[i]!, digits));
}

describe('trajectoryAdvantages', () => {
  it('z-scores one success among four with the sample std (mean 0.25, std 0.5)', () => {
    close(trajectoryAdvantages([1, 0, 0, 0], sample), [1.5, -0.5, -0.5, -0.5]);
  });

  it('uses n rather than n − 1 with the population std (std √3/4)', () => {
    close(trajectoryAdvantages([1, 0, 0, 0], population), [Math.sqrt(3), -1 / Math.sqrt(3), -1 / Math.sqrt(3), -1 / Math.sqrt(3)]);
  });

  it('adds eps to the std in the denominator', () => {
    close(trajectoryAdvantages([1, 0, 0, 0], { ...sample, eps: 0.5 }), [0.75, -0.25, -0.25, -0.25]);
  });

  it("only centres with scale 'none' (Dr. GRPO)", () => {
    close(trajectoryAdvantages([1, 0, 0, 0], { ...sample, scale: 'none', eps: 1e-4 }), [0.75, -0.25, -0.25, -0.25]);
  });

  it('gives zeros to a group whose rewards are all equal', () => {
    expect(trajectoryAdvantages([1, 1, 1, 1], sample)).toEqual([0, 0, 0, 0]);
    expect(trajectoryAdvantages([0, 0, 0], sample)).toEqual([0, 0, 0]);
  });

  it('gives 0 to a single-sample group (no baseline to compare with)', () => {
    expect(trajectoryAdvantages([1], sample)).toEqual([0]);
    expect(trajectoryAdvantages([1], population)).toEqual([0]);
  });

  it('leaves NaN and infinite rewards out of mean and std and gives them advantage 0', () => {
    // valid [1, 0]: mean 0.5, sample std √0.5
    close(trajectoryAdvantages([1, Number.NaN, 0, Number.POSITIVE_INFINITY], sample), [Math.SQRT1_2, 0, -Math.SQRT1_2, 0]);
  });

  it('gives zeros to an all-NaN group', () => {
    expect(trajectoryAdvantages([Number.NaN, Number.NaN], sample)).toEqual([0, 0]);
  });

  it('refuses a negative eps', () => {
    expect(() => trajectoryAdvantages([1, 0], { ...sample, eps: -1 })).toThrow(AdvantageInputError);
  });
});

describe('groupAdvantages', () => {
  it("scales by each group's own std with scale 'group'", () => {
    const r = groupAdvantages([[2, 0], [1, 1]], population);
    close(r.advantages[0]!, [1, -1]);
    expect(r.advantages[1]).toEqual([0, 0]);
  });

  it("scales by one std over the whole batch with scale 'batch' (TRL scale_rewards='batch')", () => {
    // batch [2, 0, 1, 1]: mean 1, population std √0.5; group 0 mean 1
    const r = groupAdvantages([[2, 0], [1, 1]], { ...population, scale: 'batch' });
    close(r.advantages[0]!, [Math.SQRT2, -Math.SQRT2]);
    expect(r.advantages[1]).toEqual([0, 0]);
    expect(r.groups[0]!.std).toBeCloseTo(Math.SQRT1_2, 9);
  });

  it('reports per-group stats and which groups are skipped', () => {
    const r = groupAdvantages([[1, 0, 0, 0], [1, 1], [Number.NaN], [0.5]], sample);
    expect(r.groups.map((g) => g.skipped)).toEqual([false, true, true, true]);
    expect(r.groups[0]).toMatchObject({ mean: 0.25, valid: 4 });
    expect(r.groups[0]!.groupStd).toBeCloseTo(0.5, 9);
    expect(r.groups[2]!.valid).toBe(0);
    expect(r.groups[2]!.mean).toBeNaN();
  });

  it("keeps zero-std groups (advantage 0, not skipped) with zeroStdGroups 'keep'", () => {
    const r = groupAdvantages([[1, 1], [1, 0]], { ...sample, zeroStdGroups: 'keep' });
    expect(r.groups.map((g) => g.skipped)).toEqual([false, false]);
    expect(r.advantages[0]).toEqual([0, 0]);
  });

  it('skippedGroups lists the indices of all-equal, single and all-NaN groups', () => {
    expect(skippedGroups([[1, 0], [0, 0, 0], [1], [Number.NaN, Number.NaN], [1, Number.NaN, 1]], sample)).toEqual([1, 2, 3, 4]);
    expect(skippedGroups([[0, 0]], { ...sample, zeroStdGroups: 'keep' })).toEqual([]);
  });
});

describe('broadcastToSteps', () => {
  it('copies each episode advantage to each of its steps', () => {
    expect(broadcastToSteps([1.5, -0.5], [3, 1])).toEqual([[1.5, 1.5, 1.5], [-0.5]]);
    expect(broadcastToSteps([2], [0])).toEqual([[]]);
  });

  it('refuses mismatched or invalid step counts', () => {
    expect(() => broadcastToSteps([1, 2], [3])).toThrow(AdvantageInputError);
    expect(() => broadcastToSteps([1], [1.5])).toThrow(/non-negative integer/);
  });
});

describe('stepAdvantages (ADMIRE Eq. 13)', () => {
  it("reproduces digest 000's worked example ('running', population std)", () => {
    const a = stepAdvantages([[1.0, 1.24354, 1.23166, 1.2673], [0, 0.2178, 0.099]], population);
    close(a[0]!, [0.5098, 0.9577, 0.9358, 1.0014], 3);
    close(a[1]!, [-1.3291, -0.9286, -1.147], 3);
  });

  it('pools all steps of the group: two one-step episodes equal a two-reward group', () => {
    expect(stepAdvantages([[1], [0]], sample).flat()).toEqual(trajectoryAdvantages([1, 0], sample));
  });

  it('gives zeros when every step reward is equal, and 0 to NaN steps', () => {
    expect(stepAdvantages([[1, 1], [1]], sample)).toEqual([[0, 0], [0]]);
    const a = stepAdvantages([[1, Number.NaN], [0]], sample);
    expect(a[0]![1]).toBe(0);
    close([a[0]![0]!, a[1]![0]!], [Math.SQRT1_2, -Math.SQRT1_2]);
  });

  it('keeps the shape across groups and reports per-group stats', () => {
    const r = stepGroupAdvantages([[[1, 0]], [[2, 2], [2]]], population);
    expect(r.advantages).toEqual([[[1, -1]], [[0, 0], [0]]]);
    expect(r.groups.map((g) => g.skipped)).toEqual([false, true]);
  });
});

describe('episodeStepAdvantages', () => {
  const rewards = [[1, 0, 0, 1], [1, 1]];
  const steps = [[2, 3, 1, 4], [1, 2]];
  it("'trajectory' broadcasts groupAdvantages to each episode's steps", () => {
    const got = episodeStepAdvantages(rewards, steps, 'trajectory');
    const want = groupAdvantages(rewards);
    expect(got.groups).toEqual(want.groups);
    expect(got.advantages).toEqual(want.advantages.map((a, g) => broadcastToSteps(a, steps[g]!)));
    expect(got.advantages[0]!.map((e) => e.length)).toEqual([2, 3, 1, 4]);
    expect(got.groups[1]!.skipped).toBe(true);
  });
  it("'step' gives each step its episode's reward and z-scores over the group's steps", () => {
    const got = episodeStepAdvantages(rewards, steps, 'step');
    const want = stepGroupAdvantages([[[1, 1], [0, 0, 0], [0], [1, 1, 1, 1]], [[1], [1, 1]]]);
    expect(got).toEqual(want);
    // Longer episodes weigh more in step mode, so its advantages differ from trajectory mode's.
    expect(got.advantages[0]![0]![0]).not.toBeCloseTo(episodeStepAdvantages(rewards, steps, 'trajectory').advantages[0]![0]![0]!, 6);
  });
});
