import { describe, expect, it } from 'vitest';
import { RewardComponentError, type RewardEpisode, type RewardStep } from '../../core/rewards/component.js';
import { computeRewards, configOfKinds, parseRewardConfig, prepareRewards, RewardConfigError, RewardSet } from '../../core/rewards/compose.js';
import { importRewardModule, RewardUnavailableError, shortestPathComponent } from '../../core/rewards/registry.js';

const fg = { package: 'com.android.contacts', activity: '.Main' };
function episode(steps: number, success: boolean | null, errorAt: number[] = []): RewardEpisode {
  const s: RewardStep[] = Array.from({ length: steps }, (_, index) => ({
    index, foreground: fg, description: `step ${index}`,
    ...(errorAt.includes(index) ? { error: { name: 'ActionParseError', message: 'bad' } } : {}),
  }));
  return { templateId: 'ContactsAddContact', seed: 1, instruction: 'x', params: {}, steps: s, success };
}

const issuesOf = async (p: Promise<unknown> | (() => unknown)): Promise<string[]> => {
  try {
    await (typeof p === 'function' ? p() : p);
  } catch (e) {
    if (e instanceof RewardConfigError) return e.issues;
    throw e;
  }
  throw new Error('expected a RewardConfigError');
};

describe('reward config', () => {
  it('lists every shape problem at once', async () => {
    const issues = await issuesOf(() => parseRewardConfig({
      components: [{ kind: 'outcome', weight: 1 }, { kind: 'milestones', weight: 1 }, { kind: 'format', weight: 'high' }, { kind: 'outcome', weight: 2 }],
    }));
    expect(issues).toHaveLength(3);
    expect(issues[0]).toMatch(/^components\.1\.kind: /);
    expect(issues[1]).toMatch(/^components\.2\.weight: /);
    expect(issues[2]).toBe('components.3.kind: outcome is already components[0]');
  });

  it('refuses an empty component list and unknown keys', async () => {
    expect(await issuesOf(() => parseRewardConfig({ components: [] }))).toEqual(['components: at least one component is needed']);
    expect((await issuesOf(() => parseRewardConfig({ components: [{ kind: 'outcome', weight: 1 }], extra: 1 })))[0]).toMatch(/extra/);
  });

  it("checks every component's options against its own schema, listing all problems", async () => {
    const issues = await issuesOf(prepareRewards({
      components: [
        { kind: 'outcome', weight: 1, options: { success: 'yes' } },
        { kind: 'format', weight: 1, options: { penalty: -2, typo: true } },
        { kind: 'shortest-path', weight: 1, options: { alpha: 0.5 } },
      ],
    }));
    expect(issues.some((i) => i.startsWith('components.0.options.success:') && i.endsWith('(outcome)'))).toBe(true);
    expect(issues.some((i) => i.startsWith('components.1.options.penalty:') && i.endsWith('(format)'))).toBe(true);
    expect(issues.some((i) => i.includes('typo') && i.endsWith('(format)'))).toBe(true);
    expect(issues.some((i) => i.includes('components.2'))).toBe(false);
  });

  it('--components style: every weight 1', () => {
    expect(configOfKinds(['outcome', 'format'])).toEqual({ components: [{ kind: 'outcome', weight: 1 }, { kind: 'format', weight: 1 }] });
  });
});

describe('lazily loaded components', () => {
  it('a kind whose module does not exist yet is RewardUnavailableError naming the file', async () => {
    const e = await importRewardModule('progrm', './no-such-kind/index.js').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RewardUnavailableError);
    expect((e as Error).message).toBe('Reward component "progrm" is not available: core/rewards/no-such-kind/index.ts does not exist yet');
  });

  it('a module without the rewardModule export is RewardUnavailableError saying what is expected', async () => {
    const e = await importRewardModule('shepherd', './outcome.js').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RewardUnavailableError);
    expect((e as Error).message).toMatch(/core\/rewards\/outcome\.ts does not export rewardModule/);
  });
});

