/**
 * Store growth of recorded GRPO rollouts (issue 21): a few iterations of the default shape (2 instances × G=8 ×
 * ≤ 20 steps) from a fresh policy (every rollout fails and runs its full 20 steps: the largest case), recorded
 * into a file store with each `recording` setting; bytes per iteration, extrapolated to 240 iterations (for a
 * keepEvery setting, the last iteration is kept whole and the others thinned, so its line over-states the mean).
 * Screens repeat across rollouts and are stored once (content-addressed), so growth is at most linear.
 *   npm run bench -- rollout-store
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseTrainConfig, type TrainConfigInput } from '../core/rl/config.js';
import { trainGrpo } from '../core/rl/train-grpo.js';
import { openStore } from '../core/store/db.js';

const ITERATIONS = 4;
const TARGET = 240;

const SETTINGS: Array<[string, TrainConfigInput['recording']]> = [
  ['none (metrics only)', undefined],
  ['all, screenshots none', { keepEvery: 1, screenshots: 'none' }],
  ['all, screenshots half', { keepEvery: 1, screenshots: 'half' }],
  ['all, screenshots full', { keepEvery: 1, screenshots: 'full' }],
  ['keepEvery 10 + successes, half', { keepEvery: 10, keepSuccesses: true, screenshots: 'half' }],
];

export async function benchRolloutStore(): Promise<Record<string, unknown>> {
  const results: Record<string, unknown> = {};
  for (const [name, recording] of SETTINGS) {
    const dir = mkdtempSync(join(tmpdir(), 'awb-rollout-store-'));
    try {
      const db = openStore(join(dir, 'store.db'));
      const empty = db.pragma('page_count', { simple: true }) as number;
      const config = parseTrainConfig({ iterations: ITERATIONS, devices: 1, rolloutWorkers: 0, checkpointEvery: ITERATIONS, ...(recording ? { recording } : {}) });
      const t0 = performance.now();
      await trainGrpo({ config, outDir: join(dir, 'ckpt'), db, recordEpisodes: recording !== undefined });
      const seconds = (performance.now() - t0) / 1000;
      const pageSize = db.pragma('page_size', { simple: true }) as number;
      db.pragma('wal_checkpoint(TRUNCATE)');
      // Pages freed by pruning stay in the file for reuse: count the pages in use.
      const used = (db.pragma('page_count', { simple: true }) as number) - (db.pragma('freelist_count', { simple: true }) as number);
      const bytes = (used - empty) * pageSize;
      const episodes = db.prepare('SELECT count(*) FROM episodes').pluck().get() as number;
      db.close();
      const perIteration = bytes / ITERATIONS;
      results[name] = {
        bytesPerIteration: Math.round(perIteration), mbAt240: Number(((perIteration * TARGET) / 1e6).toFixed(1)),
        episodes, secondsPerIteration: Number((seconds / ITERATIONS).toFixed(2)), file: statSync(join(dir, 'store.db')).size,
      };
      console.log(name, results[name]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return results;
}
