import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStoreReadonly } from '../../core/store/index.js';
import { exitWithin, spawnAwb } from '../helpers/awb-process.js';
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/scratch.js';

/**
 * Issue 32: SIGINT and SIGTERM stop every recording command the same way (after the iteration for training, at once
 * for episodes), mark what they stopped 'interrupted' and say how to go on; nothing is left 'running'. Each test
 * signals a real `node bin/awb.js` process.
 */
const tmp = scratch('awb-signals-');
afterAll(() => tmp.cleanup());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function statuses(db: string): { runs: string[]; episodes: Record<string, number> } {
  const ro = openStoreReadonly(db);
  try {
    const runs = ro.prepare('SELECT status FROM runs ORDER BY id').pluck().all() as string[];
    const episodes = Object.fromEntries((ro.prepare('SELECT status, count(*) AS n FROM episodes GROUP BY status').all() as Array<{ status: string; n: number }>).map((r) => [r.status, r.n]));
    return { runs, episodes };
  } finally {
    ro.close();
  }
}

/** Waits until the store at `db` has `n` finished episodes (the writer is another process). */
async function finishedEpisodes(db: string, n: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const e = statuses(db).episodes;
      if ((e.success ?? 0) + (e.failure ?? 0) + (e.error ?? 0) >= n) return;
    } catch {
      // not created or migrated yet
    }
    await sleep(50);
  }
  throw new Error(`fewer than ${n} finished episodes in ${db} after ${timeoutMs} ms`);
}

describe('stop signals', () => {
  // Before: with rolloutWorkers 0 ('auto' on one core) SIGINT was caught but never handled: the loop awaited only
  // settled promises, the run trained on and stayed 'running'.
  it.each(['SIGINT', 'SIGTERM'] as const)('%s stops in-process GRPO after the iteration: a checkpoint, the run interrupted, the resume printed', async (signal) => {
    const dir = tmp.dir();
    const db = join(dir, 't.db');
    const config = join(dir, 'grpo.json');
    writeFileSync(config, JSON.stringify({ iterations: 100_000, devices: 1, rolloutWorkers: 0, instancesPerIteration: 1, rolloutsPerInstance: 2, maxSteps: 4 }));
    const p = spawnAwb(['train', 'grpo', '--config', config, '--out', join(dir, 'ckpt'), '--db', db]);
    await p.waitForOut(/^iter 3\//m);
    p.child.kill(signal);
    expect(await exitWithin(p, 15_000)).toBe(signal === 'SIGINT' ? 130 : 143);
    expect(p.err()).toMatch(new RegExp(`^awb: ${signal}: stopping after this iteration`, 'm'));
    expect(p.out()).toMatch(/^Stopped after \d+ iterations; .*resume with --resume /m);
    expect(existsSync(join(dir, 'ckpt', 'trainer.json'))).toBe(true);
    expect(statuses(db).runs).toEqual(['interrupted']);
  });

  it('a second signal stops GRPO at once, the run still marked interrupted', async () => {
    const dir = tmp.dir();
    const db = join(dir, 't.db');
    const config = join(dir, 'grpo.json');
    // Long iterations, so the second signal comes while the first waits for the iteration's end.
    writeFileSync(config, JSON.stringify({ iterations: 1000, devices: 1, rolloutWorkers: 0, instancesPerIteration: 8, rolloutsPerInstance: 8, maxSteps: 20 }));
    const p = spawnAwb(['train', 'grpo', '--config', config, '--out', join(dir, 'ckpt'), '--db', db]);
    await p.waitForOut(/^iter 1\//m, 60_000);
    p.child.kill('SIGINT');
    await sleep(100);
    p.child.kill('SIGINT');
    expect(await exitWithin(p, 15_000)).toBe(130);
    expect(p.err()).toMatch(/^awb: SIGINT again: stopped at once; run 1 interrupted; continue with: awb train grpo --resume /m);
    expect(statuses(db).runs).toEqual(['interrupted']);
  });

  // Before: SIGTERM ended the process with the run and the episode in flight 'running'.
  it('SIGTERM stops a suite run like SIGINT: the episode in flight and the run interrupted, how to resume printed; the resume completes it', async () => {
    const dir = tmp.dir();
    const db = join(dir, 't.db');
    const p = spawnAwb(['suite', 'run', '--split', 'all', '--part', 'test', '--limit', '300', '--screenshots', 'none', '--db', db, '--json']);
    await finishedEpisodes(db, 3);
    p.child.kill('SIGTERM');
    expect(await exitWithin(p, 15_000), p.err()).toBe(143);
    expect(p.err()).toMatch(new RegExp(`^awb: SIGTERM: interrupted.*; continue with: awb suite run --resume 1 --db ${db.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`, 'm'));
    const after = statuses(db);
    expect(after.runs).toEqual(['interrupted']);
    expect(after.episodes.running ?? 0).toBe(0);
    const r = await runCli('suite', 'run', '--resume', '1', '--db', db, '--json');
    expect(r.code, r.err).toBe(0);
    expect(statuses(db).episodes.success).toBe(300);
  });

  // Before: the run and its episode stayed 'running' after Ctrl-C.
  it.each(['SIGINT', 'SIGTERM'] as const)('%s during `awb run` marks its episode and its run interrupted', async (signal) => {
    const db = join(tmp.dir(), 't.db');
    // The human policy waits for a line on stdin: the episode is mid-way, deterministically.
    const p = spawnAwb(['run', '--task', 'ContactsAddContact', '--seed', '3', '--policy', 'human', '--db', db]);
    await p.waitForOut(/^action JSON/m);
    p.child.kill(signal);
    expect(await exitWithin(p, 10_000)).toBe(signal === 'SIGINT' ? 130 : 143);
    expect(p.err().trim()).toMatch(new RegExp(`^awb: ${signal}: interrupted; episode 1 is kept as interrupted$`));
    expect(statuses(db)).toEqual({ runs: ['interrupted'], episodes: { interrupted: 1 } });
  });
});
