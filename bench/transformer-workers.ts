/**
 * The transformer policy's sampled rollouts (GRPO's) on rollout worker threads (issue 37): steps per second with 1
 * and 2 worker threads, beside the same jobs in this thread on one SimDroid. The model is a fresh default-shape one
 * from the trainer's session (the tests' vocabulary unless AWB_BENCH_TOKENIZER names a tokenizer.json: the weights do
 * not change the cost); the jobs are 4 rollouts of each of 16 templates at temperature 1, at most 10 steps each, the
 * same episodes on every path (each rollout's RNG is its own). A warm-up batch per pool (its threads start, boot
 * their SimDroids and load the model) is not counted; then rounds alternate between the paths.
 *   npm run bench -- transformer-workers
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSimDroids } from '../core/devices/provider.js';
import { TransformerModel } from '../core/policy/transformer/model.js';
import { shapeLayout, trainerModelConfig, TransformerShapeSchema } from '../core/rl/transformer-config.js';
import { runTransformerRollouts } from '../core/rl/transformer-rollouts.js';
import { TransformerSession } from '../core/rl/transformer-session.js';
import { RolloutWorkerPool } from '../core/rollout/rollout-workers.js';
import type { RolloutJob } from '../core/rollout/rollouts.js';
import { instantiate } from '../core/tasks/instance.js';
import { TASKS } from '../core/tasks/registry.js';
import { stats } from './stats.js';

const TOKENIZER = process.env.AWB_BENCH_TOKENIZER ?? join(import.meta.dirname, '..', 'test', 'policy', 'transformer-fixtures', 'tokenizer.json');
const ROUNDS = 5;

export async function benchTransformerWorkers(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-tfw-'));
  const session = TransformerSession.start();
  const shape = TransformerShapeSchema.parse({});
  await session.request('create', { model: trainerModelConfig(shape), layout: shapeLayout(shape), seed: 0, tokenizer: TOKENIZER });
  await session.request('save', { out: join(dir, 'model'), meta: { trainer: 'bench' } });
  await session.close();
  const model = await TransformerModel.load(join(dir, 'model'));
  const templates = TASKS.filter((_, i) => i % Math.floor(TASKS.length / 16) === 0).slice(0, 16);
  const jobs: RolloutJob[] = templates.flatMap((t, g) => [0, 1, 2, 3].map((k) => ({ group: g, rollout: k, instance: instantiate(t, 0), rngKey: `bench-tfw/${g}/${k}` })));
  const opts = { model, temperature: 1, maxSteps: 10 };
  const [device] = openSimDroids(1, 'bench-tfw-');
  const pools = { 1: await RolloutWorkerPool.start({ workers: 1 }), 2: await RolloutWorkerPool.start({ workers: 2 }) };
  const paths: Array<[string, () => Promise<number>]> = [
    ['in this thread, 1 SimDroid', async () => (await runTransformerRollouts([device!], jobs, opts)).reduce((n, r) => n + r.result.steps.length, 0)],
    ['1 worker thread', async () => (await runTransformerRollouts(pools[1], jobs, opts)).reduce((n, r) => n + r.result.steps.length, 0)],
    ['2 worker threads', async () => (await runTransformerRollouts(pools[2], jobs, opts)).reduce((n, r) => n + r.result.steps.length, 0)],
  ];
  const perS: Record<string, number[]> = Object.fromEntries(paths.map(([n]) => [n, []]));
  const loads: number[] = [];
  let steps = 0;
  try {
    for (const [, run] of paths) steps = await run(); // warm-up: threads boot, the model loads
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of paths) {
        const t0 = performance.now();
        const n = await run();
        if (n !== steps) throw new Error(`${name}: ${n} steps, another path took ${steps}: the episodes differ`);
        perS[name]!.push(n / ((performance.now() - t0) / 1000));
        loads.push(loadavg()[0]!);
      }
    }
  } finally {
    await pools[1].close();
    await pools[2].close();
    device!.close();
    await model.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const out: Record<string, unknown> = { episodes: jobs.length, steps, loadAverage: { min: Math.min(...loads), max: Math.max(...loads) } };
  console.log(`${jobs.length} episodes, ${steps} steps per batch; load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`);
  for (const [name] of paths) {
    const s = stats(perS[name]!);
    const lo = Math.min(...perS[name]!);
    out[name] = { medianStepsPerS: s.median, min: lo, max: s.max };
    console.log(`${name}: median ${s.median.toFixed(0)} steps/s (${lo.toFixed(0)}–${s.max.toFixed(0)} over ${s.n} rounds)`);
  }
  return out;
}
