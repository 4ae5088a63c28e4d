import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { computeRewards } from '../../core/rewards/compose.js';
import { createJudgeModel, saveJudge } from '../../core/rewards/shepherd/builtin.js';
import type { Action } from '../../core/actions/schema.js';
import type { RewardEpisode } from '../../core/rewards/component.js';
import { collectLabelledSteps } from '../../core/rewards/shepherd/collect.js';
import type { JudgeInput, JudgeVerdict, StepJudge } from '../../core/rewards/shepherd/judge.js';
import { mapProbability, ShepherdReward } from '../../core/rewards/shepherd/reward.js';
import { VerifierPolicy, VerifierSizeError } from '../../core/rewards/shepherd/verifier.js';
import { runEpisode } from '../../core/episode/runner.js';
import type { Policy } from '../../core/episode/policy.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { createRng } from '../../core/util/rng.js';
import { device } from '../helpers/simdroid.js';

const d = device();
afterAll(() => d.close());

/** A judge that answers from a table keyed by action type (null = endpoint down for that step). */
class TableJudge implements StepJudge {
  readonly name = 'table';
  calls: JudgeInput[] = [];
  constructor(private readonly table: Partial<Record<Action['action_type'], number | null>>) {}
  judge(inputs: readonly JudgeInput[]): Promise<JudgeVerdict[]> {
    this.calls.push(...inputs);
    return Promise.resolve(inputs.map((i) => {
      const p = this.table[i.action.action_type];
      return p === null || p === undefined ? { p: null, reason: `unjudged: no answer for ${i.action.action_type}` } : { p, explanation: `table says ${p}` };
    }));
  }
}

const fg = { package: 'com.android.settings', activity: 'com.android.settings.Settings' };
const episode: RewardEpisode = {
  templateId: 'SystemWifiTurnOn', seed: 0, instruction: 'Turn on Wi-Fi', params: {}, success: true,
  steps: [
    { index: 0, action: { action_type: 'open_app', app_name: 'Settings' }, description: 'Open Settings', foreground: fg },
    { index: 1, error: { name: 'ActionParseError', message: 'bad json' }, foreground: fg },
    { index: 2, action: { action_type: 'click', index: 3 }, description: 'Tap "Network"', foreground: fg, target: { label: 'Network' }, tree: '<not xml' },
    { index: 3, action: { action_type: 'navigate_back' }, foreground: fg },
  ],
};

describe('shepherd reward component', () => {
  it('maps each judged step through the chosen mapping; a format error is P = 0, an unjudged step null with the reason', async () => {
    const judge = new TableJudge({ open_app: 0.9, click: 0.25, navigate_back: null });
    const probability = await new ShepherdReward(judge).compute(episode);
    expect(probability.map((v) => v.value)).toEqual([0.9, 0, 0.25, null]);
    expect(probability[1]!.explanation).toMatch(/no parsed action/);
    expect(probability[3]!.explanation).toMatch(/unjudged: no answer for navigate_back/);
    expect(probability[0]!.explanation).toMatch(/^table: table says 0\.9/);
    // The judge saw the history and the recorded target label (the corrupt tree gives no elements).
    expect(judge.calls[1]).toMatchObject({ step: 2, targetLabel: 'Network', elements: [] });
    expect(judge.calls[1]!.history.map((h) => h.description)).toEqual(['Open Settings', undefined]);

    const centered = await new ShepherdReward(judge, { mapping: 'centered' }).compute(episode);
    expect(centered.map((v) => v.value)).toEqual([expect.closeTo(0.8, 9), -1, -0.5, null]);
    const binary = await new ShepherdReward(judge, { mapping: 'binary' }).compute(episode);
    expect(binary.map((v) => v.value)).toEqual([1, 0, 0, null]);
    expect(mapProbability(0.5, 'binary')).toBe(1);
  });

  it('hands the recorded screenshots to the judge', async () => {
    const judge = new TableJudge({ open_app: 1, click: 1, navigate_back: 1 });
    const png = Uint8Array.from([1, 2]);
    await new ShepherdReward(judge, { screenshotsOf: async () => [png, undefined, undefined, png] }).compute(episode);
    expect(judge.calls.map((c) => c.screenshot)).toEqual([png, undefined, png]);
  });
});

