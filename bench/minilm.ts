/**
 * ADMIRE's real sentence embedder against the builtin hashed one (issue 37):
 *   npm run bench -- minilm
 * all-MiniLM-L6-v2 exported by `awb models minilm` (AWB_MINILM_ONNX names an exported folder to reuse; otherwise it is
 * exported into a temporary folder first) and run by TransformersEmbedder on one ONNX Runtime thread.
 * Cost: load, per text in the embedder's batches, per text alone, and per episode as ADMIRE pays it (prepare the
 * episode's texts, then match). Effect on the reward benches' episodes (bench/rewards.ts: milestones distilled from
 * oracle successes on seeds 0–3 of every template; the ε = 0.2 noisy oracle on seeds 100–101 of every template; the
 * builtin policy after SFT on seeds 100–102 of every 6th template): step agreement with SimDroid's ground-truth
 * subgoals, and how well the final milestone progress k/K separates the checker's successes from its failures (AUC).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { TASKS } from '../core/tasks/registry.js';
import { instantiate } from '../core/tasks/instance.js';
import { OraclePolicy } from '../core/episode/policies/oracle.js';
import { BuiltinPolicy } from '../core/policy/builtin.js';
import { createRng } from '../core/util/rng.js';
import { ConsensusDistiller, hashedEmbedder, MemoryMilestoneStore, MilestoneMemory, TransformersEmbedder, needsPrepare, type TextEmbedder } from '../core/rewards/admire/index.js';
import {
  episodeTexts, matchAccuracy, matchEpisode, runMatchingEpisodes, separationAuc, type EvaluatedEpisode,
} from '../core/rewards/admire/accuracy.js';
import { exportMiniLm } from '../core/rl/minilm-export.js';
import { noisyOracle, SFT_TEMPLATES, trainBenchSft } from './rewards.js';
import { stats, type Stats } from './stats.js';

const DELTAS = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9];
const ms = (s: Stats) => `median ${s.median.toFixed(2)} ms, p95 ${s.p95.toFixed(2)} ms, mean ${s.mean.toFixed(2)} ms (n=${s.n})`;

/** Per episode as ADMIRE pays it: prepare its texts (a no-op for the hashed embedder), embed, match at δ 0.75. */
async function episodeCost(episodes: readonly EvaluatedEpisode[], memory: MilestoneMemory, embedder: TextEmbedder): Promise<Stats> {
  const samples: number[] = [];
  for (const ep of episodes) {
    const t0 = performance.now();
    if (needsPrepare(embedder)) await embedder.prepare(episodeTexts([ep], memory));
    matchEpisode(ep, memory, embedder, { delta: 0.75, afterLast: 'stop' });
    samples.push(performance.now() - t0);
  }
  return stats(samples);
}

/** Step agreement and success separation of one embedder on one set of episodes, per δ. */
function effect(episodes: readonly EvaluatedEpisode[], memory: MilestoneMemory, embedder: TextEmbedder) {
  return DELTAS.map((delta) => {
    const matched = episodes.map((ep) => ({ ep, m: matchEpisode(ep, memory, embedder, { delta, afterLast: 'stop' }) }));
    const scored = matched.map(({ ep, m }) => ({ score: m.K ? m.kFinal / m.K : 0, success: ep.success }));
    const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
    return {
      delta,
      steps: matchAccuracy(matched.map(({ ep, m }) => ({ hit: m.hit, progress: ep.progress }))),
      auc: separationAuc(scored),
      progressSuccess: mean(scored.filter((s) => s.success).map((s) => s.score)),
      progressFailure: mean(scored.filter((s) => !s.success).map((s) => s.score)),
    };
  });
}

/**
 * The AUC difference (MiniLM − hashed) at one δ with a paired bootstrap over episodes (2,000 resamples, seeded):
 * the same resampled episodes score both embedders, so the interval is of the difference itself.
 */
