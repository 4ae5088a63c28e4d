/**
 * Reward benchmarks (issue 7).
 *   npm run bench -- rewards
 * ADMIRE: milestone matching time per step with the built-in embedder, and the match accuracy against
 * SimDroid's ground-truth subgoals (oracle and ε-noisy oracle episodes, δ sweep; paper: 81.3% at 0.75).
 */
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { TASKS } from '../core/tasks/registry.js';
import { instantiate } from '../core/tasks/instance.js';
import { OraclePolicy } from '../core/episode/policies/oracle.js';
import { RandomPolicy } from '../core/episode/policies/random.js';
import type { Policy } from '../core/episode/policy.js';
import { createRng, type Rng } from '../core/util/rng.js';
import { ConsensusDistiller, hashedEmbedder, matchMilestones, MemoryMilestoneStore, MilestoneMemory, DEFAULT_ADMIRE_CONFIG } from '../core/rewards/admire/index.js';
import { evaluateMilestoneMatching, type MatchAccuracy } from '../core/rewards/admire/accuracy.js';
import { BuiltinPolicy, createModel } from '../core/policy/builtin.js';
import { collectDemonstrations } from '../core/rl/demonstrations.js';
import { parseSftConfig, trainSft } from '../core/rl/sft.js';
import { fmt, stats, time } from './stats.js';

/** The oracle, but each step is replaced by a random action with probability ε (detours, failures). */
export function noisyOracle(rng: Rng, epsilon: number): Policy {
  const oracle = new OraclePolicy();
  const random = new RandomPolicy(rng);
  return {
    name: `oracle-eps${epsilon}`,
    start: (ctx) => oracle.start(ctx),
    act: (obs, ctx) => (rng.chance(epsilon) ? random.act(obs) : oracle.act(obs, ctx)),
  };
}

/** Every 6th template: the ones the SFT policy of the reward benches is trained and run on. */
export const SFT_TEMPLATES = () => TASKS.filter((_, i) => i % 6 === 0);

/** The builtin policy after SFT on seeds 0–4 of `templates` (the policy bench's recipe: 30 epochs, batch 16). */
export async function trainBenchSft(d: SimDroid, templates: typeof TASKS): Promise<ReturnType<typeof createModel>> {
  const model = createModel(createRng('bench/rewards/sft'));
  const demos = await collectDemonstrations(d, templates.flatMap((t) => [0, 1, 2, 3, 4].map((s) => instantiate(t, s))), model);
  trainSft(model, demos.demos, parseSftConfig({ epochs: 30, batchSize: 16 }));
  return model;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const line = (a: MatchAccuracy) => `acc ${pct(a.accuracy)}  P ${pct(a.precision)}  R ${pct(a.recall)}  (${a.steps} steps)`;

export async function benchRewards(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};

  // matching speed: a 20-step episode against 8 milestones, descriptions never seen before (cold
  // embedding) and repeated (the encoder's memo, as in a GRPO group of near-identical episodes)
  const embedder = hashedEmbedder();
  const rng = createRng('bench/rewards');
  const ms = Array.from({ length: 8 }, (_, i) => embedder.embed(`Tap "Milestone button ${i}" in Contacts`));
  let n = 0;
  const cold = Array.from({ length: 500 }, () => {
    const texts = Array.from({ length: 20 }, () => `Type "${rng.int(0, 1e9)}" into "field ${n++}" in Contacts`);
    return time(() => matchMilestones(texts.map((t) => embedder.embed(t)), ms, DEFAULT_ADMIRE_CONFIG)) / 20;
  });
  const warmTexts = Array.from({ length: 20 }, (_, i) => `Tap "Button ${i}" in Contacts`);
  const warm = Array.from({ length: 2000 }, () => time(() => matchMilestones(warmTexts.map((t) => embedder.embed(t)), ms, DEFAULT_ADMIRE_CONFIG)) / 20);
  results.matchPerStepCold = stats(cold);
  results.matchPerStepWarm = stats(warm);
  console.log(`ADMIRE matching per step (embed + cosine), new texts:      ${fmt(stats(cold))}`);
  console.log(`ADMIRE matching per step (embed + cosine), repeated texts: ${fmt(stats(warm))}`);

  // accuracy against SimDroid's ground-truth subgoals
  const d = new SimDroid();
  const t0 = performance.now();
  const memory = new MilestoneMemory(new MemoryMilestoneStore(), new ConsensusDistiller());
  const deltas = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95];
  const r = await evaluateMilestoneMatching({
    device: d, memory, deltas,
    distillOn: TASKS.flatMap((t) => [0, 1, 2, 3].map((s) => instantiate(t, s))),
    evalOn: TASKS.flatMap((t) => [100, 101].map((s) => instantiate(t, s))),
    makeOracle: () => new OraclePolicy(),
    policies: [
      { name: 'oracle', make: () => new OraclePolicy() },
      { name: 'oracle-eps0.2', make: (inst) => noisyOracle(createRng(`bench/rewards/${inst.template.id}/${inst.seed}`), 0.2) },
    ],
  });
  const wall = (performance.now() - t0) / 1000;
  const successes = (p: string) => r.episodes.filter((e) => e.policy === p && e.success).length / r.episodes.filter((e) => e.policy === p).length;
  console.log(`accuracy check: ${r.episodes.length} episodes on ${TASKS.length} templates in ${wall.toFixed(0)} s; milestones for ${r.milestones.templates} templates, mean K ${r.milestones.meanK.toFixed(1)}; success oracle ${pct(successes('oracle'))}, ε-noisy ${pct(successes('oracle-eps0.2'))}`);
  for (const row of r.byDelta) {
    console.log(`  δ ${row.delta.toFixed(2)}: all ${line(row.all)} | oracle ${pct(row.byPolicy.oracle!.accuracy)} | ε-noisy ${pct(row.byPolicy['oracle-eps0.2']!.accuracy)}`);
  }
  console.log(`  matching inside the check: ${r.matchMsPerStep.toFixed(4)} ms per step`);
  results.accuracy = {
    episodes: r.episodes.length, templates: TASKS.length, wallS: wall, milestones: r.milestones,
    success: { oracle: successes('oracle'), noisy: successes('oracle-eps0.2') }, byDelta: r.byDelta, matchMsPerStep: r.matchMsPerStep,
  };

  // SFT episodes: the builtin policy after SFT on every 6th template (bench policy's recipe), matched
  // on held-out seeds of those templates with the milestones distilled above
  const sftTemplates = SFT_TEMPLATES();
  const model = await trainBenchSft(d, sftTemplates);
  const sft = await evaluateMilestoneMatching({
    device: d, memory, deltas, distillOn: [], makeOracle: () => new OraclePolicy(),
    evalOn: sftTemplates.flatMap((t) => [100, 101, 102].map((s) => instantiate(t, s))),
    policies: [{ name: 'sft', make: () => new BuiltinPolicy(model) }],
  });
  d.close();
  const sftSuccess = sft.episodes.filter((e) => e.success).length / sft.episodes.length;
  console.log(`SFT episodes: ${sft.episodes.length} on ${sftTemplates.length} templates, success ${pct(sftSuccess)}`);
  for (const row of sft.byDelta) console.log(`  δ ${row.delta.toFixed(2)}: ${line(row.all)}`);
  results.sft = { episodes: sft.episodes.length, templates: sftTemplates.length, success: sftSuccess, byDelta: sft.byDelta.map((x) => ({ delta: x.delta, ...x.all })) };
  return results;
}
