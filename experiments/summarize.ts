/**
 * Prints EXPERIMENTS.md's tables from the artefacts experiments/run.sh leaves in OUT: eval-*.json (awb eval --json),
 * adapt-*.json (awb adapt --json) and wall.txt. Success rates are mean ± sample std over the evaluation seeds, in points.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Group { episodes: number; successes: number; mean: number; std: number | null; perSeed: { seed: number; successRate: number }[] }
interface EvalJson { overall: Group; byDifficulty: Record<string, Group>; wallSeconds: number }

const out = process.argv[2] ?? 'experiments/out';
process.stdout.on('error', () => process.exit(0)); // piped into head: stop quietly
const pct = (g: Group | undefined) => (g ? `${(100 * g.mean).toFixed(1)} ± ${g.std === null ? 'n/a' : (100 * g.std).toFixed(1)}` : '—');
const read = (name: string): EvalJson | undefined => {
  const f = join(out, `eval-${name}.json`);
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as EvalJson) : undefined;
};

const regimes = ['unseen-instance', 'unseen-template', 'unseen-app'];
const trainSeeds = [0, 1, 2];
const meanStd = (xs: number[]) => {
  const m = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1)) : null;
  return `${(100 * m).toFixed(1)} ± ${sd === null ? 'n/a' : (100 * sd).toFixed(1)}`;
};
console.log('## 1. SFT vs SFT+GRPO (test part, greedy, evaluation seeds 30 / 7 / 1234)\n');
console.log('| Regime | SFT (± over eval seeds) | SFT+GRPO per training seed (± over eval seeds) | SFT+GRPO, mean ± std over training seeds | Δ (points) |');
console.log('|---|---|---|---|---|');
for (const r of regimes) {
  const a = read(`sft-${r}`)?.overall;
  const runs = trainSeeds.map((s) => read(`grpo-${r}-s${s}`)?.overall).filter((g): g is Group => g !== undefined);
  const per = runs.length ? runs.map(pct).join('; ') : '—';
  const mean = runs.length ? runs.reduce((x, g) => x + g.mean, 0) / runs.length : undefined;
  const d = a && mean !== undefined ? (100 * (mean - a.mean)).toFixed(1) : '—';
  console.log(`| ${r} | ${pct(a)} | ${per} | ${runs.length ? meanStd(runs.map((g) => g.mean)) : '—'} | ${d} |`);
}

console.log('\n### 1b. Budget: 60 vs 240 iterations (plain GRPO, training seed 0)\n');
console.log('| Regime | SFT | 60 iterations | 240 iterations |');
console.log('|---|---|---|---|');
for (const r of regimes) {
  console.log(`| ${r} | ${pct(read(`sft-${r}`)?.overall)} | ${pct(read(`grpo-${r}-s0`)?.overall)} | ${pct(read(`grpo-long-${r}-s0`)?.overall)} |`);
}

const sft = read('sft-unseen-instance')?.overall;
for (const [title, prefix, grpoRow] of [['60 iterations', 'ablation', 'grpo-unseen-instance-s0'], ['240 iterations', 'ablation-long', 'grpo-long-unseen-instance-s0']] as const) {
  console.log(`\n## 2. AdaGRPO ablation, ${title} (unseen-instance test part, training seed 0, same budget per row; SFT ${pct(sft)})\n`);
  console.log('| Row | SR (± over eval seeds) | Δ vs SFT | easy | medium | hard |');
  console.log('|---|---|---|---|---|---|');
  for (const row of ['adagrpo', 'no-shortest-path', 'no-replay', 'no-failure-curriculum', 'grpo']) {
    const e = read(row === 'grpo' ? grpoRow : `${prefix}-${row}`);
    const d = e && sft ? (100 * (e.overall.mean - sft.mean)).toFixed(1) : '—';
    console.log(`| ${row} | ${pct(e?.overall)} | ${d} | ${pct(e?.byDifficulty.easy)} | ${pct(e?.byDifficulty.medium)} | ${pct(e?.byDifficulty.hard)} |`);
  }
}

interface AdaptJson { app: string; before: { successRate: number; std: number | null } | null; after: { successRate: number; std: number | null } | null; delta: number | null; seconds: { before: number; adapt: number; after: number } }
const apps = ['com.dimowner.audiorecorder', 'com.flauschcode.broccoli', 'com.google.android.deskclock', 'org.tasks'];
const readAdapt = (method: string, app: string): AdaptJson | undefined => {
  const f = join(out, `adapt-${method}-${app}.json`);
  if (!existsSync(f)) return undefined;
  const text = readFileSync(f, 'utf8').trim();
  return text ? (JSON.parse(text) as AdaptJson) : undefined;
};
const rate = (r: { successRate: number; std: number | null } | null | undefined) => (r ? `${(100 * r.successRate).toFixed(1)} ± ${r.std === null ? 'n/a' : (100 * r.std).toFixed(1)}` : '—');
console.log('\n## 3. Per-app adaptation (8 shots, lowrank adapter, from grpo-unseen-app-s0; held-out test instances, seeds 30 / 7 / 1234)\n');
console.log('| App | before | after: grpo (paper) | Δ | after: sft+grpo | Δ |');
console.log('|---|---|---|---|---|---|');
const deltas: Record<string, number[]> = { grpo: [], 'sft-grpo': [] };
for (const app of apps) {
  const g = readAdapt('grpo', app);
  const sg = readAdapt('sft-grpo', app);
  const d = (r: AdaptJson | undefined, m: string) => {
    if (!r || r.delta === null) return '—';
    deltas[m]!.push(r.delta);
    return `${r.delta >= 0 ? '+' : ''}${(100 * r.delta).toFixed(1)}`;
  };
  console.log(`| ${g?.app ?? sg?.app ?? app} | ${rate(g?.before ?? sg?.before)} | ${rate(g?.after)} | ${d(g, 'grpo')} | ${rate(sg?.after)} | ${d(sg, 'sft-grpo')} |`);
}
const avg = (xs: number[]) => (xs.length ? `${(100 * xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1)}` : '—');
console.log(`| mean over apps | | | ${avg(deltas.grpo!)} | | ${avg(deltas['sft-grpo']!)} |`);

// 4. Reward components: each row is experiment 1's GRPO recipe with another reward (the outcome row is experiment 1's run).
const rewardRows = ['outcome', 'outcome-rtg', 'admire', 'progrm', 'outcome-progrm', 'prm', 'combination'];
const rewardRun = (row: string, r: string, s: number) => (row === 'outcome' ? `grpo-${r}-s${s}` : `reward-${row}-${r}-s${s}`);
/** Mean of a metric over a training log's iterations (awb train grpo --json lines), or undefined. */
const logMean = (name: string, metric: string): number | undefined => {
  const f = join(out, `${name}.log`);
  if (!existsSync(f)) return undefined;
  const xs = readFileSync(f, 'utf8').split('\n').flatMap((l) => {
    try {
      const v = (JSON.parse(l) as { metrics?: Record<string, number> }).metrics?.[metric];
      return v === undefined ? [] : [v];
    } catch {
      return [];
    }
  });
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined;
};
console.log('\n## 4. Reward components (test part, greedy, eval seeds 30 / 7 / 1234; mean ± std over training seeds 0 / 1 / 2)\n');
console.log('| Reward | unseen-instance | Δ vs outcome | unseen-template | Δ vs outcome | reward share of an iteration | s / iteration |');
console.log('|---|---|---|---|---|---|---|');
const baseline: Record<string, number | undefined> = {};
for (const row of rewardRows) {
  const cells: string[] = [];
  const shares: number[] = [];
  const iters: number[] = [];
  for (const r of ['unseen-instance', 'unseen-template']) {
    const runs = trainSeeds.map((s) => read(rewardRun(row, r, s))?.overall).filter((g): g is Group => g !== undefined);
    const mean = runs.length ? runs.reduce((x, g) => x + g.mean, 0) / runs.length : undefined;
    if (row === 'outcome') baseline[r] = mean;
    const b = baseline[r];
    cells.push(runs.length ? `${meanStd(runs.map((g) => g.mean))} (${runs.length} seeds)` : '—');
    cells.push(mean !== undefined && b !== undefined && row !== 'outcome' ? `${mean >= b ? '+' : ''}${(100 * (mean - b)).toFixed(1)}` : '—');
    for (const s of trainSeeds) {
      const share = logMean(rewardRun(row, r, s), 'perf/reward_share');
      const it = logMean(rewardRun(row, r, s), 'perf/iteration_s');
      if (share !== undefined) shares.push(share);
      if (it !== undefined) iters.push(it);
    }
  }
  const m = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log(`| ${row} | ${cells.join(' | ')} | ${shares.length ? `${(100 * m(shares)).toFixed(1)}%` : '—'} | ${iters.length ? m(iters).toFixed(2) : '—'} |`);
}

console.log('\n## Wall times\n');
if (existsSync(join(out, 'wall.txt'))) for (const l of readFileSync(join(out, 'wall.txt'), 'utf8').trim().split('\n')) console.log(`- ${l}`);
