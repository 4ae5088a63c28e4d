import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModel, type PolicyModel } from '../../core/policy/builtin.js';
import { parseTrainConfig, TrainConfigError } from '../../core/rl/config.js';
import { collectDemonstrations } from '../../core/rl/demonstrations.js';
import { parseSftConfig, trainSft } from '../../core/rl/sft.js';
import { runRollouts, type Rollout, type RolloutJob } from '../../core/rollout/rollouts.js';
import { resolveRolloutWorkers, RolloutInstanceError, RolloutWorkerPool, RolloutWorkersError } from '../../core/rollout/rollout-workers.js';
import { WorkerStartError } from '../../core/rollout/threads/pool.js';
import { createRun, listEpisodes, loadTrajectory, openStore, StoreRecorder } from '../../core/store/index.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { createRng } from '../../core/util/rng.js';
import { device } from '../helpers/simdroid.js';
import { canCountThreads, threadBaseline, threadsSettleTo } from './rollout-threads.js';

const CRASH_ENTRY = new URL('./rollout-crash-worker.mjs', import.meta.url);
const BROKEN_ENTRY = new URL('./rollout-broken-worker.mjs', import.meta.url);

const d = device();
afterAll(() => d.close());

const INSTANCES = ['SystemWifiTurnOn', 'ClockStopwatchRun'].map((id) => instantiate(getTemplate(id), 0));
const jobsOf = (names: string[][]): RolloutJob[] => names.flatMap((g, gi) => g.map((name, k) => ({ group: gi, rollout: k, instance: INSTANCES[gi]!, rngKey: `rw-test/${gi}/${k}/${name}` })));
const plain = (n: number) => jobsOf(INSTANCES.map(() => Array.from({ length: n }, (_, k) => `r${k}`)));

// An SFT-trained policy: sampled at temperature 1 it both succeeds and fails, so equality is checked on both outcomes (100
// epochs on the 9 demonstrations: after 25 it opened one of the drawer's 20-odd apps about at random, and never succeeded).
let model: PolicyModel;
// One pool for the tests that do not crash or count threads (starting workers costs seconds).
let shared: RolloutWorkerPool;
beforeAll(async () => {
  model = createModel(createRng('rollout-workers-test/init'));
  trainSft(model, (await collectDemonstrations(d, INSTANCES, model)).demos, parseSftConfig({ epochs: 100, batchSize: 8 }));
  shared = await RolloutWorkerPool.start({ workers: 2 });
});
afterAll(() => shared.close());

/** What must not depend on where a rollout ran. */
const essence = (r: Rollout) => ({
  group: r.job.group, rollout: r.job.rollout, reward: r.reward, status: r.result.status, terminatedBy: r.result.terminatedBy,
  policy: r.result.policy, actions: r.result.steps.map((s) => s.action), descriptions: r.result.steps.map((s) => s.description),
  records: r.records.map((x) => ({ n: x.n, chosen: x.chosen, logProb: x.logProb, temperature: x.temperature, action: x.action, features: Array.from(x.features) })),
});

