import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeBundle } from '../../core/remote-jobs/bundle.js';
import { BundleError } from '../../core/remote-jobs/errors.js';
import { prepareBundle } from '../../core/remote-jobs/prepare.js';
import { decodeFeatures, grpoSteps, type BundleStep } from '../../core/remote-jobs/steps.js';
import { readTar } from '../../core/util/tar.js';
import { createModel } from '../../core/policy/builtin.js';
import { deserializeCheckpoint, serializeCheckpoint } from '../../core/policy/checkpoint.js';
import { DEFAULT_ADVANTAGE_OPTIONS, episodeStepAdvantages } from '../../core/rl/grpo.js';
import type { Rollout } from '../../core/rollout/rollouts.js';
import { openStore } from '../../core/store/db.js';
import { createRun } from '../../core/store/runs.js';
import { instantiate } from '../../core/tasks/instance.js';
import { TASKS } from '../../core/tasks/registry.js';
import { createRng } from '../../core/util/rng.js';
import { recordSynthetic } from '../store/helpers.js';
import { scratch } from './fixture.js';

const tmp = scratch('awb-jobs-bundle-');
afterEach(() => tmp.cleanup());

const lines = <T>(b: Buffer | undefined): T[] => (b ? b.toString('utf8').trim().split('\n').map((l) => JSON.parse(l) as T) : []);

describe('grpoSteps', () => {
  it('carries the group-normalised advantages of core/rl/grpo.ts per step, skips zero-std groups, and adds log π_ref when a reference is given', () => {
    const model = createModel(createRng('bundle-test/model'));
    const ref = createModel(createRng('bundle-test/ref')).net;
    const F = model.net.dims.input;
    const instance = instantiate(TASKS[0]!, 1);
    const rewards = [[1, 0, 0, 1], [0, 0, 0, 0]];
    const lengths = [[2, 3, 1, 2], [1, 1, 2, 1]];
    const rollouts: Rollout[] = rewards.flatMap((g, gi) => g.map((reward, k) => ({
      job: { group: gi, rollout: k, instance, rngKey: `${gi}/${k}` },
      result: {} as Rollout['result'], // not read by grpoSteps
      reward,
      records: Array.from({ length: lengths[gi]![k]! }, (_, t) => {
        const f = new Float32Array(3 * F).map((_, i) => Math.sin(i + t + k));
        return { features: f, n: 3, chosen: t % 3, logProb: -1.1, temperature: 0.7, action: { action_type: 'navigate_back' as const } };
      }),
    })));
    const { steps, groups } = grpoSteps(rollouts, { advantage: DEFAULT_ADVANTAGE_OPTIONS, mode: 'trajectory', reference: ref });
    expect(groups[1]!.skipped).toBe(true);
    const want = episodeStepAdvantages(rewards, lengths, 'trajectory', DEFAULT_ADVANTAGE_OPTIONS).advantages[0]!.flat();
    expect(steps.map((s) => s.advantage)).toEqual(want);
    expect(steps).toHaveLength(8);
    expect(steps[0]).toMatchObject({ episode: `${instance.template.id}/1/0.0`, step: 0, n: 3, chosen: 0, logProb: -1.1, temperature: 0.7 });
    const f0 = decodeFeatures(steps[0]!.features);
    expect(Array.from(f0)).toEqual(Array.from(rollouts[0]!.records[0]!.features));
    expect(steps[0]!.logProbRef).toBeCloseTo(ref.logProbs(f0, 3, 0.7)[0]!, 12);
  });
});

