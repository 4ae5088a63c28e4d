import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { computeRewards, prepareRewards, RewardConfigError } from '../../core/rewards/compose.js';
import { saveProgressModel } from '../../core/rewards/progrm/checkpoint.js';
import { fitProgRm, loadProgRm, saveProgRm } from '../../core/rewards/progrm/fit.js';
import { ProgRmCheckpointMissingError, ProgRmModelMissingError } from '../../core/rewards/progrm/index.js';
import { libraryFromJson, AnnotationError } from '../../core/rewards/progrm/annotate.js';
import { parseProgressTrainConfig } from '../../core/rewards/progrm/train.js';
import { createEncoder } from '../../core/policy/encoder.js';
import { checkRewardValues } from '../../core/rewards/component.js';
import { buildRecipeLibrary, DEFAULT_ANNOTATE } from '../../core/rewards/progrm/annotate.js';
import { progressFeatureDim, type ProgressModel } from '../../core/rewards/progrm/model.js';
import { sigmoid, SigmoidMlp } from '../../core/rewards/mlp.js';
import { ProgRmOptionError, ProgRmReward, progressGains } from '../../core/rewards/progrm/reward.js';
import { episode } from './progrm-fixtures.js';

/** A model whose progress is σ(tanh((t+1)/20)) after step t: it reads only the step-count feature. */
function clockModel(): ProgressModel {
  const encoder = createEncoder({ kind: 'hashed-ngram', dim: 8, charN: 3 });
  const F = progressFeatureDim(8);
  const net = new SigmoidMlp({ input: F, hidden: 1 });
  net.params[32] = 1; // W1[0, 4D]: the t/20 feature
  net.params[F + 1] = 1; // w2
  return { encoder, net };
}
const prog = (t: number) => sigmoid(Math.tanh((t + 1) / 20)); // t = −1 is the initial state

describe('progress gains', () => {
  it('is Prog(s_t) − Prog(s_{t−k}), clamped to the initial state, and can be negative', () => {
    const p = [0.1, 0.3, 0.2, 0.6];
    const k1 = progressGains(p, 1);
    expect(k1.map((x) => +x.toFixed(12))).toEqual([0.2, -0.1, 0.4]);
    const k2 = progressGains(p, 2);
    expect(k2.map((x) => +x.toFixed(12))).toEqual([0.2, 0.1, 0.3]);
    expect(progressGains([0.5], 1)).toEqual([]);
    expect(() => progressGains(p, 0)).toThrow(ProgRmOptionError);
    expect(() => progressGains(p, 1.5)).toThrow(/k must be a positive integer/);
  });
});

describe('ProgRmReward', () => {
  const ep = episode(['open:Contacts', 'tap:Add', 'type:Name=<n>', 'tap:Save', 'done']);

  it('gives each step its progress gain with the curve in the explanation', async () => {
    const reward = new ProgRmReward(clockModel());
    expect(reward.kind).toBe('progrm');
    const values = await reward.compute(ep);
    expect(() => checkRewardValues('progrm', ep, values)).not.toThrow();
    values.forEach((v, t) => {
      expect(v.step).toBe(t);
      expect(v.value).toBeCloseTo(prog(t) - prog(t - 1), 6);
      expect(v.explanation).toBe(`progress ${prog(t - 1).toFixed(2)} → ${prog(t).toFixed(2)} (+${(prog(t) - prog(t - 1)).toFixed(2)})`);
    });
    // The gains telescope to the whole episode's progress.
    expect(values.reduce((s, v) => s + v.value!, 0)).toBeCloseTo(prog(4) - prog(-1), 6);
  });

  it('sums k steps of gain for k > 1 and says so', async () => {
    const values = await new ProgRmReward(clockModel(), { k: 3 }).compute(ep);
    expect(values[0]!.value).toBeCloseTo(prog(0) - prog(-1), 6);
    expect(values[4]!.value).toBeCloseTo(prog(4) - prog(1), 6);
    expect(values[0]!.explanation).toMatch(/over 1 step\)$/);
    expect(values[4]!.explanation).toMatch(/over 3 steps\)$/);
    expect(() => new ProgRmReward(clockModel(), { k: 0 })).toThrow(ProgRmOptionError);
  });

  it('names the recipe step a key step matched when given a library', async () => {
    const model = clockModel();
    const library = buildRecipeLibrary([ep], { ...DEFAULT_ANNOTATE, encoder: model.encoder });
    const failed = episode(['open:Contacts', 'scroll:down', 'tap:Add', 'back'], { success: false });
    const values = await new ProgRmReward(model, { k: 1, library }).compute(failed);
    expect(values[0]!.explanation).toMatch(/; key step 1\/5 of recipe 1: OPEN_APP\("contacts"\)$/);
    expect(values[1]!.explanation).not.toMatch(/key step/);
    expect(values[2]!.explanation).toMatch(/key step 2\/5 of recipe 1: CLICK\("Add"\)$/);
    expect(values[3]!.explanation).not.toMatch(/key step/);
    const trace = new ProgRmReward(model, { k: 1, library }).trace(failed);
    expect(trace.progress).toHaveLength(5);
    expect(trace.progress[0]).toBeCloseTo(prog(-1), 6);
    expect(trace.actions.map((a) => a.type)).toEqual(['OPEN_APP', 'SCROLL', 'CLICK', 'GOBACK']);
    expect(trace.alignment!.keySteps).toEqual([[0, 0], [2, 1]]);
    expect(new ProgRmReward(model).trace(failed).alignment).toBeNull();
  });

  it('scores an empty episode with no values', async () => {
    expect(await new ProgRmReward(clockModel()).compute(episode([]))).toEqual([]);
  });
});

