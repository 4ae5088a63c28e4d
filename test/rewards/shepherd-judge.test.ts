import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createRng } from '../../core/util/rng.js';
import {
  BuiltinJudge, createJudgeModel, deserializeJudge, JudgeCheckpointError, JudgeConfigError, loadJudge, parseJudgeTrainConfig,
  saveJudge, serializeJudge, trainJudge, type LabelledStep,
} from '../../core/rewards/shepherd/builtin.js';
import { judgeFeatureDim, judgeFeatures } from '../../core/rewards/shepherd/features.js';
import { HashedNgramEncoder } from '../../core/policy/encoder.js';
import type { JudgeInput } from '../../core/rewards/shepherd/judge.js';

const dir = mkdtempSync(join(tmpdir(), 'awb-shepherd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function input(partial: Partial<JudgeInput> & Pick<JudgeInput, 'action'>): JudgeInput {
  return {
    instruction: 'Turn on Wi-Fi', step: 0, elements: [], history: [],
    foreground: { package: 'com.google.android.apps.nexuslauncher', activity: 'com.android.launcher3.Launcher' }, ...partial,
  };
}

describe('judge features', () => {
  it('fill one row of the documented width; an app named in the instruction lights the open_app scalar', () => {
    const enc = new HashedNgramEncoder();
    const right = judgeFeatures(input({ action: { action_type: 'open_app', app_name: 'Settings' }, instruction: 'Open Settings and turn on Wi-Fi' }), enc);
    const wrong = judgeFeatures(input({ action: { action_type: 'open_app', app_name: 'Clock' }, instruction: 'Open Settings and turn on Wi-Fi' }), enc);
    expect(right).toHaveLength(judgeFeatureDim(enc.dim));
    const named = judgeFeatureDim(enc.dim) - 16 + 7; // JUDGE_SCALARS 'opened_app_named'
    expect(right[named]).toBe(1);
    expect(wrong[named]).toBe(0);
  });
});

describe('builtin judge training and checkpoint', () => {
  const steps: LabelledStep[] = [];
  for (let s = 0; s < 12; s++) {
    steps.push({ input: input({ action: { action_type: 'open_app', app_name: 'Settings' }, step: s % 3 }), label: 1, templateId: 't', seed: s });
    steps.push({ input: input({ action: { action_type: 'open_app', app_name: s % 2 ? 'Clock' : 'Contacts' }, step: s % 3 }), label: 0, templateId: 't', seed: s });
    steps.push({ input: input({ action: { action_type: 'navigate_back' }, step: s % 3 }), label: 0, templateId: 't', seed: s });
  }

  it('learns to tell the right app launch from wrong ones, with class-balanced BCE going down', async () => {
    const model = createJudgeModel(createRng('judge-train'));
    const m = trainJudge(model, steps, parseJudgeTrainConfig({ epochs: 60, batchSize: 8 }));
    expect(m.at(-1)!['loss/bce']).toBeLessThan(m[0]!['loss/bce'] / 2);
    expect(m.at(-1)!['acc/train']).toBe(1);
    const [good, bad] = await new BuiltinJudge(model).judge([steps[0]!.input, steps[1]!.input]);
    expect(good!.p).toBeGreaterThan(0.8);
    expect(bad!.p).toBeLessThan(0.2);
  });

  it('round-trips a checkpoint bit-exactly and refuses a damaged one listing every problem', () => {
    const model = createJudgeModel(createRng('judge-ckpt'), undefined, 4);
    const path = join(dir, 'judge.json');
    saveJudge(path, model, { note: 'x' });
    const back = loadJudge(path);
    expect(back.meta).toEqual({ note: 'x' });
    expect(Array.from(back.model.net.params)).toEqual(Array.from(model.net.params));
    expect(back.model.net.dims).toEqual({ input: judgeFeatureDim(32), hidden: 4 });

    const file = JSON.parse(serializeJudge(model));
    file.network.input = 5;
    file.params.count = 3;
    try {
      deserializeJudge(JSON.stringify(file), 'bad.json');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(JudgeCheckpointError);
      expect((e as JudgeCheckpointError).problems).toHaveLength(3);
      expect((e as Error).message).toMatch(/bad\.json.*network\.input 5/);
    }
    writeFileSync(join(dir, 'nan.json'), 'not json');
    expect(() => loadJudge(join(dir, 'nan.json'))).toThrow(JudgeCheckpointError);
    expect(() => loadJudge(join(dir, 'missing.json'))).toThrow(/cannot read/);
  });

  it('refuses an invalid training config listing every problem', () => {
    expect(parseJudgeTrainConfig({})).toMatchObject({ epochs: 40, batchSize: 32, balance: true });
    try {
      parseJudgeTrainConfig({ epochs: 0, lr: -1 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(JudgeConfigError);
      expect((e as JudgeConfigError).problems).toHaveLength(2);
    }
  });
});
