import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScorerAdapter } from '../../core/policy/adapter.js';
import { adapterPath, loadAdapter, loadAdapters, loadBasePolicy, type BasePolicy } from '../../core/policy/adapter-file.js';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { beforeAfter } from '../../core/rl/adapt-eval.js';
import { adaptToApp, runAdaptation, type AdaptProgress } from '../../core/rl/adapt.js';
import { METRIC } from '../../core/rl/grpo-loop.js';
import { collectDemonstrations } from '../../core/rl/demonstrations.js';
import { parseSftConfig, trainSft } from '../../core/rl/sft.js';
import { TASKS } from '../../core/tasks/registry.js';
import { splitInstances } from '../../core/tasks/splits.js';
import { createRng } from '../../core/util/rng.js';
import type { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { scratch } from '../helpers/scratch.js';
import { device } from '../helpers/simdroid.js';

/**
 * A real, small adaptation: a base behaviour-cloned on ten easy templates of the seen apps (it has
 * never seen Audio Recorder, and solves none of its tasks), then an adapter for Audio Recorder from
 * its 8 shots. Evaluated on four of the app's test templates × the three evaluation seeds.
 */
const APP = 'Audio Recorder';
const EVAL_TEMPLATES = ['AudioRecorderSetFormat', 'AudioRecorderRecordAudio', 'AudioRecorderRecordAudioWithFileName', 'AudioRecorderBookmarkRecording'];
const GRPO = { iterations: 2, instancesPerIteration: 2, rolloutsPerInstance: 4, maxSteps: 12 };

const devices: SimDroid[] = [device({ serial: 'adapt-test-0' }), device({ serial: 'adapt-test-1' })];
afterAll(() => devices.forEach((d) => d.close()));
const tmp = scratch('awb-adapt-');
afterAll(tmp.cleanup);
const dir = tmp.dir();
const basePath = join(dir, 'policy.json');
let base: BasePolicy;

beforeAll(async () => {
  const seen = new Set<string>();
  const train = splitInstances(TASKS, 'unseen-app', 'train')
    .filter((i) => i.template.difficulty === 'easy' && !seen.has(i.template.id) && seen.add(i.template.id)).slice(0, 10);
  const model = createModel(createRng('adapt-test/base'));
  const set = await collectDemonstrations(devices[0]!, train, model);
  trainSft(model, set.demos, parseSftConfig({ epochs: 10 }));
  saveCheckpoint(basePath, model);
  base = loadBasePolicy(basePath);
}, 30_000);

describe('per-app adaptation', () => {
  let sftGrpoAdapter: ScorerAdapter;

  it('sft+grpo trains only the adapter: the base is bit-identical, GRPO moves the adapter', async () => {
    const before = Buffer.from(base.model.net.params.buffer.slice(0));
    const events: AdaptProgress['phase'][] = [];
    const r = await adaptToApp({ base, app: APP, method: 'sft+grpo', seed: 3, devices, config: { grpo: GRPO }, onProgress: (e) => events.push(e.phase) });
    expect(Buffer.from(base.model.net.params.buffer).equals(before)).toBe(true);
    expect(base.model.net.grads.every((g) => g === 0)).toBe(true);
    const init = ScorerAdapter.init({ kind: 'lowrank', rank: 4 }, base.model.net.dims, createRng('adapt/3/init/Audio Recorder'));
    expect(r.adapter.adapter.params).not.toEqual(init.params);
    expect(r.shots).toHaveLength(8);
    expect(r.demonstrations).toMatchObject({ source: 'oracle', episodes: 8 });
    expect(r.sft.at(-1)!['acc/top1']).toBeGreaterThan(0.8);
    expect(r.grpo).toHaveLength(2);
    // at least one group with mixed outcomes, so GRPO had a gradient to follow
    expect(r.grpo.some((m) => m.metrics[METRIC.zeroStdFrac]! < 1 && m.metrics[METRIC.gradNorm]! > 0)).toBe(true);
    expect([...new Set(events)]).toEqual(['demonstrating', 'demonstrations', 'sft', 'grpo']);
    sftGrpoAdapter = r.adapter.adapter;
  }, 60_000);

  it('sft measurably improves the app\'s held-out success, saves the adapter, and the saved adapter reproduces it', async () => {
    const events: AdaptProgress[] = [];
    const root = join(dir, 'adapters');
    const report = await runAdaptation(
      { policy: basePath, app: APP, method: 'sft', seed: 3, config: { grpo: GRPO }, evalTemplates: EVAL_TEMPLATES, adaptersRoot: root },
      { devices, onProgress: (e) => events.push(e) },
    );
    console.log(`adapt ${APP}: before ${report.before!.successRate.toFixed(2)} → after ${report.after!.successRate.toFixed(2)}; ${JSON.stringify(report.perTemplate.map((t) => [t.templateId, t.after]))}`);
    expect(report.before!.episodes).toBe(12);
    expect(report.before!.successRate).toBeLessThanOrEqual(0.1);
    expect(report.after!.successRate).toBeGreaterThanOrEqual(report.before!.successRate + 0.25);
    expect(report.delta).toBeCloseTo(report.after!.successRate - report.before!.successRate, 12);
    expect(report).toMatchObject({ app: APP, regime: 'unseen-app', stoppedBy: 'done', base: { sha256: base.sha256 }, adapter: { kind: 'lowrank', rank: 4 } });
    expect(events.map((e) => e.phase).filter((p, i, a) => p !== a[i - 1])).toEqual(['before', 'demonstrating', 'demonstrations', 'sft', 'saved', 'after']);
    expect(JSON.parse(JSON.stringify(report))).toEqual(report); // plain data, for the API

    // stored per app under the base's sha prefix, selected by package, bit-identical to what was trained
    expect(report.adapter.path).toBe(adapterPath(root, base.sha256, APP));
    const loaded = loadAdapters(root, base.sha256, base.model).get('com.dimowner.audiorecorder')!;
    expect(loaded.meta).toMatchObject({ method: 'sft', stoppedBy: 'done' });
    // the same SFT stage as the sft+grpo run above: only GRPO made that adapter differ
    expect(loaded.adapter.params).not.toEqual(sftGrpoAdapter.params);
    const again = await beforeAfter({ base: base.model, adapter: loaded, seeds: [30, 7, 1234], templates: EVAL_TEMPLATES, devices });
    expect(again.after.successRate).toBe(report.after!.successRate);
    expect(again.before.successRate).toBe(report.before!.successRate);
    expect(readFileSync(basePath).length).toBeGreaterThan(0);
  }, 60_000);

  it('stops cleanly on abort: the started adapter is saved, the after phase is not run', async () => {
    const ac = new AbortController();
    const out = join(dir, 'aborted.json');
    const report = await runAdaptation(
      { policy: basePath, app: APP, method: 'grpo', shots: 2, config: { grpo: { ...GRPO, iterations: 5, rolloutsPerInstance: 2, maxSteps: 4 } }, evalSeeds: [30], evalTemplates: ['AudioRecorderSetFormat'], out },
      { devices, signal: ac.signal, onProgress: (e) => e.phase === 'grpo' && ac.abort() },
    );
    expect(report.stoppedBy).toBe('aborted');
    expect(report.training.grpo).toHaveLength(1);
    expect(report.before).not.toBeNull();
    expect(report.after).toBeNull();
    expect(report.delta).toBeNull();
    expect(loadAdapter(out, { baseSha256: base.sha256 }).meta).toMatchObject({ stoppedBy: 'aborted', grpoIterations: 1 });
  }, 30_000);
});
