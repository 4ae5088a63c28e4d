import { describe, expect, it } from 'vitest';
import type { Action } from '../../core/actions/schema.js';
import { AdmireReward, ConsensusDistiller, LlmDistiller, MemoryMilestoneStore, MilestoneMemory } from '../../core/rewards/admire/index.js';
import type { RewardEpisode } from '../../core/rewards/component.js';
import { RewardSet } from '../../core/rewards/compose.js';
import { hasDetail, verdictOf, type AdmireDetail, type ProgRmDetail, type ShepherdDetail } from '../../core/rewards/details.js';
import { outcomeComponent } from '../../core/rewards/outcome.js';
import { createEncoder } from '../../core/policy/encoder.js';
import { buildRecipeLibrary, DEFAULT_ANNOTATE } from '../../core/rewards/progrm/annotate.js';
import { progressFeatureDim, type ProgressModel } from '../../core/rewards/progrm/model.js';
import { ProgRmReward } from '../../core/rewards/progrm/reward.js';
import type { JudgeInput, JudgeVerdict, StepJudge } from '../../core/rewards/shepherd/judge.js';
import { ShepherdReward } from '../../core/rewards/shepherd/reward.js';
import { episode as progEpisode } from './progrm-fixtures.js';

const fg = { package: 'com.android.contacts', activity: 'Main' };
const admireEpisode = (name: string, descriptions: Array<string | undefined>, success: boolean | null): RewardEpisode => ({
  templateId: 'ContactsStarContact', seed: 0, instruction: `Star ${name}`, params: { person: { name } }, success,
  steps: descriptions.map((d, index) => (d === undefined ? { index, foreground: fg } : { index, foreground: fg, description: d })),
});
const path = (name: string) => ['Open Contacts', `Tap "${name}" in Contacts`, 'Tap "Add to favourites" in Contacts', 'Declare the task complete'];

async function trainedAdmire(config: ConstructorParameters<typeof AdmireReward>[0]['config'] = {}): Promise<AdmireReward> {
  const c = new AdmireReward({ memory: new MilestoneMemory(new MemoryMilestoneStore(), new ConsensusDistiller()), config });
  await c.observe([admireEpisode('Grace Bauer', path('Grace Bauer'), true), admireEpisode('Omar Haddad', path('Omar Haddad'), true)]);
  return c;
}

