import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../core/cli/main.js';
import { listEpisodes, listRuns, openStoreReadonly, type RunId } from '../../core/store/index.js';

/**
 * The reliability requirement: `kill -9` in the middle of a suite run loses no completed
 * step, the database opens cleanly, and the run resumes, skipping finished episodes.
 */
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function finishedEpisodes(db: string): number {
  try {
    const ro = openStoreReadonly(db);
    try {
      return (ro.prepare("SELECT count(*) FROM episodes WHERE status IN ('success', 'failure', 'error')").pluck().get() as number) ?? 0;
    } finally {
      ro.close();
    }
  } catch {
    return 0; // not created yet
  }
}

describe('suite runs survive kill -9', () => {
  it('keeps every completed step and resumes where it stopped', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'awb-crash-'));
    const db = join(dir, 'trajectories.db');
    const child = spawn(process.execPath, ['bin/awb.js', 'suite', 'run', '--split', 'all', '--part', 'test', '--policy', 'oracle', '--limit', '40', '--screenshots', 'half', '--db', db, '--json'], {
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal === 'SIGKILL' ? -9 : _code)));
    for (let i = 0; i < 600 && finishedEpisodes(db) < 8; i++) await sleep(50);
    child.kill('SIGKILL');
    expect(await exited).toBe(-9);

    const ro = openStoreReadonly(db);
    expect(ro.pragma('integrity_check', { simple: true })).toBe('ok');
    const [run] = listRuns(ro);
    const before = listEpisodes(ro, { runId: run!.id, limit: 1000 });
    const finishedBefore = before.counts.success + before.counts.failure + before.counts.error;
    expect(finishedBefore).toBeGreaterThanOrEqual(8);
    expect(finishedBefore).toBeLessThan(40);
    // Every recorded step has its observation: no step row without its tree.
    expect(ro.prepare('SELECT count(*) FROM steps WHERE tree IS NULL OR screenshot IS NULL').pluck().get()).toBe(0);
    const stepsBefore = ro.prepare('SELECT count(*) FROM steps').pluck().get() as number;
    ro.close();

    const out: string[] = [];
    const code = await main(['suite', 'run', '--resume', String(run!.id), '--db', db, '--json'], { out: (l) => out.push(l), err: () => {} });
    expect(code).toBe(0);
    const summary = JSON.parse(out.at(-1)!);
    expect(summary).toMatchObject({ skipped: finishedBefore, episodes: 40 - finishedBefore, successes: 40 - finishedBefore });

    const after = openStoreReadonly(db);
    const page = listEpisodes(after, { runId: run!.id as RunId, limit: 1000 });
    expect(page.counts.success).toBe(40);
    expect(page.counts.interrupted).toBeLessThanOrEqual(1);
    expect(after.prepare('SELECT count(*) FROM steps').pluck().get() as number).toBeGreaterThan(stepsBefore);
    expect(listRuns(after)[0]!.status).toBe('finished');
    after.close();
    rmSync(dir, { recursive: true, force: true });
  });
});
