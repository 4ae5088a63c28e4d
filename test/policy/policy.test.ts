import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TASKS } from '../../core/tasks/registry.js';
import { instantiate } from '../../core/tasks/instance.js';
import { resetForTask, runEpisode } from '../../core/episode/runner.js';
import { observe } from '../../core/device/observation.js';
import { BuiltinPolicy, createModel, stepInputs, TemperatureError } from '../../core/policy/builtin.js';
import { CheckpointError, loadCheckpoint, saveCheckpoint, serializeCheckpoint, deserializeCheckpoint } from '../../core/policy/checkpoint.js';
import { HashedNgramEncoder } from '../../core/policy/encoder.js';
import { featureDim, featurize, SCALAR_FEATURES } from '../../core/policy/features.js';
import { buildCandidates } from '../../core/policy/candidates.js';
import { createRng } from '../../core/util/rng.js';
import { device } from '../helpers/simdroid.js';
import { scratch } from '../helpers/scratch.js';

const tmp = scratch('awb-ckpt-');
afterAll(tmp.cleanup);

const d = device();
afterAll(() => d.close());
const wifi = instantiate(TASKS.find((t) => t.id === 'SystemWifiTurnOn')!, 0);

describe('HashedNgramEncoder', () => {
  it('is deterministic, unit length, zero for empty text, and closer for shared words', () => {
    const enc = new HashedNgramEncoder();
    const a = enc.embed('Turn Wi-Fi on');
    expect(Array.from(new HashedNgramEncoder().embed('Turn Wi-Fi on'))).toEqual(Array.from(a));
    expect(a.reduce((s, v) => s + v * v, 0)).toBeCloseTo(1, 5);
    expect(enc.embed('').every((v) => v === 0)).toBe(true);
    const dot = (x: Float32Array, y: Float32Array) => x.reduce((s, v, i) => s + v * y[i]!, 0);
    expect(dot(a, enc.embed('Wi-Fi'))).toBeGreaterThan(dot(a, enc.embed('Battery saver')));
  });
});

describe('featurize', () => {
  it('gives one row per candidate, and marks the element the instruction names', async () => {
    const model = createModel(createRng('features'));
    await resetForTask(d, wifi);
    d.shellBytes('am start -n com.android.settings/.Settings');
    const obs = await observe(d);
    const candidates = buildCandidates(obs, wifi.instruction);
    const F = featureDim(model.encoder.dim);
    const x = featurize(obs, { instruction: wifi.instruction, step: 1, history: [] }, candidates, model.encoder);
    expect(x.length).toBe(candidates.length * F);
    const col = (name: (typeof SCALAR_FEATURES)[number]) => F - SCALAR_FEATURES.length + SCALAR_FEATURES.indexOf(name);
    const cos = (r: number) => x[r * F + col('cos_instr_target')]!;
    const network = candidates.findIndex((c) => c.kind === 'click' && /network|wi-?fi/i.test(c.text));
    const battery = candidates.findIndex((c) => c.kind === 'click' && /battery/i.test(c.text));
    expect(network).toBeGreaterThanOrEqual(0);
    expect(battery).toBeGreaterThanOrEqual(0);
    expect(cos(network)).toBeGreaterThan(cos(battery));
    const settings = candidates.findIndex((c) => c.kind === 'open_app' && c.value === 'Settings');
    expect(x[settings * F + col('app_in_front')]).toBe(1);
    expect(x[battery * F + col('bias')]).toBe(1);
    expect(Array.from(featurize(obs, { instruction: wifi.instruction, step: 1, history: [] }, candidates, model.encoder))).toEqual(Array.from(x));
  });
});