describe('ADMIRE detail', () => {
  it('lists the milestones with the instance filled in and the step that hit each', async () => {
    const c = await trainedAdmire();
    const ep = admireEpisode('Zoe Ito', ['Open Contacts', 'Scroll down in Contacts', 'Tap "Grace Bauer" in Contacts', 'Tap "Zoe Ito" in Contacts', undefined], false);
    const { values, detail } = await c.computeDetailed(ep);
    expect(values).toEqual(await c.compute(ep));
    const d = detail as AdmireDetail;
    expect(d).toMatchObject({ kind: 'admire', templateId: 'ContactsStarContact', version: 1, embedderId: 'hashed-ngram/256/3', delta: 0.75 });
    expect(d.milestones.map((m) => m.text)).toEqual(['Open Contacts', 'Tap "Zoe Ito" in Contacts', 'Tap "Add to favourites" in Contacts']);
    expect(d.milestones.map((m) => m.hitStep)).toEqual([0, 3, null]);
    expect(d.milestones[0]!.similarity).toBeCloseTo(1, 6);
    // the missed milestone was never compared: the pointer stopped before it (step 4 has no description)
    expect(d.milestones[2]!.similarity).toBeNull();
    // the wrong contact was compared with milestone 2 and missed: its best cosine stays below δ
    expect(d.steps[2]).toMatchObject({ compared: 1, hit: false });
    expect(d.steps[2]!.similarity!).toBeLessThan(0.75);
    expect(d.steps.map((s) => s.hit)).toEqual([true, false, false, true, false]);
    expect(d.steps[4]).toEqual({ compared: null, similarity: null, hit: false });
    expect(d.note).toBeUndefined();
  });

  it('with rehit, the last milestone lists every step that hit it', async () => {
    const c = await trainedAdmire({ afterLast: 'rehit' });
    const ep = admireEpisode('Zoe Ito', [...path('Zoe Ito').slice(0, 3), 'Tap "Add to favourites" in Contacts'], true);
    const d = (await c.computeDetailed(ep)).detail as AdmireDetail;
    expect(d.milestones.map((m) => m.hitSteps)).toEqual([[0], [1], [2, 3]]);
  });

  it('without milestones or a verdict it says why, and an episode without a verdict still shows its hits', async () => {
    const fresh = new AdmireReward({ memory: new MilestoneMemory(new MemoryMilestoneStore(), new ConsensusDistiller()) });
    const none = (await fresh.computeDetailed(admireEpisode('Zoe Ito', path('Zoe Ito'), false))).detail as AdmireDetail;
    expect(none).toMatchObject({ version: null, milestones: [], note: 'no milestones for ContactsStarContact yet (no success distilled)' });
    expect(none.steps).toHaveLength(4);
    const c = await trainedAdmire();
    const r = await c.computeDetailed(admireEpisode('Zoe Ito', path('Zoe Ito'), null));
    expect(r.values.every((v) => v.value === null)).toBe(true);
    const d = r.detail as AdmireDetail;
    expect(d.milestones.map((m) => m.hitStep)).toEqual([0, 1, 2]);
    expect(d.note).toMatch(/no checker verdict/);
  });

  it('a failed distillation is the note, with no match', async () => {
    const memory = new MilestoneMemory(new MemoryMilestoneStore(), new LlmDistiller({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm', retries: 0, timeoutMs: 500 }));
    const c = new AdmireReward({ memory, bootstrap: () => [{ instruction: 'x', params: {}, descriptions: ['Open Contacts'] }] });
    const d = (await c.computeDetailed(admireEpisode('Zoe Ito', path('Zoe Ito'), false))).detail as AdmireDetail;
    expect(d.milestones).toEqual([]);
    expect(d.note).toMatch(/^milestones could not be distilled \(LlmEndpointError/);
  });
});

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));
/**
 * Progress σ(tanh((t+1)/20)) after step t, as in progrm-reward.test.ts, read off the step-count
 * feature (index 4D). The network is a stand-in with only `predict` (all the reward calls): the
 * cast keeps this test off the network class, which is being reworked.
 */
function clockModel(): ProgressModel {
  const encoder = createEncoder({ kind: 'hashed-ngram', dim: 8, charN: 3 });
  expect(progressFeatureDim(8)).toBeGreaterThan(32);
  const net = { predict: (x: ArrayLike<number>) => sigmoid(Math.tanh(x[32]!)) } as unknown as ProgressModel['net'];
  return { encoder, net };
}
const prog = (t: number) => sigmoid(Math.tanh((t + 1) / 20));

describe('ProgRM detail', () => {
  const recipeEp = progEpisode(['open:Contacts', 'tap:Add', 'type:Name=<n>', 'tap:Save', 'done']);

  it('gives the progress curve, the steps as triples, and the alignment to the matched recipe', async () => {
    const model = clockModel();
    const library = buildRecipeLibrary([recipeEp], { ...DEFAULT_ANNOTATE, encoder: model.encoder });
    const failed = progEpisode(['open:Contacts', 'scroll:down', 'tap:Add', 'back'], { success: false });
    const reward = new ProgRmReward(model, { k: 1, library });
    const { values, detail } = await reward.computeDetailed(failed);
    expect(values).toEqual(await reward.compute(failed));
    const d = detail as ProgRmDetail;
    expect(d.kind).toBe('progrm');
    expect(d.k).toBe(1);
    expect(d.progress).toHaveLength(5);
    d.progress.forEach((p, i) => expect(p).toBeCloseTo(prog(i - 1), 6));
    expect(d.actions).toHaveLength(4);
    expect(d.actions[0]).toBe('OPEN_APP("contacts")');
    expect(d.recipe).toMatchObject({ index: 0, support: 1 });
    expect(d.recipe!.keySteps).toHaveLength(5);
    expect(d.recipe!.keySteps[1]).toBe('CLICK("Add")');
    expect(d.alignment).toEqual([{ step: 0, keyStep: 0 }, { step: 2, keyStep: 1 }]);
    expect(d.recipe!.completion).toBeCloseTo(2 / 5, 6);
  });

  it('without a library: the curve and no recipe', async () => {
    const d = (await new ProgRmReward(clockModel(), { k: 2 }).computeDetailed(recipeEp)).detail as ProgRmDetail;
    expect(d).toMatchObject({ k: 2, recipe: null, alignment: [] });
    expect(d.progress).toHaveLength(6);
  });
});

class TableJudge implements StepJudge {
  readonly name = 'table';
  calls = 0;
  constructor(private readonly table: Partial<Record<Action['action_type'], number | null>>) {}
  judge(inputs: readonly JudgeInput[]): Promise<JudgeVerdict[]> {
    this.calls++;
    return Promise.resolve(inputs.map((i) => {
      const p = this.table[i.action.action_type];
      return p === null || p === undefined ? { p: null, reason: `endpoint down for ${i.action.action_type}` } : { p, explanation: `table says ${p}` };
    }));
  }
}

describe('GUI-Shepherd detail', () => {
  const sfg = { package: 'com.android.settings', activity: 'Settings' };
  const ep: RewardEpisode = {
    templateId: 'SystemWifiTurnOn', seed: 0, instruction: 'Turn on Wi-Fi', params: {}, success: true,
    steps: [
      { index: 0, action: { action_type: 'open_app', app_name: 'Settings' }, description: 'Open Settings', foreground: sfg },
      { index: 1, error: { name: 'ActionParseError', message: 'bad json' }, foreground: sfg },
      { index: 2, action: { action_type: 'click', index: 3 }, description: 'Tap "Network"', foreground: sfg },
      { index: 3, action: { action_type: 'navigate_back' }, foreground: sfg },
    ],
  };

  it('gives each step the judge’s P(correct), its verdict and reason, judging once', async () => {
    const judge = new TableJudge({ open_app: 0.9, click: 0.25, navigate_back: null });
    const r = await new ShepherdReward(judge, { mapping: 'centered' }).computeDetailed(ep);
    expect(judge.calls).toBe(1);
    expect(r.values.map((v) => v.value)).toEqual([0.8, -1, -0.5, null]);
    const d = r.detail as ShepherdDetail;
    expect(d).toMatchObject({ kind: 'shepherd', judge: 'table', mapping: 'centered' });
    expect(d.steps.map((s) => [s.pCorrect, s.verdict])).toEqual([[0.9, 'correct'], [0, 'no-action'], [0.25, 'incorrect'], [null, 'unjudged']]);
    expect(d.steps[3]!.reason).toBe('endpoint down for navigate_back');
    expect(d.steps[0]!.reason).toBe('table says 0.9');
    expect(verdictOf(0.5)).toBe('correct');
    expect(verdictOf(0.4999)).toBe('incorrect');
  });
});

describe('RewardSet details', () => {
  it('collects details only when asked, only from detailed kinds', async () => {
    const judge = new TableJudge({ open_app: 0.9, click: 0.25, navigate_back: 0.6 });
    const set = new RewardSet([
      { kind: 'outcome', weight: 1, component: outcomeComponent() },
      { kind: 'shepherd', weight: 1, component: new ShepherdReward(judge) },
    ]);
    const ep: RewardEpisode = {
      templateId: 'SystemWifiTurnOn', seed: 0, instruction: 'x', params: {}, success: true,
      steps: [{ index: 0, action: { action_type: 'open_app', app_name: 'Settings' }, foreground: fg }],
    };
    expect((await set.compute(ep)).details).toBeUndefined();
    const b = await set.compute(ep, undefined, { details: true });
    expect(Object.keys(b.details!)).toEqual(['shepherd']);
    expect(b.byKind.shepherd![0]!.value).toBe(0.9);
    expect(b.steps[0]!.total).toBeCloseTo(1.9, 9);
    expect([hasDetail('admire'), hasDetail('progrm'), hasDetail('shepherd'), hasDetail('outcome'), hasDetail('format'), hasDetail('shortest-path')])
      .toEqual([true, true, true, false, false, false]);
  });

  it('refuses a detail of another kind', async () => {
    const liar = { kind: 'shepherd' as const, compute: () => Promise.resolve([]), computeDetailed: () => Promise.resolve({ values: [], detail: { kind: 'progrm', k: 1, progress: [0], actions: [], recipe: null, alignment: [] } as ProgRmDetail }) };
    const set = new RewardSet([{ kind: 'shepherd', weight: 1, component: liar }]);
    const ep: RewardEpisode = { templateId: 't', seed: 0, instruction: 'x', params: {}, success: true, steps: [] };
    await expect(set.compute(ep, undefined, { details: true })).rejects.toThrow(/its detail is of another kind/);
  });
});
