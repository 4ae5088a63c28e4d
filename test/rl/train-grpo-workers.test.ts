import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCheckpoint } from '../../core/policy/checkpoint.js';
import { type TrainConfigInput } from '../../core/rl/config.js';
import { METRIC, type IterationMetrics } from '../../core/rl/grpo-loop.js';
import { trainGrpo, TrainingDivergedError } from '../../core/rl/train-grpo.js';
import { getRun, listEpisodes, openStore } from '../../core/store/index.js';
import { device } from '../helpers/simdroid.js';
import { GRPO_POOL, grpoTestConfig, sftWarmStart } from '../helpers/grpo-fixture.js';
import { scratch } from '../helpers/scratch.js';
import { canCountThreads, osThreads, threadBaseline, threadsSettleTo } from '../rollout/rollout-threads.js';

// The resume test of train-grpo.test.ts with rollouts on worker threads, against the in-process run.
const d = device();
const { dir: tmp, cleanup } = scratch('awb-grpo-workers-');
afterAll(() => {
  d.close();
  cleanup();
});

const POOL = GRPO_POOL;
let init = '';
beforeAll(async () => {
  init = await sftWarmStart(d, tmp());
});

const config = (over: TrainConfigInput = {}) => grpoTestConfig(init, { devices: 2, ...over });

describe('GRPO training with rollout workers', () => {
  it('a run on 2 workers, stopped after iteration 2 and resumed, ends bit-exact with the uninterrupted in-process run; no worker outlives either part', async () => {
    const straight = await trainGrpo({ config: config({ rolloutWorkers: 0 }), outDir: tmp(), instances: POOL, devices: [d] });
    expect(straight.history.some((m) => m.metrics[METRIC.batchSteps]! > 0)).toBe(true);

    const baseline = canCountThreads ? await threadBaseline() : 0;
    const db = openStore(':memory:');
    const dir = tmp();
    const ac = new AbortController();
    let threadsDuring = 0;
    const first = await trainGrpo({
      config: config({ rolloutWorkers: 2 }), outDir: dir, instances: POOL, db, recordEpisodes: true, signal: ac.signal,
      onIteration: (m) => {
        if (canCountThreads) threadsDuring = osThreads();
        if (m.iteration === 2) ac.abort();
      },
    });
    expect(first).toMatchObject({ stoppedBy: 'aborted', iterations: 2 });
    if (canCountThreads) {
      expect(threadsDuring).toBeGreaterThanOrEqual(baseline + 2);
      expect(await threadsSettleTo(baseline)).toBe(baseline);
    }
    expect(loadCheckpoint(join(dir, 'policy.json')).meta).toMatchObject({ iteration: 2 });
    const seen: IterationMetrics[] = [];
    const resumed = await trainGrpo({ config: config({ rolloutWorkers: 2 }), outDir: dir, resume: true, instances: POOL, db, recordEpisodes: true, onIteration: (m) => seen.push(m) });
    if (canCountThreads) expect(await threadsSettleTo(baseline)).toBe(baseline);

    expect(seen.map((m) => m.iteration)).toEqual([3]);
    expect(Array.from(resumed.model.net.params)).toEqual(Array.from(straight.model.net.params));
    const all = [...first.history, ...seen];
    for (const [i, m] of all.entries()) {
      for (const name of [METRIC.rewardMean, METRIC.successRate, METRIC.lossPolicy, METRIC.batchSteps, METRIC.episodeLength]) {
        expect(m.metrics[name], `${name} at ${m.iteration}`).toBe(straight.history[i]!.metrics[name]);
      }
      expect(m.metrics[METRIC.envErrors]).toBe(0);
      expect(m.metrics[METRIC.rolloutS]).toBeGreaterThan(0);
    }
    // every rollout was recorded through the workers into the one store
    expect(listEpisodes(db, { runId: resumed.runId!, limit: 1 }).total).toBe(3 * 2 * 4);
    expect(getRun(db, resumed.runId!).status).toBe('finished');
    db.close();
  });

  it('a diverging run on workers stops with TrainingDivergedError and leaves no worker thread', async () => {
    const baseline = canCountThreads ? await threadBaseline() : 0;
    const run = trainGrpo({
      config: config({ rolloutWorkers: 2 }), outDir: tmp(), instances: POOL,
      onIteration: (m, model) => { if (m.iteration === 1) model.net.params[0] = Number.NaN; },
    });
    const err = await run.then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(TrainingDivergedError);
    expect(err).toMatchObject({ iteration: 2, lastCheckpoint: 1 });
    if (canCountThreads) expect(await threadsSettleTo(baseline)).toBe(baseline);
  });
});