describe('the progrm registry entry', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awb-progrm-reg-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads the checkpoint named in the options (relative to the data folder) and composes with other components', async () => {
    saveProgressModel(join(dir, 'clock.json'), clockModel());
    const ep = episode(['open:Contacts', 'tap:Add', 'done']);
    const config = { components: [{ kind: 'progrm', weight: 2, options: { checkpoint: 'clock.json', k: 2 } }, { kind: 'outcome', weight: 1 }] };
    const b = await computeRewards(ep, config, { dataDir: dir });
    const values = b.byKind.progrm!;
    expect(values.map((v) => v.value)).toEqual([prog(0) - prog(-1), prog(1) - prog(-1), prog(2) - prog(0)].map((x) => expect.closeTo(x, 6)));
    expect(b.steps.at(-1)!.total).toBeCloseTo(2 * (prog(2) - prog(0)) + 1, 6);
  });

  it('refuses bad options listing the problem, and names a missing checkpoint (by default <dataDir>/progrm/model.json)', async () => {
    await expect(prepareRewards({ components: [{ kind: 'progrm', weight: 1, options: { checkpoint: 'x.json', k: 0 } }] })).rejects.toThrow(RewardConfigError);
    await expect(computeRewards(episode(['tap:x']), { components: [{ kind: 'progrm', weight: 1 }] }))
      .rejects.toThrow(ProgRmCheckpointMissingError);
    await expect(computeRewards(episode(['tap:x']), { components: [{ kind: 'progrm', weight: 1 }] }, { dataDir: dir }))
      .rejects.toThrow(new ProgRmModelMissingError(join(dir, 'progrm', 'model.json')).message);
    await expect(computeRewards(episode(['tap:x']), { components: [{ kind: 'progrm', weight: 1 }] }, { dataDir: dir }))
      .rejects.toThrow(/^No ProgRM model at .*: fit one with `awb rewards fit progrm`/);
    await expect(computeRewards(episode(['tap:x']), { components: [{ kind: 'progrm', weight: 1, options: { checkpoint: 'missing.json' } }] }, { dataDir: dir }))
      .rejects.toMatchObject({ name: 'ProgRmModelMissingError', checkpoint: join(dir, 'missing.json') });
  });

  it('fits a model from episodes and keeps its recipe library in the checkpoint, so the registry\'s reward names key steps', async () => {
    const ok = ['open:Contacts', 'tap:Add', 'type:Name=<n>', 'tap:Save', 'done'];
    const eps = [
      episode(ok, { seed: 1 }), episode(['open:Contacts', 'scroll:down', ...ok.slice(1)], { seed: 2 }),
      episode(['open:Contacts', 'tap:Add', 'back', 'back'], { seed: 3, success: false }),
    ];
    const fit = fitProgRm(eps, { source: 'lcs', config: parseProgressTrainConfig({ epochs: 5 }), seed: 0, annotate: { taskKey: 'template' } });
    expect(fit.metrics).toHaveLength(5);
    expect(fit.annotated.map((a) => a.labels.at(-1))).toEqual([1, 1, 0.4]);
    saveProgRm(join(dir, 'fit.json'), fit, { note: 'test' });
    const back = loadProgRm(join(dir, 'fit.json'));
    expect(back.meta).toMatchObject({ note: 'test', source: 'lcs', annotate: { thetaL: 0.6, taskKey: 'template' } });
    expect([...back.library.keys()]).toEqual(['T']);
    expect(back.library.get('T')![0]!.actions).toHaveLength(5);

    const b = await computeRewards(eps[2]!, { components: [{ kind: 'progrm', weight: 1, options: { checkpoint: 'fit.json' } }] }, { dataDir: dir });
    expect(b.byKind.progrm![1]!.explanation).toMatch(/key step 2\/5 of recipe 1: CLICK\("Add"\)/);
    expect(() => libraryFromJson({ T: [{ actions: [{ type: 'FLY', element: '', text: '' }], support: 1 }] })).toThrow(AnnotationError);
  });
});
