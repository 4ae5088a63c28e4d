import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStoreReadonly } from '../../core/store/index.js';
import { exitWithin, spawnAwb } from '../helpers/awb-process.js';
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/scratch.js';

/**
 * Issue 32: `suite run --resume` had no lock. A resume of a run that was still being recorded, or two resumes at once,
 * ran the same instances twice (180 episodes for 100 instances). Now the resume claims the run in one transaction and
 * refuses a run a live process records.
 */
const tmp = scratch('awb-resume-lock-');
afterAll(() => tmp.cleanup());
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const LIMIT = 300;
const SUITE = ['suite', 'run', '--split', 'all', '--part', 'test', '--limit', String(LIMIT), '--screenshots', 'none', '--json'];

function counts(db: string): { finished: number; perInstance: number; runs: string[] } {
  const ro = openStoreReadonly(db);
  try {
    const finished = ro.prepare("SELECT count(*) FROM episodes WHERE status IN ('success', 'failure', 'error')").pluck().get() as number;
    // The most finished episodes any one instance has: 1 unless an instance ran twice.
    const perInstance = (ro.prepare(`SELECT max(n) FROM (SELECT count(*) AS n FROM episodes WHERE status IN ('success', 'failure') GROUP BY instance_id)`).pluck().get() as number | null) ?? 0;
    return { finished, perInstance, runs: ro.prepare('SELECT status FROM runs ORDER BY id').pluck().all() as string[] };
  } finally {
    ro.close();
  }
}

async function untilFinished(db: string, n: number): Promise<void> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(30)) {
    try {
      if (counts(db).finished >= n) return;
    } catch {
      // the writer is still creating the store
    }
  }
  throw new Error(`no ${n} finished episodes in ${db}`);
}

describe('suite run --resume holds the run', () => {
  it('refuses to resume a run another process is recording, naming that process; the run records each instance once', async () => {
    const db = join(tmp.dir(), 't.db');
    const first = spawnAwb([...SUITE, '--db', db]);
    await untilFinished(db, 3);
    const r = await runCli('suite', 'run', '--resume', '1', '--db', db);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^awb: Run 1 is being recorded by process ${first.child.pid} \\(.*bin/awb\\.js suite run.*\\) on .*; resuming it now would record its episodes twice`));
    expect(r.err.split('\n')).toHaveLength(1);
    expect(await exitWithin(first, 60_000)).toBe(0);
    expect(counts(db)).toEqual({ finished: LIMIT, perInstance: 1, runs: ['finished'] });
  });

  it('of two resumes at once of a killed run, one continues it and the other is refused: every instance once', async () => {
    const db = join(tmp.dir(), 't.db');
    const first = spawnAwb([...SUITE, '--db', db]);
    await untilFinished(db, 5);
    first.child.kill('SIGKILL');
    await first.exited;
    const a = spawnAwb(['suite', 'run', '--resume', '1', '--db', db, '--json']);
    const b = spawnAwb(['suite', 'run', '--resume', '1', '--db', db, '--json']);
    const codes = [await exitWithin(a, 60_000), await exitWithin(b, 60_000)].sort();
    expect(codes, `${a.err()}\n${b.err()}`).toEqual([0, 2]);
    const refused = codes[1] === (await a.exited) ? a : b;
    expect(refused.err()).toMatch(/^awb: Run 1 is being recorded by process \d+ /);
    expect(counts(db)).toEqual({ finished: LIMIT, perInstance: 1, runs: ['finished'] });
  });
});
