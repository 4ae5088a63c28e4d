import { afterAll, describe, expect, it } from 'vitest';
import { getTemplate } from '../../core/tasks/registry.js';
import { instantiate } from '../../core/tasks/instance.js';
import { runEpisode } from '../../core/episode/runner.js';
import { RandomPolicy } from '../../core/episode/policies/random.js';
import type { Policy } from '../../core/episode/policy.js';
import { BuiltinPolicy, createModel } from '../../core/policy/builtin.js';
import { collectDemonstrations } from '../../core/rl/demonstrations.js';
import { parseSftConfig, SftConfigError, trainSft } from '../../core/rl/sft.js';
import { createRng } from '../../core/util/rng.js';
import { device } from '../helpers/simdroid.js';

const d = device();
afterAll(() => d.close());

const TEMPLATES = ['SystemWifiTurnOn', 'SystemBluetoothTurnOff', 'ClockStopwatchRun', 'TasksAddTask', 'ContactsDeleteContact'];
const TRAIN_SEEDS = [0, 1, 2, 3];
const TEST_SEEDS = [100, 101, 102];

async function successRate(make: (key: string) => Policy): Promise<number> {
  let wins = 0;
  let n = 0;
  for (const id of TEMPLATES) {
    for (const seed of TEST_SEEDS) {
      const r = await runEpisode({ device: d, instance: instantiate(getTemplate(id), seed), policy: make(`${id}/${seed}`) });
      n++;
      if (r.success) wins++;
    }
  }
  return wins / n;
}

describe('SFT', () => {
  it('turns the untrained builtin policy into one that solves held-out seeds of its training templates', async () => {
    const model = createModel(createRng('sft-test'));
    const train = TEMPLATES.flatMap((id) => TRAIN_SEEDS.map((s) => instantiate(getTemplate(id), s)));
    const set = await collectDemonstrations(d, train, model);
    expect(set.episodes).toBe(train.length);
    expect(set.oracleFailures).toBe(0);
    expect(set.demos.length).toBeGreaterThan(50);

    const before = await successRate(() => new BuiltinPolicy(model));
    const random = await successRate((k) => new RandomPolicy(createRng(`sft-random/${k}`)));
    const metrics = trainSft(model, set.demos, parseSftConfig({ epochs: 25, batchSize: 16 }));
    const after = await successRate(() => new BuiltinPolicy(model));
    console.log(`SFT on ${set.demos.length} steps: success ${before.toFixed(2)} → ${after.toFixed(2)} (random ${random.toFixed(2)}); nll ${metrics[0]!['loss/nll'].toFixed(2)} → ${metrics.at(-1)!['loss/nll'].toFixed(2)}, top-1 ${metrics.at(-1)!['acc/top1'].toFixed(2)}`);

    expect(metrics).toHaveLength(25);
    expect(metrics.at(-1)!['loss/nll']).toBeLessThan(metrics[0]!['loss/nll'] / 2);
    expect(metrics.at(-1)!['acc/top1']).toBeGreaterThan(0.8);
    expect(after).toBeGreaterThanOrEqual(before + 0.3);
    expect(after).toBeGreaterThanOrEqual(random + 0.3);
  });

  it('refuses an invalid config listing every problem, and fills defaults', () => {
    expect(parseSftConfig({})).toMatchObject({ epochs: 30, batchSize: 32, lr: 1e-2 });
    try {
      parseSftConfig({ epochs: 0, lr: -1, extra: true });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(SftConfigError);
      const problems = (e as SftConfigError).problems.join(' | ');
      expect(problems).toMatch(/epochs/);
      expect(problems).toMatch(/lr/);
      expect(problems).toMatch(/extra/);
    }
  });
});
