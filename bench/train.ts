/**
 * GRPO iterations on SimDroid, the issue-6 shape: 4 task instances × 8 rollouts × ≤ 20 steps on 2
 * devices, then the update (1 epoch, minibatches of 128 steps, KL to the reference). Each shape
 * runs with rollouts in-process (2 SimDroids interleaved in the training thread) and on 2 worker
 * threads (a SimDroid each, `rolloutWorkers: 2`).
 *   typical: the policy is SFT-warm-started on the same templates, so episodes look like a real
 *            run's (some succeed early, others run to the step budget);
 *   worst:   the same policy with its answer / status candidates suppressed, so every episode runs
 *            all 20 steps (640 env steps per iteration), and zero-std groups kept, so all 640
 *            steps also go through the update.
 *   npm run bench -- train
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { createModel, type PolicyModel } from '../core/policy/builtin.js';
import { CANDIDATE_KINDS } from '../core/policy/candidates.js';
import { saveCheckpoint } from '../core/policy/checkpoint.js';
import { parseTrainConfig, type TrainConfigInput } from '../core/rl/config.js';
import { collectDemonstrations } from '../core/rl/demonstrations.js';
import { parseSftConfig, trainSft } from '../core/rl/sft.js';
import { METRIC } from '../core/rl/grpo-loop.js';
import { trainGrpo } from '../core/rl/train-grpo.js';
import { instantiate, type TaskInstance } from '../core/tasks/instance.js';
import { getTemplate } from '../core/tasks/registry.js';
import { createRng } from '../core/util/rng.js';

const TEMPLATES = ['SystemWifiTurnOn', 'ClockStopwatchRun', 'SystemBluetoothTurnOff', 'TasksAddTask'];
const ROLLOUTS = 4 * 8;

/**
 * Makes the terminal candidates (answer, status) practically never sampled: their kind one-hot
 * feature gets a skip weight of −60 (the network's layout is W1 H×F, b1, w2, then wl over the F
 * features; the kind one-hot starts at 7E, core/policy/features.ts). An episode then only ends at
 * its step budget.
 */
function suppressTerminal(model: PolicyModel): void {
  const { input: F, hidden: H } = model.net.dims;
  const wl = H * F + 2 * H;
  for (const kind of ['answer', 'status'] as const) model.net.params[wl + 7 * model.encoder.dim + CANDIDATE_KINDS.indexOf(kind)] = -60;
}

/**
 * How many cores this process can get right now (the machine is shared): the work two threads
 * spinning side by side get done, relative to one thread alone (≈ 2 on an idle 2-core machine).
 */
async function parallelCapacity(ms = 1000): Promise<number> {
  const code = `const { parentPort } = require('node:worker_threads'); const t = Date.now(); let n = 0; while (Date.now() - t < ${ms}) n++; parentPort.postMessage(n);`;
  const spin = () => new Promise<number>((resolve, reject) => {
    const w = new Worker(code, { eval: true });
    w.once('message', (n: number) => void w.terminate().then(() => resolve(n)));
    w.once('error', reject);
  });
  const one = await spin();
  const two = await Promise.all([spin(), spin()]);
  return (two[0]! + two[1]!) / one;
}

interface Scenario {
  name: string;
  init: string;
  over: TrainConfigInput;
  iterations: number;
}