describe('GRPO rollouts on worker threads', () => {
  it('give the same rewards, actions, log-probs and features as in-process rollouts, in job order', async () => {
    const jobs = plain(6);
    const opts = { model, temperature: 1, maxSteps: 8 };
    const inProcess = await runRollouts([d], jobs, opts);
    const first = await shared.run(jobs, opts);
    const again = await shared.run(jobs, opts);
    expect(first.map(essence)).toEqual(inProcess.map(essence));
    expect(again.map(essence)).toEqual(inProcess.map(essence));
    const rewards = inProcess.map((r) => r.reward);
    expect(rewards).toContain(1);
    expect(rewards).toContain(0);
    expect(first.every((r) => r.records.every((x) => x.features instanceof Float32Array))).toBe(true);
    expect(first.reduce((n, r) => n + r.records.length, 0)).toBeGreaterThan(0);
    // without a recorder the scored candidates stay in the worker (the records carry them)
    expect(inProcess.some((r) => r.result.steps.some((st) => st.candidates?.length))).toBe(true);
    expect(first.every((r) => r.result.steps.every((st) => st.candidates === undefined))).toBe(true);
  });

  it('sample with the parameters of the current batch: changed weights reach every worker', async () => {
    const jobs = plain(3);
    const changed: PolicyModel = { encoder: model.encoder, net: model.net.clone() };
    for (let i = 0; i < changed.net.params.length; i += 7) changed.net.params[i]! *= -1.5;
    const opts = { temperature: 1, maxSteps: 6 };
    const a = await shared.run(jobs, { ...opts, model });
    const b = await shared.run(jobs, { ...opts, model: changed });
    expect(b.map(essence)).toEqual((await runRollouts([d], jobs, { ...opts, model: changed })).map(essence));
    expect(b.map((r) => r.records[0]!.logProb)).not.toEqual(a.map((r) => r.records[0]!.logProb));
  });

  it('record every episode and step in the store on the main thread', async () => {
    const db = openStore(':memory:');
    const run = createRun(db, { kind: 'training', name: 'rollout-workers test', config: {} });
    try {
      const rollouts = await shared.run(plain(2), { model, temperature: 1, maxSteps: 6, recorder: () => new StoreRecorder(db, run.id) });
      const page = listEpisodes(db, { runId: run.id, limit: 100 });
      expect(page.total).toBe(rollouts.length);
      const stored = page.rows.map((e) => loadTrajectory(db, e.id));
      const key = (templateId: string, descriptions: (string | undefined)[]) => `${templateId} ${JSON.stringify(descriptions)}`;
      expect(stored.map((t) => key(t.instance.templateId, t.steps.map((s) => s.description))).sort())
        .toEqual(rollouts.map((r) => key(r.result.templateId, r.result.steps.map((s) => s.description))).sort());
      expect(page.rows.map((e) => e.policy)).toEqual(rollouts.map(() => 'builtin-grpo'));
      expect(stored.every((t) => t.steps.every((st) => st.candidates && st.candidates.length > 0))).toBe(true);
      expect(new Set(stored.map((t) => t.episode.status))).toEqual(new Set(rollouts.map((r) => r.result.status)));
    } finally {
      db.close();
    }
  });

  it('a worker that dies mid-episode fails only that rollout: an environment error with reward NaN, recorded, and a fresh worker takes over', async () => {
    const db = openStore(':memory:');
    const run = createRun(db, { kind: 'training', name: 'crash test', config: {} });
    const jobs = jobsOf([['a', 'crash-exit', 'b', 'c'], ['d', 'crash-throw', 'e']]);
    const opts = { model, temperature: 1, maxSteps: 8 };
    const pool = await RolloutWorkerPool.start({ workers: 2, entry: CRASH_ENTRY });
    try {
      const rollouts = await pool.run(jobs, { ...opts, recorder: () => new StoreRecorder(db, run.id) });
      const inProcess = await runRollouts([d], jobs, opts);
      const crashed = [1, 5];
      for (const [i, r] of rollouts.entries()) {
        if (crashed.includes(i)) continue;
        expect(essence(r), `rollout ${i}`).toEqual(essence(inProcess[i]!));
      }
      const exited = rollouts[1]!;
      expect(exited.reward).toBeNaN();
      expect(exited.records).toEqual([]);
      expect(exited.result).toMatchObject({ status: 'error', terminatedBy: 'environment_error', success: false, error: { name: 'WorkerCrash' } });
      expect(exited.result.error!.message).toContain('exited with code 7');
      // the two steps that reached the main thread before the exit are kept
      expect(exited.result.steps.map((s) => s.index)).toEqual([0, 1]);
      const thrown = rollouts[5]!;
      expect(thrown.reward).toBeNaN();
      expect(thrown.result.error).toMatchObject({ name: 'WorkerCrash' });
      expect(thrown.result.error!.message).toContain('boom in the worker');
      // both crashes are in the store as error episodes; the pool is whole again and keeps working
      const page = listEpisodes(db, { runId: run.id, limit: 100 });
      expect(page.total).toBe(jobs.length);
      expect(page.counts.error).toBe(2);
      expect(pool.size).toBe(2);
      const next = await pool.run(plain(2), opts);
      expect(next.map(essence)).toEqual((await runRollouts([d], plain(2), opts)).map(essence));
    } finally {
      await pool.close();
      db.close();
    }
  });

  it.runIf(canCountThreads)('leave no thread behind: after close, and after a worker that cannot start (WorkerStartError)', async () => {
    const baseline = await threadBaseline();
    const pool = await RolloutWorkerPool.start({ workers: 2 });
    await pool.run(plain(1), { model, temperature: 1, maxSteps: 3 });
    expect(await threadsSettleTo(baseline + 2, 1)).toBeGreaterThanOrEqual(baseline + 2);
    await pool.close();
    await pool.close();
    expect(await threadsSettleTo(baseline)).toBe(baseline);
    await expect(pool.run(plain(1), { model, temperature: 1, maxSteps: 3 })).rejects.toThrow('closed');

    const err = await RolloutWorkerPool.start({ workers: 2, entry: BROKEN_ENTRY }).then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(WorkerStartError);
    expect((err as Error).message).toContain('this worker cannot start');
    expect(await threadsSettleTo(baseline)).toBe(baseline);
  });

  it('refuse what a worker could not reproduce: a bad worker count, a temperature, a hand-made task instance', async () => {
    await expect(RolloutWorkerPool.start({ workers: 0 })).rejects.toThrow(RolloutWorkersError);
    await expect(RolloutWorkerPool.start({ workers: 1.5 })).rejects.toThrow('got 1.5');
    await expect(shared.run(plain(1), { model, temperature: 0, maxSteps: 3 })).rejects.toThrow('temperature');
    const inst = INSTANCES[0]!;
    const forged = { ...inst, params: { ...(inst.params as object), extra: 1 } };
    const job: RolloutJob = { group: 0, rollout: 0, instance: forged, rngKey: 'x' };
    await expect(shared.run([job], { model, temperature: 1, maxSteps: 3 })).rejects.toThrow(RolloutInstanceError);
    // the pool is still usable after a refused batch
    expect((await shared.run(plain(1), { model, temperature: 1, maxSteps: 3 })).length).toBe(2);
  });
});

