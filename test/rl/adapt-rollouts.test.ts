import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBasePolicy, type BasePolicy } from '../../core/policy/adapter-file.js';
import { ADAPTER_NORM, ADAPTER_STEPS_FRAC } from '../../core/rl/adapt-grpo.js';
import { AdaptRolloutDevicesError, withAdaptRolloutWorkers } from '../../core/rl/adapt-rollouts.js';
import { adaptToApp, type AdaptToAppResult } from '../../core/rl/adapt.js';
import { parseAdaptConfig, type AdaptConfigInput } from '../../core/rl/adapt-config.js';
import { METRIC } from '../../core/rl/grpo-loop.js';
import { createRun, openStore } from '../../core/store/index.js';
import { ADAPT_APP, adaptTestBase, adaptTestConfig, metricsEssence, recordedRollouts } from '../helpers/adapt-fixture.js';
import { scratch } from '../helpers/scratch.js';
import { device } from '../helpers/simdroid.js';

/**
 * Adaptation's GRPO rollouts on rollout worker threads (grpo.rolloutWorkers, core/rl/adapt-rollouts.ts) give what
 * in-process rollouts give for the same seed: each rollout samples the adapted policy with its own RNG key, so the
 * recorded rollouts, the metrics and the trained adapter do not depend on which worker ran a rollout.
 */
const APP = ADAPT_APP;
const config = (grpo: AdaptConfigInput['grpo'] = {}) => adaptTestConfig(grpo);

const d = device({ serial: 'adapt-rollouts-0' });
afterAll(() => d.close());
const tmp = scratch('awb-adapt-rollouts-');
afterAll(tmp.cleanup);
let base: BasePolicy;
beforeAll(async () => {
  base = loadBasePolicy(await adaptTestBase(d, tmp.dir()));
}, 30_000);

describe('adaptation GRPO on rollout worker threads', () => {
  it('rolloutWorkers 2: the same recorded rollouts, metrics and adapter as in process on one device, for the same seed', async () => {
    const db = openStore(':memory:');
    try {
      const run = (name: string) => ({ db, runId: createRun(db, { kind: 'training', name, config: { trainer: 'adapt' } }).id });
      const here = run('in process');
      const local = await adaptToApp({ base, app: APP, config: config(), devices: [d], record: here });
      const threads = run('worker threads');
      // No devices given: grpo.rolloutWorkers 2 threads, each with a SimDroid of its own.
      const pooled: AdaptToAppResult = await adaptToApp({ base, app: APP, config: config({ rolloutWorkers: 2, devices: 2 }), record: threads });

      expect(metricsEssence(pooled.grpo)).toEqual(metricsEssence(local.grpo));
      expect(Array.from(pooled.adapter.adapter.params)).toEqual(Array.from(local.adapter.adapter.params));
      // GRPO had something to follow (a mixed group, a gradient), and the adapter scored steps: the comparison bites.
      expect(local.grpo.some((m) => m.metrics[METRIC.zeroStdFrac]! < 1 && m.metrics[METRIC.gradNorm]! > 0)).toBe(true);
      expect(local.grpo.every((m) => m.metrics[ADAPTER_STEPS_FRAC]! > 0)).toBe(true);
      expect(local.grpo[1]!.metrics[ADAPTER_NORM]).not.toBe(local.grpo[0]!.metrics[ADAPTER_NORM]);
      expect(pooled.grpo.map((m) => m.metrics[METRIC.reruns])).toEqual([0, 0]);

      const a = recordedRollouts(db, here.runId);
      const b = recordedRollouts(db, threads.runId);
      expect(b.rollouts).toEqual(a.rollouts);
      expect(a.rollouts).toHaveLength(2 * 2 * 4);
      expect(new Set(a.rollouts.map((r) => r.policy))).toEqual(new Set(['builtin-adapt']));
      // Where each ran: the given device, and the two workers' own SimDroids.
      expect(a.serials).toEqual(new Set(['adapt-rollouts-0']));
      expect(b.serials).toEqual(new Set(['simdroid-grpo-w0', 'simdroid-grpo-w1']));
    } finally {
      db.close();
    }
  }, 60_000);

  it('devices given run in process; a Ray address with devices given is refused before anything starts', async () => {
    const c = parseAdaptConfig(config({ rolloutWorkers: 2, devices: 2 }));
    expect(await withAdaptRolloutWorkers(c, { devicesGiven: true, recording: false }, async (w) => w)).toBeNull();
    expect(await withAdaptRolloutWorkers(parseAdaptConfig(config({ rolloutWorkers: 0 })), { devicesGiven: false, recording: false }, async (w) => w)).toBeNull();
    const ray = parseAdaptConfig({ ...config(), ray: { address: '127.0.0.1:1', envs: 2 } });
    let ran = false;
    await expect(withAdaptRolloutWorkers(ray, { devicesGiven: true, recording: false }, async () => (ran = true))).rejects.toThrow(AdaptRolloutDevicesError);
    expect(ran).toBe(false);
    await expect(adaptToApp({ base, app: APP, config: { ...config(), ray: { address: '127.0.0.1:1' } }, devices: [d] }))
      .rejects.toThrow('The adaptation config runs GRPO rollouts on the Ray cluster 127.0.0.1:1 (ray.address), and devices were given too: one or the other');
  });
});
