import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../../core/policy/checkpoint.js';
import { parseTrainConfig, TrainConfigError, type TrainConfigInput } from '../../core/rl/config.js';
import { METRIC, type IterationMetrics } from '../../core/rl/grpo-loop.js';
import { trainGrpo, TrainingDivergedError } from '../../core/rl/train-grpo.js';
import { loadTrainerCheckpoint } from '../../core/rl/grpo-checkpoint.js';
import { openStore } from '../../core/store/db.js';
import { getRun, listRuns } from '../../core/store/runs.js';
import { listIterationMetrics, rolloutIterations } from '../../core/store/training.js';
import { listEpisodes } from '../../core/store/queries.js';
import { Adam } from '../../core/policy/network.js';
import { device } from '../helpers/simdroid.js';
import { GRPO_POOL, grpoTestConfig, sftWarmStart } from '../helpers/grpo-fixture.js';
import { scratch } from '../helpers/scratch.js';
import { main } from '../../core/cli/main.js';

const d = device();
const { dir: tmp, cleanup } = scratch('awb-grpo-');
afterAll(() => {
  d.close();
  cleanup();
});

const POOL = GRPO_POOL;
let init = '';
beforeAll(async () => {
  init = await sftWarmStart(d, tmp());
});

const config = (over: TrainConfigInput = {}) => grpoTestConfig(init, { ...over });