describe('the rolloutWorkers setting', () => {
  it("'auto' takes one worker per core up to the devices, and stays in-process for one", () => {
    expect(resolveRolloutWorkers('auto', 16, 2)).toBe(2);
    expect(resolveRolloutWorkers('auto', 3, 8)).toBe(3);
    expect(resolveRolloutWorkers('auto', 16, 1)).toBe(0);
    expect(resolveRolloutWorkers('auto', 1, 8)).toBe(0);
    expect(resolveRolloutWorkers(0, 16, 8)).toBe(0);
    expect(resolveRolloutWorkers(3, 16, 1)).toBe(3);
  });

  it("parses 'auto', 0 and N ≤ devices, and names the bad value otherwise", () => {
    expect(parseTrainConfig({}).rolloutWorkers).toBe('auto');
    expect(parseTrainConfig({ rolloutWorkers: 0 }).rolloutWorkers).toBe(0);
    expect(parseTrainConfig({ rolloutWorkers: 4, devices: 4 }).rolloutWorkers).toBe(4);
    for (const bad of ['many', 2.5, -1]) expect(() => parseTrainConfig({ rolloutWorkers: bad })).toThrow(TrainConfigError);
    expect(() => parseTrainConfig({ rolloutWorkers: 'many' })).toThrow('"many"');
    expect(() => parseTrainConfig({ rolloutWorkers: 5, devices: 4 })).toThrow(/rolloutWorkers: .*at most devices \(4\), got 5/);
  });
});
