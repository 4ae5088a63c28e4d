import { afterAll, describe, expect, it } from 'vitest';
import { checkRewardValues, type RewardEpisode } from '../../core/rewards/component.js';
import { AdmireReward, ConsensusDistiller, LlmDistiller, MemoryMilestoneStore, MilestoneMemory, rewardModule, admireWeight, DEFAULT_ADMIRE_CONFIG } from '../../core/rewards/admire/index.js';
import { evaluateMilestoneMatching, matchAccuracy, separationAuc } from '../../core/rewards/admire/accuracy.js';
import { TASKS } from '../../core/tasks/registry.js';
import { instantiate } from '../../core/tasks/instance.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { RandomPolicy } from '../../core/episode/policies/random.js';
import { createRng } from '../../core/util/rng.js';
import { device } from '../helpers/simdroid.js';
import { computeRewards } from '../../core/rewards/compose.js';
import { rewardEpisodeFromTrajectory } from '../../core/rewards/episode.js';
import { openStore } from '../../core/store/db.js';
import { StoreRecorder } from '../../core/store/recorder.js';
import { createRun } from '../../core/store/runs.js';
import { loadTrajectory } from '../../core/store/trajectory.js';
import { getTree } from '../../core/store/content.js';
import { SqliteMilestoneStore } from '../../core/rewards/admire/milestone-store.js';
import { runEpisode } from '../../core/episode/runner.js';

const fg = { package: 'com.android.contacts', activity: 'Main' };
const episode = (name: string, descriptions: Array<string | undefined>, success: boolean | null): RewardEpisode => ({
  templateId: 'ContactsStarContact', seed: 0, instruction: `Star ${name}`, params: { person: { name } }, success,
  steps: descriptions.map((d, index) => (d === undefined ? { index, foreground: fg } : { index, foreground: fg, description: d })),
});
const path = (name: string) => ['Open Contacts', `Tap "${name}" in Contacts`, 'Tap "Add to favourites" in Contacts', 'Declare the task complete'];

function component(over: ConstructorParameters<typeof AdmireReward>[0]['config'] = {}) {
  const memory = new MilestoneMemory(new MemoryMilestoneStore(), new ConsensusDistiller());
  return new AdmireReward({ memory, config: over, epoch: 1 });
}

