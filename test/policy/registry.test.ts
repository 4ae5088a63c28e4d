import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { observe } from '../../core/device/observation.js';
import { resetForTask } from '../../core/episode/runner.js';
import { RandomPolicy } from '../../core/episode/policies/random.js';
import { ScorerAdapter } from '../../core/policy/adapter.js';
import { AdaptedPolicy } from '../../core/policy/adapter-policy.js';
import { BuiltinPolicy, createModel } from '../../core/policy/builtin.js';
import { CheckpointError, saveCheckpoint } from '../../core/policy/checkpoint.js';
import { VlmPolicySettings } from '../../core/policy/vlm/settings.js';
import { exportPolicyOnnx, OnnxPolicy, OnnxPolicyFileError } from '../../core/policy/onnx/index.js';
import {
  createPolicy, loadPolicyModels, MissingSampleModelError, PolicyModels, PolicySpecSchema, taskOf, type PolicySpec,
} from '../../core/policy/registry.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { createRng } from '../../core/util/rng.js';
import { device } from '../helpers/simdroid.js';
import { scratch } from '../helpers/scratch.js';

const tmp = scratch('awb-registry-');
afterAll(tmp.cleanup);
const d = device();
afterAll(() => d.close());
const wifi = instantiate(getTemplate('SystemWifiTurnOn'), 3);
const task = taskOf(wifi);
const ctx = { instruction: wifi.instruction, step: 0, history: [] };

