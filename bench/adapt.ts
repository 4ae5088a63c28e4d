/**
 * Few-shot per-app adaptation (docs/adaptation.md):
 *   1. a base: behaviour cloning on the seen apps (unseen-app train part, one instance per template, 30 epochs);
 *   2. one adaptation iteration: adapter GRPO at the default shape (2 shots × 8 rollouts × ≤ 20 steps on 4
 *      in-process SimDroids), lowrank r=4 and head, and one adapter SFT epoch;
 *   3. a full `awb adapt` (runAdaptation with the CLI's defaults: 8 shots, 50 iterations, seeds 30/7/1234) on
 *      each held-out app, method grpo (the paper's), sft and sft+grpo, home screen 'task-app'; plus Audio Recorder
 *      sft+grpo with the home screen left to the base, and with a head-only adapter. Also: how often the base opens
 *      the task's app on its first step (seen-app training templates vs unseen-app test templates).
 *   npm run bench -- adapt
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { ScorerAdapter, type AdapterSpec } from '../core/policy/adapter.js';
import { loadBasePolicy } from '../core/policy/adapter-file.js';
import { BuiltinPolicy, createModel } from '../core/policy/builtin.js';
import { saveCheckpoint } from '../core/policy/checkpoint.js';
import { parseAdaptConfig } from '../core/rl/adapt-config.js';
import { collectDemonstrations } from '../core/rl/demonstrations.js';
import { trainAdapterGrpo } from '../core/rl/adapt-grpo.js';
import { pickShots, resolveAdaptApp } from '../core/rl/adapt-instances.js';
import { runAdaptation, type AdaptationReport } from '../core/rl/adapt.js';
import { behaviourClone, parseSftConfig, trainSft } from '../core/rl/sft.js';
import { METRIC } from '../core/rl/grpo-loop.js';
import { TASKS } from '../core/tasks/registry.js';
import { SPLIT_DATA, splitInstances, splitTemplates } from '../core/tasks/splits.js';
import { instantiate, type TaskInstance } from '../core/tasks/instance.js';
import { resetForTask } from '../core/episode/runner.js';
import { observe } from '../core/device/observation.js';
import { findApp } from '../core/device/app-catalog.js';
import { parseAction } from '../core/actions/schema.js';
import { createRng } from '../core/util/rng.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchAdapt(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-adapt-'));
  const devices = Array.from({ length: 4 }, (_, i) => new SimDroid({ serial: `simdroid-bench-adapt-${i}` }));
  const results: Record<string, unknown> = {};
  try {
    // 1. base
    let t0 = performance.now();
    const seen = new Set<string>();
    const train = splitInstances(TASKS, 'unseen-app', 'train').filter((i) => !seen.has(i.template.id) && seen.add(i.template.id));
    const model = createModel(createRng('bench-adapt/base'));
    const demos = await collectDemonstrations(devices[0]!, train, model);
    const sft = trainSft(model, demos.demos, parseSftConfig({ epochs: 30 }));
    const basePath = join(dir, 'policy.json');
    saveCheckpoint(basePath, model);
    results.base = { templates: train.length, steps: demos.demos.length, top1: sft.at(-1)!['acc/top1'], seconds: (performance.now() - t0) / 1000 };
    console.log(`base: SFT on ${train.length} seen-app templates (${demos.demos.length} steps), top-1 ${sft.at(-1)!['acc/top1'].toFixed(3)}, ${(results.base as { seconds: number }).seconds.toFixed(1)} s`);

    // how often the base opens the task's app on the home screen (the step an adapter in home 'base' mode cannot change)
    const firstStep = async (instances: readonly TaskInstance[]) => {
      let right = 0;
      for (const instance of instances) {
        await resetForTask(devices[0]!, instance);
        const a = parseAction(new BuiltinPolicy(model).act(await observe(devices[0]!), { instruction: instance.instruction, step: 0, history: [] }).action);
        if (a.action_type === 'open_app' && instance.template.apps.some((app) => findApp(a.app_name)?.name === app)) right++;
      }
      return { right, of: instances.length };
    };
    results.opensTaskApp = {
      seenTrain: await firstStep(train),
      unseenTest: await firstStep(splitTemplates(TASKS, 'unseen-app', 'test').map((t) => instantiate(t, 30))),
    };
    console.log(`base opens the task's app first: ${JSON.stringify(results.opensTaskApp)}`);

    // 2. one iteration
    const base = loadBasePolicy(basePath);
    const target = resolveAdaptApp('Audio Recorder');
    const shots = pickShots(target, 8, 0);
    const config = parseAdaptConfig({});
    for (const spec of [{ kind: 'lowrank', rank: 4 }, { kind: 'head' }] as AdapterSpec[]) {
      const adapter = ScorerAdapter.init(spec, base.model.net.dims, createRng('bench-adapt/adapter'));
      const set = await collectDemonstrations(devices[0]!, shots, base.model);
      const sftT0 = performance.now();
      behaviourClone({ kind: 'adapter', base: base.model.net, adapter }, set.demos, { ...config.sft, epochs: 5 });
      const sftEpochMs = (performance.now() - sftT0) / 5;
      const r = await trainAdapterGrpo({ base: base.model, adapter, target, instances: shots, config: { ...config.grpo, iterations: 6 }, seed: 0, home: 'task-app', devices });
      const per = r.history.map((m) => m.metrics[METRIC.iterationS]!);
      const steps = r.history.map((m) => m.metrics[METRIC.episodeLength]! * 16);
      const label = spec.kind === 'lowrank' ? `lowrank r=${spec.rank}` : 'head';
      results[`iteration ${label}`] = { parameters: adapter.params.length, medianIterationS: median(per), iterationS: per, envSteps: steps, sftEpochMs, sftSteps: set.demos.length };
      console.log(`${label} (${adapter.params.length} params): GRPO iteration median ${median(per).toFixed(2)} s (${per.map((x) => x.toFixed(2)).join(', ')}), env steps ${steps.map((x) => Math.round(x)).join(', ')}; SFT epoch over ${set.demos.length} steps ${sftEpochMs.toFixed(0)} ms`);
    }

    // 3. full runs
    const runs: { app: string; method: 'grpo' | 'sft' | 'sft+grpo'; home: 'task-app' | 'base'; kind: 'lowrank' | 'head' }[] = [
      ...SPLIT_DATA.unseenApp.testApps.flatMap((app) => (['grpo', 'sft', 'sft+grpo'] as const).map((method) => ({ app, method, home: 'task-app' as const, kind: 'lowrank' as const }))),
      { app: 'Audio Recorder', method: 'sft+grpo', home: 'base', kind: 'lowrank' },
      { app: 'Audio Recorder', method: 'sft+grpo', home: 'task-app', kind: 'head' },
    ];
    for (const run of runs) {
      t0 = performance.now();
      const r: AdaptationReport = await runAdaptation({ policy: basePath, app: run.app, method: run.method, home: run.home, kind: run.kind, out: join(dir, 'adapter.json') }, { devices });
      const wall = (performance.now() - t0) / 1000;
      const key = `${run.app} ${run.method} home=${run.home} ${run.kind}`;
      const grpoS = r.training.grpo.map((m) => m.metrics[METRIC.iterationS]!);
      results[key] = {
        before: r.before!.successRate, after: r.after!.successRate, delta: r.delta, beforeStd: r.before!.std, afterStd: r.after!.std,
        episodes: r.before!.episodes, seconds: r.seconds, wallS: wall, grpoMedianIterationS: grpoS.length ? median(grpoS) : null,
        zeroStdIterations: r.training.grpo.filter((m) => m.metrics[METRIC.zeroStdFrac] === 1).length,
        adapterStepsFrac: r.training.grpo.length ? r.training.grpo.reduce((a, m) => a + m.metrics['adapter/steps_frac']!, 0) / r.training.grpo.length : null,
      };
      console.log(`${key}: before ${(r.before!.successRate * 100).toFixed(1)}% → after ${(r.after!.successRate * 100).toFixed(1)}% (${r.before!.episodes} test episodes); `
        + `before ${r.seconds.before.toFixed(1)} s, adapt ${r.seconds.adapt.toFixed(1)} s, after ${r.seconds.after.toFixed(1)} s, total ${wall.toFixed(1)} s`);
    }
    return results;
  } finally {
    for (const d of devices) d.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
