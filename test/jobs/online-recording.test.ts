import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OnlineGrpoConfigError } from '../../core/remote-jobs/online-errors.js';
import { runOnlineGrpo } from '../../core/remote-jobs/online.js';
import { RemoteJobs } from '../../core/remote-jobs/remote.js';
import { openStore } from '../../core/store/db.js';
import { listRuns } from '../../core/store/runs.js';
import { TASKS } from '../../core/tasks/registry.js';
import { instantiate } from '../../core/tasks/instance.js';

/**
 * The online loop's `recording` (offline GRPO's retention and screenshots, core/rl/config.ts) is checked with the
 * other options: a bad one is refused by field and value before the trainer is asked or a run is created. (What the
 * loop records is tested against the real trainer in test/api/online-grpo.test.ts.)
 */
describe('online GRPO recording options', () => {
  const dir = mkdtempSync(join(tmpdir(), 'awb-online-recording-'));
  const db = openStore(':memory:');
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a bad recording is refused by field, naming the bad value, and leaves no run', async () => {
    const jobs = new RemoteJobs({ db, dataDir: dir });
    const options = {
      trainer: 'nowhere', iterations: 1, instances: [instantiate(TASKS[0]!, 0)], source: 'test',
      groupSize: 2, temperature: 1, maxSteps: 2, seed: 0, policy: { kind: 'builtin' as const, recordEpisodes: true },
    };
    for (const recording of [{ keepEvery: 0 }, { screenshots: 'all' }] as const) {
      const err = await runOnlineGrpo({ ...options, recording: recording as never }, { jobs, dataDir: dir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OnlineGrpoConfigError);
      expect(err).toMatchObject({ field: 'recording', value: recording });
      expect((err as Error).message).toMatch(Object.keys(recording)[0]!);
    }
    expect(listRuns(db)).toEqual([]);
  });
});