describe('policy registry', () => {
  it('makes every kind by name, with the names episodes record', () => {
    const model = createModel(createRng('registry/model'));
    const models = new PolicyModels().keep('/m.json', model);
    const specs: Array<[PolicySpec, string]> = [
      [{ name: 'oracle' }, 'oracle'],
      [{ name: 'random' }, 'random'],
      [{ name: 'manual' }, 'manual'],
      [{ name: 'replay', actions: [] }, 'replay'],
      [{ name: 'replay', actions: [], then: { name: 'oracle' } }, 'replay+oracle'],
      [{ name: 'builtin', checkpoint: '/m.json' }, 'builtin'],
      [{ name: 'builtin', checkpoint: '/m.json', policyName: 'checkpoint:m.json' }, 'checkpoint:m.json'],
      [{ name: 'onnx', model: '/missing.onnx' }, 'onnx'],
      [{ name: 'builtin-sample', temperature: 1, rngKey: 'k', policyName: 'grpo' }, 'grpo'],
      [{ name: 'builtin-adapted-sample', temperature: 1, rngKey: 'k', policyName: 'builtin-adapt', home: 'task-app' }, 'builtin-adapt'],
      [{ name: 'transformer-sample', model: '/missing-folder', temperature: 1, rngKey: 'k', policyName: 'transformer-grpo' }, 'transformer-grpo'],
      [{ name: 'vlm', settings: VlmPolicySettings.parse({ endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' } }) }, 'vlm:m'],
    ];
    const adapter = { app: 'Settings', package: 'com.android.settings', adapter: ScorerAdapter.init({ kind: 'head' }, model.net.dims, createRng('registry/adapter')) };
    for (const [spec, name] of specs) expect(createPolicy(spec, { task, models, sampleModel: () => model, sampleAdapters: () => [adapter] }).name, spec.name).toBe(name);
  });

  it('keys the random stream by the task instance, as every caller did before', async () => {
    await resetForTask(d, wifi);
    const obs = await observe(d);
    const a = createPolicy({ name: 'random' }, { task });
    const b = new RandomPolicy(createRng(`random/${wifi.template.id}/${wifi.seed}`));
    for (let i = 0; i < 5; i++) expect(a.act(obs, ctx)).toEqual(b.act(obs));
  });

  it('refuses builtin-sample without a model to sample with, and builtin-adapted-sample without adapters too', () => {
    expect(() => createPolicy({ name: 'builtin-sample', temperature: 1, rngKey: 'k', policyName: 'p' }, { task }))
      .toThrow(MissingSampleModelError);
    const model = createModel(createRng('registry/model'));
    const adapted: PolicySpec = { name: 'builtin-adapted-sample', temperature: 1, rngKey: 'k', policyName: 'p', home: 'base' };
    expect(createPolicy(adapted, { task, sampleModel: () => model, sampleAdapters: () => [] })).toBeInstanceOf(AdaptedPolicy);
    expect(() => createPolicy(adapted, { task, sampleModel: () => model })).toThrow(MissingSampleModelError);
  });

  it('loads a checkpoint once per path, and a bad file throws its CheckpointError', async () => {
    const dir = tmp.dir();
    const path = join(dir, 'p.json');
    saveCheckpoint(path, createModel(createRng('registry/ckpt')));
    const models = new PolicyModels();
    expect(models.checkpoint(path)).toBe(models.checkpoint(path));
    const p = createPolicy({ name: 'builtin', checkpoint: path }, { task, models });
    expect(p).toBeInstanceOf(BuiltinPolicy);
    expect((p as BuiltinPolicy).model).toBe(models.checkpoint(path));
    writeFileSync(join(dir, 'bad.json'), '{');
    await expect(loadPolicyModels({ name: 'replay', actions: [], then: { name: 'builtin', checkpoint: join(dir, 'bad.json') } }, new PolicyModels()))
      .rejects.toThrow(CheckpointError);
  });

  it('ONNX: waits for a model still loading in act(); once loaded (loadPolicyModels) it is a plain OnnxPolicy; a bad file rejects the load', async () => {
    const dir = tmp.dir();
    const path = join(dir, 'p.onnx');
    exportPolicyOnnx(path, createModel(createRng('registry/onnx')));
    const models = new PolicyModels();
    const pending = createPolicy({ name: 'onnx', model: path, policyName: 'checkpoint:p.onnx' }, { task, models });
    expect(pending).not.toBeInstanceOf(OnnxPolicy);
    expect(pending.name).toBe('checkpoint:p.onnx');
    await loadPolicyModels({ name: 'onnx', model: path }, models);
    const loaded = createPolicy({ name: 'onnx', model: path, policyName: 'checkpoint:p.onnx' }, { task, models });
    expect(loaded).toBeInstanceOf(OnnxPolicy);
    expect(loaded.name).toBe('checkpoint:p.onnx');
    await resetForTask(d, wifi);
    const obs = await observe(d);
    expect((await pending.act(obs, ctx))!.action).toEqual((await loaded.act(obs, ctx))!.action);
    await (await models.onnx(path)).close();
    writeFileSync(join(dir, 'bad.onnx'), 'not a model');
    await expect(loadPolicyModels({ name: 'onnx', model: join(dir, 'bad.onnx') }, new PolicyModels())).rejects.toThrow(OnnxPolicyFileError);
  });

  it('checks a spec read from outside against the kinds and their options', () => {
    expect(PolicySpecSchema.parse({ name: 'replay', actions: [1], then: { name: 'builtin', checkpoint: 'c.json' } }))
      .toEqual({ name: 'replay', actions: [1], then: { name: 'builtin', checkpoint: 'c.json' } });
    expect(PolicySpecSchema.safeParse({ name: 'greedy' }).success).toBe(false);
    expect(PolicySpecSchema.safeParse({ name: 'oracle', temperature: 1 }).success).toBe(false);
    expect(PolicySpecSchema.safeParse({ name: 'builtin-sample', temperature: 0, rngKey: 'k', policyName: 'p' }).success).toBe(false);
    expect(PolicySpecSchema.safeParse({ name: 'builtin-adapted-sample', temperature: 1, rngKey: 'k', policyName: 'p', home: 'task-app' }).success).toBe(true);
    expect(PolicySpecSchema.safeParse({ name: 'builtin-adapted-sample', temperature: 1, rngKey: 'k', policyName: 'p', home: 'nowhere' }).success).toBe(false);
    expect(PolicySpecSchema.safeParse({ name: 'replay', actions: [], then: { name: 'nope' } }).success).toBe(false);
  });
});