describe('labelled steps from SimDroid', () => {
  it('are 1:1 oracle steps and deviating candidates; every negative differs from the oracle step at the same point', async () => {
    const instances = [instantiate(getTemplate('SystemWifiTurnOn'), 0), instantiate(getTemplate('TasksAddTask'), 1)];
    const set = await collectLabelledSteps(d, instances, { rng: createRng('collect-test') });
    expect(set.episodes).toBe(2);
    expect(set.oracleFailures).toBe(0);
    const pos = set.steps.filter((s) => s.label === 1);
    const neg = set.steps.filter((s) => s.label === 0);
    expect(pos.length).toBeGreaterThan(3);
    expect(neg.length).toBe(pos.length - set.noAlternative);
    for (const n of neg) {
      const same = pos.find((p) => p.templateId === n.templateId && p.input.step === n.input.step)!;
      expect(JSON.stringify(n.input.action)).not.toBe(JSON.stringify(same.input.action));
      expect(n.input.instruction).toBe(same.input.instruction);
    }
    // Capped deviations: one negative per instance.
    const capped = await collectLabelledSteps(d, instances, { rng: createRng('collect-test'), deviationsPerEpisode: 1 });
    expect(capped.steps.filter((s) => s.label === 0)).toHaveLength(2);
  });
});

describe('best-of-n verifier', () => {
  const instance = instantiate(getTemplate('SystemWifiTurnOn'), 0);
  /** Proposes, in turn, navigate_home, then the oracle-like right step, then wait. */
  function cycling(): Policy {
    let k = 0;
    const script: Action[] = [{ action_type: 'navigate_home' }, { action_type: 'open_app', app_name: 'Settings' }, { action_type: 'wait' }];
    return { name: 'cycle', act: () => ({ action: script[k++ % 3]! }) };
  }

  it('samples n actions, judges the distinct ones, and acts on the most probably correct', async () => {
    const judge = new TableJudge({ navigate_home: 0.1, open_app: 0.95, wait: 0.3 });
    const v = new VerifierPolicy(cycling(), judge, 3);
    const r = await runEpisode({ device: d, instance, policy: v, maxSteps: 1 });
    expect(r.steps[0]!.action).toEqual({ action_type: 'open_app', app_name: 'Settings' });
    expect(r.steps[0]!.thought).toMatch(/verifier picked 2 of 3 distinct samples/);
    expect(judge.calls).toHaveLength(3);
  });

  it('ranks unjudged samples last and falls back to the first sample when nothing is judged', async () => {
    const some = new VerifierPolicy(cycling(), new TableJudge({ navigate_home: null, open_app: null, wait: 0.01 }), 3);
    const r1 = await runEpisode({ device: d, instance, policy: some, maxSteps: 1 });
    expect(r1.steps[0]!.action).toEqual({ action_type: 'wait' });
    const none = new VerifierPolicy(cycling(), new TableJudge({}), 3);
    const r2 = await runEpisode({ device: d, instance, policy: none, maxSteps: 1 });
    expect(r2.steps[0]!.action).toEqual({ action_type: 'navigate_home' });
    expect(r2.steps[0]!.thought).toMatch(/no sample judged, acting on the first/);
  });

  it('with n = 1 acts as the base policy, and refuses n < 1', async () => {
    const r = await runEpisode({ device: d, instance, policy: new VerifierPolicy(cycling(), new TableJudge({ open_app: 1 }), 1), maxSteps: 1 });
    expect(r.steps[0]!.action).toEqual({ action_type: 'navigate_home' });
    expect(() => new VerifierPolicy(cycling(), new TableJudge({}), 0)).toThrow(VerifierSizeError);
  });
});

describe('shepherd through the reward registry', () => {
  it('loads the builtin judge from a checkpoint and composes with format; a VLM judge without screenshots leaves steps unscored with the reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'awb-shepherd-reg-'));
    try {
      const model = createJudgeModel(createRng('registry'), undefined, 4);
      mkdirSync(join(dir, 'shepherd'));
      saveJudge(join(dir, 'shepherd', 'judge.json'), model);
      const config = { components: [{ kind: 'shepherd', weight: 1 }, { kind: 'format', weight: 1 }] };
      const b = await computeRewards(episode, config, { dataDir: dir });
      const sh = b.byKind.shepherd!;
      expect(sh).toHaveLength(4);
      expect(sh.filter((v) => v.value !== null && v.value > 0 && v.value < 1)).toHaveLength(3);
      expect(b.steps[1]!.total).toBe(-1); // shepherd 0 + format −1 on the unparseable step
      await expect(computeRewards(episode, config, {})).rejects.toThrow(/needs options\.judge\.checkpoint/);

      const vlm = { components: [{ kind: 'shepherd', weight: 1, options: { judge: { kind: 'vlm', baseUrl: 'http://127.0.0.1:1/v1', model: 'm' } } }] };
      const v = await computeRewards(episode, vlm, {});
      expect(v.byKind.shepherd!.map((x) => x.value)).toEqual([null, 0, null, null]);
      expect(v.byKind.shepherd![0]!.explanation).toMatch(/no screenshot/);
      expect(v.steps[0]!.total).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