describe('writeBundle / prepareBundle', () => {
  it('builtin-sft from a split: the oracle demonstrations as steps, log π_init(chosen) recorded, init/policy.json the given checkpoint', async () => {
    const dir = tmp.dir();
    const model = createModel(createRng('bundle-test/init'));
    const initFile = join(dir, 'init.json');
    writeFileSync(initFile, serializeCheckpoint(model, { from: 'test' }));
    const p = await prepareBundle({ kind: 'builtin-sft', file: join(dir, 'b.tar'), createdAt: 42, limit: 2, seed: 0, init: initFile });
    const files = readTar(readFileSync(p.bundle.file));
    const steps = lines<BundleStep>(files.get('steps.jsonl'));
    expect(p.instances).toBe(2);
    expect(steps.length).toBe(p.bundle.manifest.counts.steps);
    expect(steps.length).toBeGreaterThan(2);
    expect(new Set(steps.map((s) => s.episode)).size).toBe(2);
    for (const s of steps) {
      const f = decodeFeatures(s.features);
      expect(f.length).toBe(s.n * model.net.dims.input);
      expect(s.chosen).toBeLessThan(s.n);
      expect(s.advantage).toBeNull();
      expect(s.logProb).toBeCloseTo(model.net.logProbs(f, s.n, 1)[s.chosen]!, 10);
    }
    expect(deserializeCheckpoint(files.get('init/policy.json')!.toString()).meta).toEqual({ from: 'test' });
    expect(JSON.parse(files.get('manifest.json')!.toString())).toMatchObject({ kind: 'builtin-sft', createdAt: 42 });
  });

  it('builtin-grpo refuses a batch with no signal (every group all-fail under a fresh policy) with BundleError', async () => {
    const dir = tmp.dir();
    await expect(prepareBundle({ kind: 'builtin-grpo', file: join(dir, 'g.tar'), createdAt: 1, limit: 2, seed: 0, grpo: { groupSize: 2, temperature: 1, maxSteps: 3 } }))
      .rejects.toThrow(/equal rewards \(no signal\)/);
  });

  it('vlm kinds carry the store export with screenshots; builtin kinds with --episodes carry episodes.jsonl only', async () => {
    const dir = tmp.dir();
    const db = openStore(':memory:');
    const run = createRun(db, { kind: 'suite', name: 'r', config: {} });
    const template = TASKS[0]!.id;
    const ids = [recordSynthetic(db, run.id, { templateId: template, seed: 3, startedAt: 1, steps: 2 }), recordSynthetic(db, run.id, { templateId: template, seed: 4, startedAt: 2, steps: 3 })];
    const vlm = writeBundle({ kind: 'vlm-sft', file: join(dir, 'v.tar'), createdAt: 1, episodes: { db, ids } });
    const vf = readTar(readFileSync(vlm.file));
    expect(lines<{ template: string; seed: number }>(vf.get('episodes.jsonl')).map((e) => e.seed)).toEqual([3, 4]);
    expect([...vf.keys()].filter((k) => k.startsWith('screenshots/'))).toHaveLength(vlm.manifest.counts.screenshots);
    expect(vlm.manifest.counts).toMatchObject({ episodes: 2, screenshots: 3 });
    const sft = await prepareBundle({ kind: 'builtin-sft', file: join(dir, 's.tar'), createdAt: 1, seed: 0, episodes: { db, ids } });
    const sf = readTar(readFileSync(sft.bundle.file));
    expect(sft.instances).toBe(2);
    expect([...sf.keys()]).toEqual(['manifest.json', 'episodes.jsonl', 'steps.jsonl', 'init/policy.json']);
    db.close();
  });

  it('refuses incomplete input before writing: no steps, a GRPO step without advantage, a bad init, vlm without episodes', () => {
    const dir = tmp.dir();
    const model = createModel(createRng('bundle-test/x'));
    const init = serializeCheckpoint(model);
    const step: BundleStep = { episode: 'e', step: 0, n: 1, features: '', chosen: 0, logProb: 0, temperature: 1, advantage: null, logProbRef: null };
    const file = join(dir, 'x.tar');
    expect(() => writeBundle({ kind: 'builtin-sft', file, createdAt: 1, initPolicy: init })).toThrow(BundleError);
    expect(() => writeBundle({ kind: 'builtin-grpo', file, createdAt: 1, steps: [step], initPolicy: init })).toThrow(/every GRPO step needs an advantage/);
    expect(() => writeBundle({ kind: 'builtin-sft', file, createdAt: 1, steps: [step], initPolicy: '{"format":"nope"}' })).toThrow(/Bad policy checkpoint init\/policy.json/);
    expect(() => writeBundle({ kind: 'vlm-grpo', file, createdAt: 1 })).toThrow(/needs episodes/);
    expect(existsSync(file)).toBe(false);
  });
});