function aucDifference(episodes: readonly EvaluatedEpisode[], memory: MilestoneMemory, a: TextEmbedder, b: TextEmbedder, delta: number) {
  const score = (e: TextEmbedder) => episodes.map((ep) => {
    const m = matchEpisode(ep, memory, e, { delta, afterLast: 'stop' });
    return m.K ? m.kFinal / m.K : 0;
  });
  const sa = score(a);
  const sb = score(b);
  const diff = (idx: readonly number[]) => {
    const pa = separationAuc(idx.map((i) => ({ score: sa[i]!, success: episodes[i]!.success })));
    const pb = separationAuc(idx.map((i) => ({ score: sb[i]!, success: episodes[i]!.success })));
    return pa === null || pb === null ? null : pa - pb;
  };
  const rng = createRng(`bench/minilm/bootstrap/${delta}`);
  const draws: number[] = [];
  for (let r = 0; r < 2000; r++) {
    const d = diff(episodes.map(() => rng.int(0, episodes.length - 1)));
    if (d !== null) draws.push(d);
  }
  draws.sort((x, y) => x - y);
  return { delta, difference: diff(episodes.map((_, i) => i)), ci95: [draws[Math.floor(0.025 * draws.length)]!, draws[Math.floor(0.975 * draws.length)]!] };
}

