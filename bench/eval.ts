/**
 * `awb eval` / `awb train sft` end to end (issue 6): SFT on the unseen-instance train part (2 of its
 * 16 seeds, every template), then the benchmark harness on the unseen-instance test part (seeds 30,
 * 7, 1234) for the random agent, the untrained checkpoint and the SFT checkpoint; wall time of the
 * harness in-process and with --parallel 2.
 *   npm run bench -- eval
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, type Io } from '../core/cli/main.js';
import { trainSftCommand } from '../core/cli/train-sft.js';
import { createModel } from '../core/policy/builtin.js';
import { saveCheckpoint } from '../core/policy/checkpoint.js';
import { createRng } from '../core/util/rng.js';

const collect = (): { io: Io; lines: string[] } => {
  const lines: string[] = [];
  return { lines, io: { out: (l) => lines.push(l), err: (l) => console.error(l) } };
};

export async function benchEval(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-eval-'));
  const untrained = join(dir, 'untrained.json');
  saveCheckpoint(untrained, createModel(createRng('sft-init/0')));

  const cfg = join(dir, 'sft.json');
  writeFileSync(cfg, JSON.stringify({ split: 'unseen-instance', part: 'train', seeds: [1, 2], sft: { epochs: 10, batchSize: 16 } }));
  const t0 = performance.now();
  const train = collect();
  await trainSftCommand(['--config', cfg, '--out', join(dir, 'sft'), '--json'], train.io);
  const summary = JSON.parse(train.lines.at(-1)!);
  results.sft = { ...summary, wallSeconds: (performance.now() - t0) / 1000 };
  console.log(`train sft: ${summary.steps} steps from ${summary.episodes} episodes (${summary.templates} templates), 10 epochs in ${((performance.now() - t0) / 1000).toFixed(1)} s; final ${JSON.stringify(summary.final)}`);

  const run = async (policy: string, parallel: number) => {
    const c = collect();
    const t = performance.now();
    await main(['eval', '--policy', policy, '--split', 'unseen-instance', '--part', 'test', '--seeds', '30,7,1234', '--parallel', String(parallel), '--db', join(dir, 'eval.db'), '--json'], c.io);
    const r = JSON.parse(c.lines.at(-1)!);
    return { policy, parallel, episodes: r.overall.episodes, mean: r.overall.mean, std: r.overall.std, perSeed: r.overall.perSeed.map((s: { successRate: number }) => s.successRate), byDifficulty: Object.fromEntries(Object.entries(r.byDifficulty).map(([k, g]) => [k, (g as { mean: number }).mean])), wallSeconds: (performance.now() - t) / 1000 };
  };
  const evals = [];
  for (const [policy, parallel] of [['random', 1], [untrained, 1], [summary.checkpoint, 1], [summary.checkpoint, 2]] as const) {
    const r = await run(policy, parallel);
    evals.push(r);
    console.log(`eval ${policy === summary.checkpoint ? 'sft' : policy === untrained ? 'untrained' : policy} --parallel ${parallel}: ${r.episodes} episodes, SR ${(r.mean * 100).toFixed(1)}% ± ${r.std === null ? 'n/a' : (r.std * 100).toFixed(1)} (per seed ${r.perSeed.map((x: number) => x.toFixed(3)).join(', ')}; by difficulty ${JSON.stringify(r.byDifficulty)}) in ${r.wallSeconds.toFixed(1)} s`);
  }
  results.evals = evals;
  return results;
}