describe('BuiltinPolicy', () => {
  it('returns a candidate action with probabilities over all candidates, and records the step', async () => {
    const model = createModel(createRng('policy'));
    await resetForTask(d, wifi);
    const obs = await observe(d);
    const policy = new BuiltinPolicy(model, { mode: 'greedy' }, { record: true });
    const ctx = { instruction: wifi.instruction, step: 0, history: [] };
    const decision = policy.act(obs, ctx);
    const { candidates, features } = stepInputs(model, obs, ctx);
    expect(decision.candidates).toHaveLength(candidates.length);
    expect(decision.candidates!.reduce((s, c) => s + c.probability!, 0)).toBeCloseTo(1, 6);
    for (const c of decision.candidates!) expect(c.probability).toBeCloseTo(Math.exp(c.score), 12); // score: log π
    const best = decision.candidates!.reduce((b, c) => (c.score > b.score ? c : b));
    expect(decision.action).toEqual(best.action);
    const [rec] = policy.takeRecords();
    expect(rec!.n).toBe(candidates.length);
    expect(rec!.features.length).toBe(candidates.length * featureDim(model.encoder.dim));
    expect(Array.from(rec!.features)).toEqual(Array.from(features));
    expect(rec!.logProb).toBeCloseTo(model.net.logProbs(features, rec!.n)[rec!.chosen]!, 10);
    expect(policy.takeRecords()).toEqual([]);
  });

  it('samples reproducibly from a seed and runs whole episodes', async () => {
    const model = createModel(createRng('policy'));
    const run = async (seed: string) => {
      const r = await runEpisode({ device: d, instance: wifi, policy: new BuiltinPolicy(model, { mode: 'sample', temperature: 1, rng: createRng(seed) }), maxSteps: 6 });
      return r.steps.map((s) => JSON.stringify(s.action));
    };
    const a = await run('s1');
    expect(a.length).toBeGreaterThan(0);
    expect(await run('s1')).toEqual(a);
    expect(() => new BuiltinPolicy(model, { mode: 'sample', temperature: 0, rng: createRng(1) })).toThrow(TemperatureError);
  });
});

describe('checkpoints', () => {
  it('round-trip parameters bit-exactly, with the encoder config and meta', () => {
    const model = createModel(createRng('ckpt'));
    model.net.params[0] = 1.2345678e-30;
    model.net.params[1] = -0;
    const dir = tmp.dir();
    const path = join(dir, 'policy.json');
    saveCheckpoint(path, model, { epoch: 3 });
    const { model: back, meta } = loadCheckpoint(path);
    expect(meta).toEqual({ epoch: 3 });
    expect(back.encoder.config).toEqual(model.encoder.config);
    expect(back.net.dims).toEqual(model.net.dims);
    expect(Buffer.from(back.net.params.buffer).equals(Buffer.from(model.net.params.buffer))).toBe(true);
  });

  it('refuse corrupt, truncated, mismatched or missing files with a CheckpointError', () => {
    const model = createModel(createRng('ckpt'));
    const good = JSON.parse(serializeCheckpoint(model)) as Record<string, any>;
    const bad = (mutate: (f: Record<string, any>) => void) => {
      const f = structuredClone(good);
      mutate(f);
      return JSON.stringify(f);
    };
    expect(() => deserializeCheckpoint('{not json')).toThrow(CheckpointError);
    expect(() => deserializeCheckpoint(bad((f) => { f.version = 2; }))).toThrow(/version/);
    expect(() => deserializeCheckpoint(bad((f) => { f.params.base64 = f.params.base64.slice(0, 100); }))).toThrow(/bytes/);
    expect(() => deserializeCheckpoint(bad((f) => { f.network.hidden = 7; }))).toThrow(/params.count/);
    expect(() => deserializeCheckpoint(bad((f) => { f.encoder.dim = 16; }))).toThrow(/network.input/);
    const nan = Buffer.from(good.params.base64, 'base64');
    nan.writeFloatLE(NaN, 8);
    expect(() => deserializeCheckpoint(bad((f) => { f.params.base64 = nan.toString('base64'); }))).toThrow(/parameter 2 is NaN/);
    const dir = tmp.dir();
    expect(() => loadCheckpoint(join(dir, 'absent.json'))).toThrow(CheckpointError);
    writeFileSync(join(dir, 'empty.json'), '');
    expect(() => loadCheckpoint(join(dir, 'empty.json'))).toThrow(CheckpointError);
    expect(readFileSync(join(dir, 'empty.json'), 'utf8')).toBe('');
  });
});
