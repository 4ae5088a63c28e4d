import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/util/rng.js';
import { annotateEpisodes, DEFAULT_ANNOTATE } from '../../core/rewards/progrm/annotate.js';
import {
  deserializeProgressModel, loadProgressModel, ProgRmCheckpointError, saveProgressModel, serializeProgressModel,
} from '../../core/rewards/progrm/checkpoint.js';
import { createProgressModel, episodeFeatures, predictProgress, progressFeatureDim, screenText } from '../../core/rewards/progrm/model.js';
import {
  constantBaselineError, meanAbsoluteError, parseProgressTrainConfig, ProgressTrainConfigError, progressSamples, trainProgressModel,
} from '../../core/rewards/progrm/train.js';
import { episode } from './progrm-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'awb-progrm-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('progress features', () => {
  it('has one row for the initial state and one after each step, reading the latest screen', () => {
    const model = createProgressModel(createRng('feat'), { encoder: { kind: 'hashed-ngram', dim: 16, charN: 3 } });
    const ep = episode(['tap:Add', 'tap:Save'], { screens: ['List', 'Editor'] });
    const rows = episodeFeatures(model.encoder, ep);
    expect(rows).toHaveLength(3);
    expect(rows[0]!.length).toBe(progressFeatureDim(16));
    // State after step 0 sees step 1's screen; the last state has none of its own.
    expect(rows[1]!.slice(48, 64)).toEqual(model.encoder.embed('Editor Editor'));
    expect([rows[0]![64], rows[1]![64], rows[2]![64]]).toEqual([0, Math.fround(1 / 20), Math.fround(2 / 20)]);
    expect([rows[0]![65], rows[1]![65], rows[2]![65]]).toEqual([1, 1, 0]);
    expect(screenText('<a text="Save" content-desc="More options"/><b text="" content-desc="Save"/>')).toBe('Save More options');
  });
});

// A synthetic task family: the closer to the end of the recipe, the more progress; failures wander.
function makeEpisodes(seeds: number[]) {
  const rng = createRng(`progrm-synth/${seeds.join(',')}`);
  const recipe = ['open:Notes', 'tap:New note', 'type:Title=<t>', 'tap:Save', 'done'];
  const noise = ['scroll:down', 'back', 'tap:Settings', 'wait', 'tap:Help'];
  return seeds.map((seed) => {
    const fail = seed % 2 === 1;
    const stop = fail ? rng.int(1, 3) : recipe.length;
    const specs: string[] = [];
    for (let i = 0; i < stop; i++) {
      if (rng.chance(0.3)) specs.push(rng.pick(noise));
      specs.push(recipe[i]!);
    }
    if (fail) for (let i = 0; i < 4; i++) specs.push(rng.pick(noise));
    return episode(specs, { seed, success: !fail, screens: specs.map((s) => s.split(':')[1] ?? s) });
  });
}

describe('progress model training', () => {
  const model = createProgressModel(createRng('progrm-train-test'), { encoder: { kind: 'hashed-ngram', dim: 32, charN: 3 }, hidden: 16 });
  const annotate = { ...DEFAULT_ANNOTATE, encoder: model.encoder };
  const train = progressSamples(model, annotateEpisodes(makeEpisodes([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]), 'lcs', annotate));
  const test = progressSamples(model, annotateEpisodes(makeEpisodes([100, 101, 102, 103, 104, 105, 106, 107]), 'lcs', annotate));

  it('lowers the BCE and beats the constant baseline on held-out episodes', () => {
    const before = meanAbsoluteError(model, test);
    const metrics = trainProgressModel(model, train, parseProgressTrainConfig({ epochs: 80, batchSize: 16, lr: 1e-2 }));
    const after = meanAbsoluteError(model, test);
    const baseline = constantBaselineError(train, test);
    console.log(`ProgRM synthetic: ${train.length} train / ${test.length} held-out states; bce ${metrics[0]!['loss/bce'].toFixed(3)} → ${metrics.at(-1)!['loss/bce'].toFixed(3)}; held-out MAE ${before.toFixed(3)} → ${after.toFixed(3)} (constant baseline ${baseline.toFixed(3)})`);
    expect(metrics).toHaveLength(80);
    expect(metrics.at(-1)!['loss/bce']).toBeLessThan(metrics[0]!['loss/bce'] - 0.1);
    expect(after).toBeLessThan(baseline * 0.6);
    expect(after).toBeLessThan(before);
  });

  it('round-trips a checkpoint bit-exactly and refuses a damaged one naming the problem', () => {
    const path = join(dir, 'progrm.json');
    saveProgressModel(path, model, { labels: 'lcs' });
    const { model: back, meta } = loadProgressModel(path);
    expect(meta).toEqual({ labels: 'lcs' });
    expect(back.net.params).toEqual(model.net.params);
    expect(back.encoder.config).toEqual(model.encoder.config);
    const ep = makeEpisodes([200])[0]!;
    expect(predictProgress(back, ep)).toEqual(predictProgress(model, ep));

    const file = JSON.parse(serializeProgressModel(model));
    expect(() => deserializeProgressModel(JSON.stringify({ ...file, network: { input: 5, hidden: 16 } }))).toThrow(/network.input 5/);
    expect(() => deserializeProgressModel(JSON.stringify({ ...file, params: { ...file.params, count: 3 } }))).toThrow(ProgRmCheckpointError);
    expect(() => deserializeProgressModel(JSON.stringify({ ...file, version: 2 }))).toThrow(/version/);
    expect(() => deserializeProgressModel('{')).toThrow(/not JSON/);
    const nan = Buffer.from(file.params.base64, 'base64');
    nan.writeFloatLE(NaN, 8);
    expect(() => deserializeProgressModel(JSON.stringify({ ...file, params: { ...file.params, base64: nan.toString('base64') } }))).toThrow(/parameter 2 is NaN/);
    writeFileSync(join(dir, 'bad.json'), 'nope');
    expect(() => loadProgressModel(join(dir, 'bad.json'))).toThrow(ProgRmCheckpointError);
    expect(() => loadProgressModel(join(dir, 'missing.json'))).toThrow(/cannot read/);
  });

  it('refuses a bad training config listing every problem, and an empty sample set', () => {
    expect(parseProgressTrainConfig({})).toMatchObject({ epochs: 60, batchSize: 32, lr: 3e-3 });
    expect(() => parseProgressTrainConfig({ epochs: 0, lr: -1 })).toThrow(/epochs.*lr/s);
    expect(() => trainProgressModel(model, [], parseProgressTrainConfig({}))).toThrow(ProgressTrainConfigError);
  });
});
