/**
 * Builtin policy benchmarks (issue 6): the scorer's forward pass for 100 candidates, candidate
 * extraction + features per step on real SimDroid screens, SFT throughput, and one SFT run with
 * success before / after / random on held-out seeds.
 *   npm run bench -- policy
 */
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { TASKS } from '../core/tasks/registry.js';
import { instantiate } from '../core/tasks/instance.js';
import { runEpisode } from '../core/episode/runner.js';
import { OraclePolicy } from '../core/episode/policies/oracle.js';
import { RandomPolicy } from '../core/episode/policies/random.js';
import type { Policy, PolicyContext } from '../core/episode/policy.js';
import type { Observation } from '../core/device/observation.js';
import { BuiltinPolicy, createModel, stepInputs } from '../core/policy/builtin.js';
import { featureDim } from '../core/policy/features.js';
import { collectDemonstrations } from '../core/rl/demonstrations.js';
import { parseSftConfig, trainSft } from '../core/rl/sft.js';
import { createRng } from '../core/util/rng.js';
import { fmt, stats, time } from './stats.js';

export async function benchPolicy(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  const model = createModel(createRng('bench/policy'));
  const F = featureDim(model.encoder.dim);
  results.dims = { features: F, hidden: model.net.dims.hidden, params: model.net.params.length };
  console.log(`features ${F}, hidden ${model.net.dims.hidden}, parameters ${model.net.params.length}`);

  // forward: 100 candidates
  const rng = createRng('bench/policy/x');
  const x = Float32Array.from({ length: 100 * F }, () => 2 * rng.next() - 1);
  for (let i = 0; i < 200; i++) model.net.scores(x, 100);
  const fwd = Array.from({ length: 2000 }, () => time(() => model.net.logProbs(x, 100)));
  results.forward100 = stats(fwd);
  console.log(`forward + softmax, 100 candidates: ${fmt(stats(fwd))}`);
  const bwd = Array.from({ length: 500 }, () => time(() => model.net.accumulateLogProb(x, 100, 3, -1)));
  results.logProbGrad100 = stats(bwd);
  console.log(`log π + gradient, 100 candidates:  ${fmt(stats(bwd))}`);

  // candidates + features on real screens (oracle episodes of every 4th template)
  const d = new SimDroid();
  const screens: Array<{ obs: Observation; ctx: PolicyContext }> = [];
  for (const t of TASKS.filter((_, i) => i % 4 === 0)) {
    const oracle = new OraclePolicy();
    const spy: Policy = { name: 'spy', start: (c) => oracle.start(c), act: (obs, ctx) => (screens.push({ obs, ctx: { ...ctx, history: [...ctx.history] } }), oracle.act(obs, ctx)) };
    await runEpisode({ device: d, instance: instantiate(t, 0), policy: spy });
  }
  let cands = 0;
  const feat = screens.map(({ obs, ctx }) => time(() => { cands += stepInputs(model, obs, ctx).candidates.length; }));
  results.candidatesAndFeatures = { ...stats(feat), meanCandidates: cands / screens.length };
  console.log(`candidates + features per step:    ${fmt(stats(feat))}, mean ${(cands / screens.length).toFixed(1)} candidates`);

  // SFT: demonstrations of every 6th template's train seeds, greedy success on other seeds
  const templates = TASKS.filter((_, i) => i % 6 === 0);
  const trainSet = templates.flatMap((t) => [0, 1, 2, 3, 4].map((s) => instantiate(t, s)));
  let t0 = performance.now();
  const demos = await collectDemonstrations(d, trainSet, model);
  const collectS = (performance.now() - t0) / 1000;
  console.log(`SFT data: ${demos.demos.length} steps from ${demos.episodes} oracle episodes in ${collectS.toFixed(1)} s; skipped ${JSON.stringify(demos.skipped)}`);
  const evaluate = async (make: (k: string) => Policy) => {
    let wins = 0;
    let n = 0;
    for (const t of templates) for (const seed of [100, 101, 102]) {
      n++;
      if ((await runEpisode({ device: d, instance: instantiate(t, seed), policy: make(`${t.id}/${seed}`) })).success) wins++;
    }
    return wins / n;
  };
  const before = await evaluate(() => new BuiltinPolicy(model));
  const random = await evaluate((k) => new RandomPolicy(createRng(`bench/random/${k}`)));
  const config = parseSftConfig({ epochs: 30, batchSize: 16 });
  t0 = performance.now();
  const metrics = trainSft(model, demos.demos, config);
  const trainS = (performance.now() - t0) / 1000;
  const after = await evaluate(() => new BuiltinPolicy(model));
  const trainSeeds = await (async () => {
    let wins = 0;
    for (const inst of trainSet) if ((await runEpisode({ device: d, instance: inst, policy: new BuiltinPolicy(model) })).success) wins++;
    return wins / trainSet.length;
  })();
  const last = metrics.at(-1)!;
  results.sft = {
    templates: templates.length, demoSteps: demos.demos.length, skipped: demos.skipped, collectS, trainS, epochs: config.epochs,
    stepsPerSecond: (demos.demos.length * config.epochs) / trainS, finalNll: last['loss/nll'], finalTop1: last['acc/top1'],
    successBefore: before, successAfter: after, successRandom: random, successTrainSeeds: trainSeeds,
  };
  console.log(`SFT: ${config.epochs} epochs in ${trainS.toFixed(1)} s (${((demos.demos.length * config.epochs) / trainS).toFixed(0)} steps/s), nll ${last['loss/nll'].toFixed(3)}, top-1 ${last['acc/top1'].toFixed(3)}`);
  console.log(`greedy success on ${templates.length} templates × seeds 100-102: untrained ${before.toFixed(3)}, random ${random.toFixed(3)}, after SFT ${after.toFixed(3)} (train seeds ${trainSeeds.toFixed(3)})`);
  d.close();
  return results;
}