export async function benchMinilm(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = { loadAverageAtStart: loadavg() };
  let scratch: string | null = null;
  let folder = process.env.AWB_MINILM_ONNX;
  if (!folder) {
    scratch = mkdtempSync(join(tmpdir(), 'awb-bench-minilm-'));
    const t0 = performance.now();
    folder = (await exportMiniLm(join(scratch, 'all-MiniLM-L6-v2'))).out;
    results.exportS = (performance.now() - t0) / 1000;
    console.log(`export (awb models minilm's step): ${(results.exportS as number).toFixed(1)} s`);
  }

  // episodes, as bench/rewards.ts makes them
  const d = new SimDroid();
  const memory = new MilestoneMemory(new MemoryMilestoneStore(), new ConsensusDistiller());
  const t0 = performance.now();
  const noisy = await runMatchingEpisodes({
    device: d, memory, makeOracle: () => new OraclePolicy(),
    distillOn: TASKS.flatMap((t) => [0, 1, 2, 3].map((s) => instantiate(t, s))),
    evalOn: TASKS.flatMap((t) => [100, 101].map((s) => instantiate(t, s))),
    policies: [{ name: 'oracle-eps0.2', make: (inst) => noisyOracle(createRng(`bench/rewards/${inst.template.id}/${inst.seed}`), 0.2) }],
  });
  const model = await trainBenchSft(d, SFT_TEMPLATES());
  const sft = await runMatchingEpisodes({
    device: d, memory, makeOracle: () => new OraclePolicy(), distillOn: [],
    evalOn: SFT_TEMPLATES().flatMap((t) => [100, 101, 102].map((s) => instantiate(t, s))),
    policies: [{ name: 'sft', make: () => new BuiltinPolicy(model) }],
  });
  d.close();
  const sets = { 'oracle-eps0.2': noisy, sft };
  const rate = (eps: readonly EvaluatedEpisode[]) => eps.filter((e) => e.success).length / eps.length;
  results.episodes = Object.fromEntries(Object.entries(sets).map(([k, v]) => [k, { episodes: v.length, success: rate(v), steps: v.reduce((a, e) => a + e.descriptions.length, 0) }]));
  console.log(`episodes in ${((performance.now() - t0) / 1000).toFixed(0)} s: ${JSON.stringify(results.episodes)}`);

  // cost
  const hashed = hashedEmbedder();
  const tLoad = performance.now();
  const minilm = await TransformersEmbedder.load({ path: folder });
  results.loadMs = performance.now() - tLoad;
  const all = [...noisy, ...sft];
  const texts = [...new Set(episodeTexts(all, memory))];
  const alone = texts.slice(0, 200).map((t) => `${t} ·`); // unseen variants, one prepare each
  const single: number[] = [];
  for (const t of alone) {
    const s = performance.now();
    await minilm.prepare([t]);
    single.push(performance.now() - s);
  }
  const tBatch = performance.now();
  await minilm.prepare(texts);
  const batchMs = performance.now() - tBatch;
  results.costPerText = {
    minilmBatched: { texts: texts.length, batchSize: 32, msPerText: batchMs / texts.length },
    minilmAlone: stats(single),
    hashed: stats(texts.slice(0, 2000).map((t) => { const s = performance.now(); hashed.embed(`${t} ·`); return performance.now() - s; })),
  };
  console.log(`load ${(results.loadMs as number).toFixed(0)} ms; per text: MiniLM batched ${(batchMs / texts.length).toFixed(2)} ms (${texts.length} texts), alone ${ms(stats(single))}; hashed ${ms((results.costPerText as { hashed: Stats }).hashed)}`);
  await minilm.dispose();

  // per episode, first pass with an empty cache (the milestones of a template are embedded once, by its first episode)
  const fresh = await TransformersEmbedder.load({ path: folder });
  const perEpisode = { minilm: await episodeCost(all, memory, fresh), hashed: await episodeCost(all, memory, hashedEmbedder()) };
  results.costPerEpisode = { ...perEpisode, episodes: all.length, meanSteps: all.reduce((a, e) => a + e.descriptions.length, 0) / all.length };
  console.log(`per episode (${all.length}, first pass): MiniLM ${ms(perEpisode.minilm)}; hashed ${ms(perEpisode.hashed)}`);

  // effect
  const byEmbedder: Record<string, Record<string, ReturnType<typeof effect>>> = {};
  for (const [name, e] of [['minilm', fresh], ['hashed', hashedEmbedder()]] as const) {
    byEmbedder[name] = Object.fromEntries(Object.entries(sets).map(([k, v]) => [k, effect(v, memory, e)]));
  }
  results.aucDifference = Object.fromEntries(Object.entries(sets).map(([k, v]) => [k, [0.75, 0.8].map((delta) => aucDifference(v, memory, fresh, hashedEmbedder(), delta))]));
  await fresh.dispose();
  results.effect = byEmbedder;
  for (const [set] of Object.entries(sets)) {
    console.log(`${set}: δ | MiniLM acc / P / R, AUC, progress succ / fail | hashed acc / P / R, AUC, progress succ / fail`);
    DELTAS.forEach((delta, i) => {
      const f = (r: ReturnType<typeof effect>[number]) =>
        `${(100 * r.steps.accuracy).toFixed(1)} / ${(100 * r.steps.precision).toFixed(1)} / ${(100 * r.steps.recall).toFixed(1)}, ${r.auc?.toFixed(3)}, ${r.progressSuccess.toFixed(2)} / ${r.progressFailure.toFixed(2)}`;
      console.log(`  ${delta.toFixed(2)} | ${f(byEmbedder.minilm![set]![i]!)} | ${f(byEmbedder.hashed![set]![i]!)}`);
    });
  }
  for (const [set, rows] of Object.entries(results.aucDifference as Record<string, Array<ReturnType<typeof aucDifference>>>)) {
    for (const r of rows) console.log(`${set}: AUC MiniLM − hashed at δ ${r.delta}: ${r.difference?.toFixed(3)} (95% paired bootstrap ${r.ci95.map((x) => x.toFixed(3)).join(' … ')})`);
  }
  results.loadAverageAtEnd = loadavg();
  console.log(`load average at start ${(results.loadAverageAtStart as number[]).map((x) => x.toFixed(1)).join(' ')}, at end ${loadavg().map((x) => x.toFixed(1)).join(' ')} (2 cores)`);
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  return results;
}