describe('AdmireReward', () => {
  it('before any success: zeros with the reason (or unscored when asked)', async () => {
    const ep = episode('Zoe Ito', path('Zoe Ito'), false);
    const zero = await component().compute(ep);
    checkRewardValues('admire', ep, zero);
    expect(zero.map((v) => v.value)).toEqual([0, 0, 0, 0]);
    expect(zero[0]!.explanation).toContain('no milestones for ContactsStarContact');
    expect((await component({ noMilestones: 'unscored' }).compute(ep)).map((v) => v.value)).toEqual([null, null, null, null]);
  });

  it('after observing successes, a new instance is matched with its own values filled in', async () => {
    const c = component();
    const [r] = await c.observe([episode('Grace Bauer', path('Grace Bauer'), true), episode('Omar Haddad', path('Omar Haddad'), true), episode('X', ['Open Clock'], false)]);
    expect(r).toMatchObject({ templateId: 'ContactsStarContact', version: 1, milestones: ['Open Contacts', 'Tap "<PersonName>" in Contacts', 'Tap "Add to favourites" in Contacts'] });
    const lambda = admireWeight(DEFAULT_ADMIRE_CONFIG, 1);

    const win = episode('Zoe Ito', ['Open Contacts', 'Scroll down in Contacts', 'Tap "Zoe Ito" in Contacts', 'Tap "Add to favourites" in Contacts', 'Declare the task complete'], true);
    const v = await c.compute(win);
    checkRewardValues('admire', win, v);
    expect(v.map((x) => x.value)).toEqual([lambda, 0, lambda, lambda, 0]);
    expect(v[2]!.explanation).toMatch(/^hit m2\/3 "Tap \\"Zoe Ito\\" in Contacts" \(cos 1\.00 > δ 0\.75\); success: similarity = 1\.000 × λ 0\.297 \(milestones v1\)$/);
    expect(v[4]!.explanation).toContain('all milestones done');

    // a failure that opened the app and the wrong contact: base 1/3 from the first hit on
    const lose = episode('Zoe Ito', ['Open Contacts', 'Tap "Grace Bauer" in Contacts', undefined], false);
    const l = await c.compute(lose);
    expect(l[0]!.value).toBeCloseTo(lambda * (1 / 3 + 0.5), 9);
    expect(l[1]!.value).toBeCloseTo(lambda / 3, 9);
    expect(l[1]!.explanation).toContain('no hit m2/3');
    expect(l[2]!.explanation).toContain('no description to match');
    expect((await component({ weighted: false }).compute(lose))[0]!.value).toBe(0);
  });

  it('a bootstrap whose LLM endpoint is down leaves the template unscored with the reason, asking once', async () => {
    let asked = 0;
    const memory = new MilestoneMemory(new MemoryMilestoneStore(), new LlmDistiller({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', retries: 0, timeoutMs: 500 }));
    const c = new AdmireReward({ memory, bootstrap: () => (asked++, [{ instruction: 'x', params: {}, descriptions: ['Open Contacts'] }]) });
    const ep = episode('Zoe Ito', path('Zoe Ito'), false);
    for (let i = 0; i < 2; i++) {
      const v = await c.compute(ep);
      expect(v.every((x) => x.value === null && x.explanation.includes('LlmEndpointError'))).toBe(true);
    }
    expect(asked).toBe(1);
  });

  it('an episode without a verdict is unscored, with the reason', async () => {
    const ep = { ...episode('Zoe Ito', path('Zoe Ito'), null), verdictNote: 'environment_error: observe failed' };
    const v = await component().compute(ep);
    expect(v.every((x) => x.value === null && x.explanation.includes('environment_error: observe failed'))).toBe(true);
  });

  it('the registry module builds a component from options, refusing unknown ones', () => {
    expect(rewardModule.create(rewardModule.options.parse({ delta: 0.8 }), {}).kind).toBe('admire');
    expect(() => rewardModule.options.parse({ distiller: { kind: 'llm', model: 'm' } })).toThrow();
    expect(() => rewardModule.options.parse({ nope: 1 })).toThrow();
  });
});

describe('through the registry with a store', () => {
  it('separationAuc is the chance a success outscores a failure, ties half; null without both classes', () => {
    const e = (score: number, success: boolean) => ({ score, success });
    expect(separationAuc([e(1, true), e(0.5, true), e(0, false), e(0.5, false)])).toBe(0.875); // (1 + 1 + 1 + 0.5) / 4
    expect(separationAuc([e(0, true), e(1, false)])).toBe(0);
    expect(separationAuc([e(0.3, true), e(0.3, false)])).toBe(0.5);
    expect(separationAuc([e(1, true)])).toBeNull();
  });

  const d = device();
  afterAll(() => d.close());

  it('distils a template from its recorded successes on first use, persists version 1, and scores a stored failure', async () => {
    const db = openStore(':memory:');
    try {
      const run = createRun(db, { kind: 'single', name: 'admire' }).id;
      const template = TASKS.find((t) => t.id === 'ContactsAddContact')!;
      for (const seed of [0, 1]) await runEpisode({ device: d, instance: instantiate(template, seed), policy: new OraclePolicy(), recorder: new StoreRecorder(db, run) });
      const recorder = new StoreRecorder(db, run);
      const failed = await runEpisode({ device: d, instance: instantiate(template, 5), policy: new OraclePolicy(), recorder, maxSteps: 3 });
      expect(failed.status).toBe('failure');
      const ep = rewardEpisodeFromTrajectory(loadTrajectory(db, recorder.episodeId!), (h) => getTree(db, h));
      const r = await computeRewards(ep, { components: [{ kind: 'admire', weight: 1 }] }, { db });
      const values = r.byKind.admire!.map((v) => v.value);
      const versions = new SqliteMilestoneStore(db).versions('ContactsAddContact');
      expect(versions).toHaveLength(1);
      const K = versions[0]!.milestones.length;
      expect(versions[0]!.milestones[2]).toBe('Type "<PersonFirst>" into "first name" in Contacts');
      // three oracle steps hit the first three milestones: running base k/K plus ζ·1, times λ(1)
      const lambda = admireWeight(DEFAULT_ADMIRE_CONFIG, 1);
      values.forEach((v, i) => expect(v).toBeCloseTo(lambda * ((i + 1) / K + 0.5), 6));
    } finally {
      db.close();
    }
  }, 30_000);
});

describe('accuracy against SimDroid ground-truth subgoals', () => {
  it('matchAccuracy counts a step as positive when it advanced the subgoal pointer', () => {
    const a = matchAccuracy([{ hit: [true, true, false, false], progress: { names: ['a', 'b'], done: [1, 1, 2, 2] } }]);
    expect(a).toMatchObject({ tp: 1, fp: 1, fn: 1, tn: 1, precision: 0.5, recall: 0.5, accuracy: 0.5 });
  });

  const d = device();
  afterAll(() => d.close());

  it('oracle episodes on held-out seeds recall every subgoal step; random ones hit far less', async () => {
    const templates = TASKS.filter((t) => ['ContactsAddContact', 'ClockAddWorldClockCity'].includes(t.id));
    expect(templates).toHaveLength(2);
    const memory = new MilestoneMemory(new MemoryMilestoneStore(), new ConsensusDistiller());
    const r = await evaluateMilestoneMatching({
      device: d, memory, deltas: [0.75],
      distillOn: templates.flatMap((t) => [0, 1, 2].map((s) => instantiate(t, s))),
      evalOn: templates.flatMap((t) => [100, 101].map((s) => instantiate(t, s))),
      makeOracle: () => new OraclePolicy(),
      policies: [
        { name: 'oracle', make: () => new OraclePolicy() },
        { name: 'random', make: (i) => new RandomPolicy(createRng(`admire-test/${i.template.id}/${i.seed}`)) },
      ],
    });
    expect(r.milestones.templates).toBe(2);
    const oracle = r.episodes.filter((e) => e.policy === 'oracle');
    expect(oracle.every((e) => e.success && e.progress.done.at(-1) === e.progress.names.length)).toBe(true);
    const [row] = r.byDelta;
    expect(row!.byPolicy.oracle!.recall).toBe(1);
    const hitsPerStep = (p: string) => { const a = row!.byPolicy[p]!; return (a.tp + a.fp) / a.steps; };
    expect(hitsPerStep('random')).toBeLessThan(hitsPerStep('oracle') / 2);
  }, 60_000);
});
