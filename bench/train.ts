/**
 * One GRPO iteration on SimDroid, the issue-6 shape: 4 task instances × 8 rollouts × ≤ 20 steps on
 * 2 in-process devices (first come first served; one thread), then the update (1 epoch, minibatches
 * of 128 steps, KL to the reference). The policy is SFT-warm-started on the same templates so that
 * episodes look like a real run's (some succeed early, others run to the step budget).
 *   npm run bench -- train
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { createModel } from '../core/policy/builtin.js';
import { saveCheckpoint } from '../core/policy/checkpoint.js';
import { parseTrainConfig } from '../core/rl/config.js';
import { collectDemonstrations, parseSftConfig, trainSft } from '../core/rl/sft.js';
import { METRIC, trainGrpo } from '../core/rl/train-grpo.js';
import { instantiate } from '../core/tasks/instance.js';
import { getTemplate } from '../core/tasks/registry.js';
import { createRng } from '../core/util/rng.js';

const TEMPLATES = ['SystemWifiTurnOn', 'ClockStopwatchRun', 'SystemBluetoothTurnOff', 'TasksAddTask'];

export async function benchTrain(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-train-'));
  const devices = [new SimDroid({ serial: 'simdroid-bench-0' }), new SimDroid({ serial: 'simdroid-bench-1' })];
  try {
    const pool = TEMPLATES.flatMap((id) => [0, 1].map((seed) => instantiate(getTemplate(id), seed)));
    const model = createModel(createRng('bench-train/init'));
    trainSft(model, (await collectDemonstrations(devices[0]!, pool, model)).demos, parseSftConfig({ epochs: 25, batchSize: 16 }));
    const init = join(dir, 'sft.json');
    saveCheckpoint(init, model);
    const results: Record<string, unknown> = {};
    const iterations = 3;
    const config = parseTrainConfig({
      init, iterations, instancesPerIteration: 4, rolloutsPerInstance: 8, maxSteps: 20, devices: 2, checkpointEvery: 1000, curriculum: { mode: 'none' },
    });
    const t0 = performance.now();
    const run = await trainGrpo({ config, outDir: join(dir, 'grpo'), instances: pool, devices });
    const wall = (performance.now() - t0) / 1000;
    for (const m of run.history) {
      const x = m.metrics;
      const line = {
        iteration_s: x[METRIC.iterationS], env_steps: Math.round(x[METRIC.episodeLength]! * 32), steps_per_s: x[METRIC.stepsPerS],
        success: x[METRIC.successRate], batch_steps: x[METRIC.batchSteps],
      };
      console.log(`iteration ${m.iteration}: ${JSON.stringify(line)}`);
      results[`iteration ${m.iteration}`] = line;
    }
    const per = run.history.map((m) => m.metrics[METRIC.iterationS]!);
    const meanS = per.reduce((a, b) => a + b, 0) / per.length;
    console.log(`4 instances × 8 rollouts × ≤ 20 steps, 2 SimDroids: mean ${meanS.toFixed(2)} s per iteration (target ≤ 5 s); ${iterations} iterations + final checkpoint ${wall.toFixed(2)} s`);
    results.meanIterationS = meanS;
    results.wallS = wall;
    return results;
  } finally {
    for (const d of devices) d.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