async function runScenario(s: Scenario, dir: string, pool: readonly TaskInstance[]): Promise<Record<string, unknown>> {
  const config = parseTrainConfig({
    init: s.init, iterations: s.iterations, instancesPerIteration: 4, rolloutsPerInstance: 8, maxSteps: 20, devices: 2,
    checkpointEvery: 1000, curriculum: { mode: 'none' }, ...s.over,
  });
  const loadBefore = loadavg()[0]!;
  const capacity = await parallelCapacity();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const run = await trainGrpo({ config, outDir: join(dir, s.name), instances: pool });
  const wall = (performance.now() - t0) / 1000;
  // CPU time of every thread of the process (workers, V8's GC and compiler threads) per wall second
  const cpu = process.cpuUsage(cpu0);
  const coresUsed = (cpu.user + cpu.system) / 1e6 / wall;
  const out: Record<string, unknown> = {};
  for (const m of run.history) {
    const x = m.metrics;
    const line = {
      iteration_s: x[METRIC.iterationS], rollout_s: x[METRIC.rolloutS], env_steps: Math.round(x[METRIC.episodeLength]! * ROLLOUTS),
      steps_per_s: x[METRIC.stepsPerS], success: x[METRIC.successRate], batch_steps: x[METRIC.batchSteps], env_errors: x[METRIC.envErrors],
    };
    console.log(`${s.name} iteration ${m.iteration}: ${JSON.stringify(line)}`);
    out[`iteration ${m.iteration}`] = line;
  }
  const sum = (k: string) => run.history.reduce((a, m) => a + m.metrics[k]!, 0);
  const meanIterationS = sum(METRIC.iterationS) / run.history.length;
  const meanRolloutS = sum(METRIC.rolloutS) / run.history.length;
  // After the first iteration, which also compiles the code (a fresh worker's JIT is cold).
  const later = run.history.slice(1);
  const laterMean = (k: string) => later.reduce((a, m) => a + m.metrics[k]!, 0) / Math.max(1, later.length);
  const laterIterationS = laterMean(METRIC.iterationS);
  const laterRolloutS = laterMean(METRIC.rolloutS);
  // what the iterations do not account for: starting the workers (or devices), the final checkpoint
  const outsideS = wall - sum(METRIC.iterationS);
  // The machine is shared: the 1-minute load average says how much else was running.
  const load = [loadBefore, loadavg()[0]!];
  console.log(`${s.name}: mean ${meanIterationS.toFixed(2)} s per iteration (rollouts ${meanRolloutS.toFixed(2)} s; target ≤ 5 s), `
    + `after the first ${laterIterationS.toFixed(2)} s (rollouts ${laterRolloutS.toFixed(2)} s); `
    + `wall ${wall.toFixed(2)} s for ${s.iterations} iterations, ${outsideS.toFixed(2)} s outside them; load ${load.map((l) => l.toFixed(1)).join(' → ')}, `
    + `2 threads got ${capacity.toFixed(2)}× one thread's work just before; the run used ${coresUsed.toFixed(2)} cores on average`);
  return { ...out, meanIterationS, meanRolloutS, laterIterationS, laterRolloutS, wallS: wall, outsideIterationsS: outsideS, loadAverage: load, parallelCapacity: capacity, coresUsed };
}

export async function benchTrain(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-train-'));
  const sftDevice = new SimDroid({ serial: 'simdroid-bench-sft' });
  try {
    const pool = TEMPLATES.flatMap((id) => [0, 1].map((seed) => instantiate(getTemplate(id), seed)));
    const model = createModel(createRng('bench-train/init'));
    trainSft(model, (await collectDemonstrations(sftDevice, pool, model)).demos, parseSftConfig({ epochs: 25, batchSize: 16 }));
    const typical = join(dir, 'sft.json');
    saveCheckpoint(typical, model);
    suppressTerminal(model);
    const worst = join(dir, 'sft-no-terminal.json');
    saveCheckpoint(worst, model);

    const scenarios: Scenario[] = [
      { name: 'typical in-process', init: typical, over: { rolloutWorkers: 0 }, iterations: 6 },
      { name: 'typical 2 workers', init: typical, over: { rolloutWorkers: 2 }, iterations: 6 },
      { name: 'worst in-process', init: worst, over: { rolloutWorkers: 0, advantage: { zeroStdGroups: 'keep' } }, iterations: 4 },
      { name: 'worst 2 workers', init: worst, over: { rolloutWorkers: 2, advantage: { zeroStdGroups: 'keep' } }, iterations: 4 },
    ];
    const results: Record<string, unknown> = {};
    for (const s of scenarios) results[s.name] = await runScenario(s, dir, pool);
    return results;
  } finally {
    sftDevice.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
