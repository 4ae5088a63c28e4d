import { afterAll, describe, expect, it } from 'vitest';
import type { Device } from '../../core/device/device.js';
import { ScorerAdapter } from '../../core/policy/adapter.js';
import { createModel } from '../../core/policy/builtin.js';
import { AdaptGrpoConfigSchema } from '../../core/rl/adapt-config.js';
import { trainAdapterGrpo } from '../../core/rl/adapt-grpo.js';
import { pickShots, resolveAdaptApp } from '../../core/rl/adapt-instances.js';
import { METRIC, type IterationMetrics } from '../../core/rl/grpo-loop.js';
import { createRng } from '../../core/util/rng.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';

/** The rollout-phase metrics adapter GRPO logs as train-grpo.ts does: perf/rollout_s and rollout/env_errors. */
const target = resolveAdaptApp('Clock');
const shots = pickShots(target, 2, 0);
const config = AdaptGrpoConfigSchema.parse({ iterations: 2, instancesPerIteration: 2, rolloutsPerInstance: 2, maxSteps: 3 });
const sims = [new SimDroid({ serial: 'adapt-metrics-0' }), new SimDroid({ serial: 'adapt-metrics-1' })];
afterAll(() => sims.forEach((d) => d.close()));

/** A device whose screen query fails: every episode on it ends in an environment error before it begins. */
function unreachable(d: SimDroid): Device {
  return new Proxy(d, {
    get(t, prop, receiver) {
      if (prop === 'screenInfo') return () => Promise.reject(new Error('device offline'));
      const v = Reflect.get(t, prop, receiver);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
}

async function train(devices: readonly Device[]): Promise<IterationMetrics[]> {
  const base = createModel(createRng('adapt-metrics/base'));
  const adapter = ScorerAdapter.init({ kind: 'lowrank', rank: 2 }, base.net.dims, createRng('adapt-metrics/init'));
  const r = await trainAdapterGrpo({ base, adapter, target, instances: shots, config, seed: 0, home: 'task-app', devices });
  return r.history;
}

describe('adapter GRPO iteration metrics', () => {
  it('log the rollout phase time (within the iteration time) and no environment errors on healthy devices', async () => {
    const history = await train(sims);
    expect(history).toHaveLength(2);
    for (const { metrics } of history) {
      expect(metrics[METRIC.rolloutS]).toBeGreaterThan(0);
      expect(metrics[METRIC.rolloutS]).toBeLessThanOrEqual(metrics[METRIC.iterationS]!);
      expect(metrics[METRIC.envErrors]).toBe(0);
    }
  }, 60_000);

  it('count the rollouts that ended in an environment error', async () => {
    const history = await train([unreachable(sims[0]!)]);
    // 2 shots x G = 2 per iteration, every one on the unreachable device.
    expect(history.map((m) => m.metrics[METRIC.envErrors])).toEqual([4, 4]);
    expect(history.every((m) => Number.isFinite(m.metrics[METRIC.rolloutS]))).toBe(true);
  }, 60_000);
});