describe('GRPO training loop', () => {
  it('a run that fails on anything but divergence is left interrupted in the store, not running', async () => {
    const db = openStore(':memory:');
    const boom = new Error('listener failed');
    const err = await trainGrpo({
      config: config({ iterations: 2 }), outDir: tmp(), instances: POOL, devices: [d], db, onIteration: () => { throw boom; },
    }).catch((e: unknown) => e);
    expect(err).toBe(boom);
    const runs = listRuns(db);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe('interrupted');
    db.close();
  });

  it('runs, stores metrics and checkpoints, and a resumed run ends with the same parameters as an uninterrupted one', async () => {
    const straightDir = tmp();
    const straight = await trainGrpo({ config: config(), outDir: straightDir, instances: POOL, devices: [d] });
    expect(straight.stoppedBy).toBe('done');
    expect(straight.history.map((m) => m.iteration)).toEqual([1, 2, 3]);
    for (const m of straight.history) {
      // Entropy is defined over the steps trained: absent ('n/a'), not 0, in an iteration that trained none.
      const trained = m.metrics[METRIC.batchSteps]! > 0;
      for (const name of Object.values(METRIC)) {
        if (name === METRIC.entropy && !trained) expect(m.metrics[name], `${name} at ${m.iteration}`).toBeUndefined();
        else expect(Number.isFinite(m.metrics[name]), `${name} at ${m.iteration}`).toBe(true);
      }
      expect(m.metrics[METRIC.successRate]).toBeGreaterThanOrEqual(0);
      expect(m.metrics[METRIC.successRate]).toBeLessThanOrEqual(1);
    }
    // the policy did learn something: some group had mixed outcomes and the weights moved
    expect(straight.history.some((m) => m.metrics[METRIC.batchSteps]! > 0)).toBe(true);
    expect(straight.history.some((m) => m.metrics[METRIC.batchSteps] === 0)).toBe(true); // so the entropy check above saw both cases
    const initial = loadTrainerCheckpoint(straightDir, (n) => new Adam(n)).reference.params;
    expect(Array.from(straight.model.net.params)).not.toEqual(Array.from(initial));

    // interrupted after iteration 2 (abort signal), with the store, then resumed
    const db = openStore(':memory:');
    const dir = tmp();
    const ac = new AbortController();
    const first = await trainGrpo({
      config: config(), outDir: dir, instances: POOL, devices: [d], db, signal: ac.signal,
      onIteration: (m) => { if (m.iteration === 2) ac.abort(); },
    });
    expect(first.stoppedBy).toBe('aborted');
    expect(first.iterations).toBe(2);
    expect(getRun(db, first.runId!).status).toBe('interrupted');
    expect(loadCheckpoint(join(dir, 'policy.json')).meta).toMatchObject({ iteration: 2 });
    const seen: IterationMetrics[] = [];
    const resumed = await trainGrpo({ config: config(), outDir: dir, resume: true, instances: POOL, devices: [d], db, onIteration: (m) => seen.push(m) });
    expect(seen.map((m) => m.iteration)).toEqual([3]);
    expect(resumed.runId).toBe(first.runId);
    expect(getRun(db, resumed.runId!).status).toBe('finished');
    expect(Array.from(resumed.model.net.params)).toEqual(Array.from(straight.model.net.params));
    expect(seen[0]!.metrics[METRIC.rewardMean]).toBe(straight.history[2]!.metrics[METRIC.rewardMean]);
    const rows = listIterationMetrics(db, resumed.runId!);
    expect(rows.map((r) => r.iteration)).toEqual([1, 2, 3]);
    expect(rows[0]!.metrics[METRIC.lossPolicy]).toBeCloseTo(straight.history[0]!.metrics[METRIC.lossPolicy]!, 12);
    db.close();
  });

  // Issue 16, D8: --resume --record-episodes stored the redone iterations' rollouts a second time.
  it('a resumed run replaces the recorded rollouts of the iterations it redoes, as it replaces their metrics', async () => {
    const db = openStore(':memory:');
    const dir = tmp();
    const crash = new Error('crashed after recording iteration 3');
    const c = config({ iterations: 4, checkpointEvery: 2, recording: { screenshots: 'none' } });
    const err = await trainGrpo({
      config: c, outDir: dir, instances: POOL, devices: [d], db, recordEpisodes: true,
      onIteration: (m) => { if (m.iteration === 3) throw crash; },
    }).catch((e: unknown) => e);
    expect(err).toBe(crash);
    expect(loadTrainerCheckpoint(dir, (n) => new Adam(n)).iteration).toBe(2);
    const perIteration = () => db.prepare('SELECT iteration, count(*) AS n FROM training_rollouts GROUP BY iteration ORDER BY iteration').all();
    const G = 2 * 4; // instancesPerIteration × rolloutsPerInstance of the test config
    expect(perIteration()).toEqual([1, 2, 3].map((iteration) => ({ iteration, n: G })));
    const resumed = await trainGrpo({ config: c, outDir: dir, resume: true, instances: POOL, devices: [d], db, recordEpisodes: true });
    expect(resumed.iterations).toBe(4);
    expect(perIteration()).toEqual([1, 2, 3, 4].map((iteration) => ({ iteration, n: G })));
    expect(db.prepare('SELECT count(*) FROM episodes WHERE run_id = ?').pluck().get(resumed.runId)).toBe(4 * G);
    db.close();
  });

  // Issue 21: recorded rollouts carry what GRPO learned from them, and a retention setting thins a long run.
  it('records each rollout with its reward and advantage; keepEvery keeps whole iterations k, 2k, … and the last, else successes', async () => {
    const db = openStore(':memory:');
    // Iterations 2 (a k-th) and 3 (the last) are kept whole; iteration 1 is thinned.
    const c = config({ iterations: 3, recording: { keepEvery: 2, keepSuccesses: true, screenshots: 'half' } });
    const r = await trainGrpo({ config: c, outDir: tmp(), instances: POOL, devices: [d], db, recordEpisodes: true });
    const rows = db.prepare(`SELECT r.iteration, r.group_index AS g, r.reward, r.advantage, e.status FROM training_rollouts r
      JOIN episodes e ON e.id = r.episode_id WHERE e.run_id = ? ORDER BY r.iteration, r.group_index, r.rollout_index`).all(r.runId) as
      Array<{ iteration: number; g: number; reward: number | null; advantage: number | null; status: string }>;
    const G = 2 * 4;
    const at = (i: number) => rows.filter((x) => x.iteration === i);
    expect(at(2)).toHaveLength(G);
    expect(at(3)).toHaveLength(G);
    // Iteration 1 is thinned to its successes (none of its failures kept).
    expect(at(1).every((x) => x.status === 'success')).toBe(true);
    expect(at(1).length).toBeLessThan(G);
    // Outcome reward (no SPA): 1 for a success, 0 for a failure; advantages centred within each group.
    for (const x of rows) expect(x.reward).toBe(x.status === 'success' ? 1 : 0);
    for (const i of [2, 3]) {
      for (const g of [0, 1]) {
        const adv = at(i).filter((x) => x.g === g).map((x) => x.advantage!);
        expect(adv.reduce((a, b) => a + b, 0)).toBeCloseTo(0, 6);
      }
    }
    expect(rows.some((x) => x.advantage !== 0)).toBe(true);
    // Half-size screenshots, and none left behind by the pruned rollouts.
    const shot = db.prepare('SELECT width FROM screenshots LIMIT 1').get() as { width: number };
    expect(shot.width).toBe((await d.screenInfo()).width / 2);
    const orphans = db.prepare(`SELECT count(*) FROM screenshots s WHERE NOT EXISTS (SELECT 1 FROM steps WHERE screenshot = s.sha256)
      AND NOT EXISTS (SELECT 1 FROM episodes WHERE final_screenshot = s.sha256)`).pluck().get();
    expect(orphans).toBe(0);
    // The episode table shows a rollout's place and score, and filters by iteration.
    const page = listEpisodes(db, { runId: r.runId!, iteration: 2, limit: 100 });
    expect(page.total).toBe(G);
    expect(page.rows.every((e) => e.rollout?.iteration === 2 && e.rollout.reward !== null)).toBe(true);
    expect(rolloutIterations(db, r.runId!).map((x) => x.iteration)).toEqual(at(1).length ? [1, 2, 3] : [2, 3]);
    db.close();
  });

  it('stops on NaN weights naming the iteration and metric, keeping the last good checkpoint', async () => {
    const dir = tmp();
    const run = trainGrpo({
      config: config(), outDir: dir, instances: POOL, devices: [d],
      onIteration: (m, model) => { if (m.iteration === 1) model.net.params[0] = Number.NaN; },
    });
    const err = await run.then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(TrainingDivergedError);
    expect(err).toMatchObject({ iteration: 2, lastCheckpoint: 1 });
    expect((err as Error).message).toMatch(/iteration 2: (loss\/policy|weights\[0\]|optim\/grad_norm) is NaN/);
    expect(loadCheckpoint(join(dir, 'policy.json')).meta).toMatchObject({ iteration: 1 });
    const state = loadTrainerCheckpoint(dir, (n) => new Adam(n));
    expect(state.iteration).toBe(1);
    expect(state.model.net.params.every((x) => Number.isFinite(x))).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'trainer.json'), 'utf8'))).toMatchObject({ iteration: 1 });
  });

  it('refuses an invalid config listing every problem', () => {
    try {
      parseTrainConfig({ iterations: 0, rolloutsPerInstance: 1, loss: { clipEps: 2 }, bogus: 1 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(TrainConfigError);
      const problems = (e as TrainConfigError).problems.join('\n');
      for (const field of ['iterations', 'rolloutsPerInstance', 'loss.clipEps', 'bogus']) expect(problems).toContain(field);
    }
    expect(existsSync(join(tmpdir(), 'never-written'))).toBe(false);
  });

  it('awb train grpo: --help lists the config fields; a bad config file exits 2 listing every problem', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l) };
    expect(await main(['train', 'grpo', '--help'], io)).toBe(0);
    expect(out.join('\n')).toContain('rolloutsPerInstance');
    expect(out.join('\n')).toContain('adagrpo.positiveReplay.enabled');
    const file = join(tmp(), 'bad.json');
    writeFileSync(file, JSON.stringify({ iterations: -1, temperature: 0 }));
    expect(await main(['train', 'grpo', '--config', file], io)).toBe(2);
    expect(err.join('\n')).toMatch(/iterations[\s\S]*temperature|temperature[\s\S]*iterations/);
    expect(await main(['train', 'nope'], io)).toBe(2);
  });
});