describe('computeRewards', () => {
  it('gives each component per step and the weighted total with its terms', async () => {
    const r = await computeRewards(episode(3, true, [1]), { components: [{ kind: 'outcome', weight: 1 }, { kind: 'format', weight: 0.5 }] });
    expect(r.components).toEqual([{ kind: 'outcome', weight: 1 }, { kind: 'format', weight: 0.5 }]);
    expect(r.byKind.outcome!.map((v) => v.value)).toEqual([0, 0, 1]);
    expect(r.byKind.format!.map((v) => v.value)).toEqual([0, -1, 0]);
    expect(r.steps.map((s) => s.total)).toEqual([0, -0.5, 1]);
    expect(r.steps[1]!.totalExplanation).toBe('1·outcome(0) + 0.5·format(-1)');
    expect(r.steps[1]!.description).toBe('step 1');
    expect(r.steps[2]!.values.outcome).toEqual({ step: 2, value: 1, explanation: 'checker: success' });
  });

  it('a null in a weighted component makes the total null with the reason, never 0', async () => {
    const r = await computeRewards(episode(2, null, [0]), configOfKinds(['outcome', 'format']));
    expect(r.steps.map((s) => s.total)).toEqual([null, null]);
    expect(r.steps[0]!.totalExplanation).toMatch(/^outcome unscored \(no checker verdict: /);
    expect(r.byKind.format!.map((v) => v.value)).toEqual([-1, 0]);
  });

  it('a component with weight 0 is shown but neither counted nor able to null the total', async () => {
    const r = await computeRewards(episode(2, null, [0]), { components: [{ kind: 'format', weight: 2 }, { kind: 'outcome', weight: 0 }] });
    expect(r.steps.map((s) => s.total)).toEqual([-2, 0]);
    expect(r.steps[0]!.values.outcome!.value).toBeNull();
  });

  it('refuses a component that returns the wrong number of values', async () => {
    const set = new RewardSet([{ kind: 'outcome', weight: 1, component: { kind: 'outcome', compute: async () => [] } }]);
    await expect(set.compute(episode(2, true))).rejects.toBeInstanceOf(RewardComponentError);
  });
});

describe('shortest-path component', () => {
  it('adjusts a longer success against the group, so outcome + shortest-path is the SPA reward', async () => {
    const short = episode(4, true);
    const long = episode(8, true);
    const failed = episode(2, false);
    const unjudged = episode(1, null);
    const group = [short, long, failed, unjudged];
    const prepared = await prepareRewards(configOfKinds(['outcome', 'shortest-path']));
    const set = await prepared.instantiate({ group });
    const rLong = await set.compute(long);
    // 1 − α·(8 − 4)/(2·8) = 0.75 (MobileRL SPA, α = 1)
    expect(rLong.byKind['shortest-path']!.at(-1)!.value).toBeCloseTo(-0.25, 12);
    expect(rLong.byKind['shortest-path']!.at(-1)!.explanation).toMatch(/success in 8 steps, shortest success 4 of 3 judged/);
    expect(rLong.steps.at(-1)!.total).toBeCloseTo(0.75, 12);
    expect((await set.compute(short)).steps.at(-1)!.total).toBe(1);
    expect((await set.compute(failed)).byKind['shortest-path']!.map((v) => v.value)).toEqual([0, 0]);
    expect((await set.compute(unjudged)).byKind['shortest-path']![0]!.value).toBeNull();
  });

  it('alone, an episode is its own group: no adjustment', async () => {
    const ep = episode(5, true);
    expect((await shortestPathComponent().compute(ep)).at(-1)!.value).toBe(0);
  });

  it('α scales the adjustment', async () => {
    const short = episode(2, true);
    const long = episode(4, true);
    expect((await shortestPathComponent({ alpha: 0.5 }, { group: [short, long] }).compute(long)).at(-1)!.value).toBeCloseTo(-0.125, 12);
  });
});
