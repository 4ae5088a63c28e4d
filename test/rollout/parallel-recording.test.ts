import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { runPool, PoolError, type RolloutJob } from '../../core/rollout/threads/run-pool.js';
import { runEpisode } from '../../core/episode/runner.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { SubgoalTracker } from '../../core/rewards/episode.js';
import { SubgoalStoreRecorder } from '../../core/cli/subgoal-recorder.js';
import { createRun, getSubgoalProgress, loadTrajectory, openStore, StoreRecorder, type SubgoalProgress } from '../../core/store/index.js';
import { episodeIds } from '../../core/store/queries.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { tempDir } from '../store/helpers.js';

const CRASHING = new URL('./parallel-crash-worker.mjs', import.meta.url);
const tmp = tempDir('awb-parallel-recording-');
afterAll(() => tmp.cleanup());

const job = (templateId: string, seed: number, suffix = '', extra: Partial<RolloutJob> = {}): RolloutJob => ({
  key: `${templateId}#${seed}${suffix}`, templateId, seed, policy: { name: 'oracle' }, ...extra,
});

/** The same episode run in this process, with its subgoal progress. */
async function inProcess(templateId: string, seed: number): Promise<SubgoalProgress> {
  const device = new SimDroid({ serial: 'simdroid-ref', seed: 0 });
  try {
    const instance = instantiate(getTemplate(templateId), seed);
    const tracker = new SubgoalTracker(device, instance);
    await runEpisode({ device, instance, policy: new OraclePolicy(), onStepDone: tracker.onStepDone });
    return tracker.progress();
  } finally {
    device.close();
  }
}

describe('parallel rollouts and the recording of each episode', () => {
  it('ends the recording of an episode whose worker died as an environment error, keeping what reached the store', async () => {
    const db = openStore(join(tmp.dir, 'crash.db'));
    try {
      const runId = createRun(db, { kind: 'suite', name: 'crash', config: {} }).id;
      const jobs = [job('ContactsAddContact', 2, '/crash-exit'), job('SystemWifiTurnOff', 1, '/crash-throw'), job('SystemWifiTurnOn', 1)];
      const summary = await runPool({ devices: 1, jobs, entry: CRASHING, recorder: () => new StoreRecorder(db, runId) });

      const exited = summary.outcomes.get(jobs[0]!.key)!;
      expect(exited).toMatchObject({ ok: false, error: { name: 'WorkerCrash' } });
      expect(!exited.ok && exited.error.message).toContain('exited with code 7');
      expect(summary.outcomes.get(jobs[1]!.key)).toMatchObject({ ok: false, error: { name: 'WorkerCrash', message: expect.stringContaining('boom in the worker') } });
      expect(summary.outcomes.get(jobs[2]!.key)).toMatchObject({ ok: true, result: { success: true } });

      // The thrown job never began, so it left no episode; the one that exited is ended, not left 'running'.
      const episodes = episodeIds(db, { runId }).map((id) => loadTrajectory(db, id));
      expect(episodes.map((t) => t.instance.templateId)).toEqual(['ContactsAddContact', 'SystemWifiTurnOn']);
      const crashed = episodes[0]!;
      expect(crashed.episode).toMatchObject({ status: 'error', success: false, terminatedBy: 'environment_error', error: { name: 'WorkerCrash' } });
      expect(crashed.episode.error!.message).toMatch(/worker simdroid-0 died mid-episode: exited with code 7/);
      expect(crashed.episode.finishedAt).not.toBeNull();
      expect(crashed.steps.map((s) => s.index)).toEqual([0, 1]);
      expect(episodes[1]!.episode.status).toBe('success');
    } finally {
      db.close();
    }
  });

  it('ends the recording of a job that failed after its episode began, with the job\'s error', async () => {
    const db = openStore(join(tmp.dir, 'failed.db'));
    try {
      const runId = createRun(db, { kind: 'suite', name: 'failed', config: {} }).id;
      const failing = job('SystemWifiTurnOn', 1, '/fail-after-begin');
      const summary = await runPool({ devices: 1, jobs: [failing], entry: CRASHING, recorder: () => new StoreRecorder(db, runId) });
      expect(summary.outcomes.get(failing.key)).toMatchObject({ ok: false, error: { name: 'Error', message: 'bug after begin' } });
      const [id, ...more] = episodeIds(db, { runId });
      expect(more).toEqual([]);
      expect(loadTrajectory(db, id!).episode).toMatchObject({ status: 'error', terminatedBy: 'environment_error', error: { message: 'bug after begin' } });
    } finally {
      db.close();
    }
  });

  it('hands each episode\'s ground-truth subgoal progress to its recorder, identical to the in-process capture', async () => {
    const db = openStore(join(tmp.dir, 'subgoals.db'));
    try {
      const runId = createRun(db, { kind: 'suite', name: 'subgoals', config: {} }).id;
      const jobs = [job('ContactsAddContact', 2, '', { subgoals: true }), job('MarkorCreateNote', 3, '', { subgoals: true }), job('ClockAddAlarm', 4, '', { subgoals: true })];
      const recorders = new Map<string, SubgoalStoreRecorder>();
      await runPool({
        devices: 2, jobs, screenshots: 'none',
        recorder: (j) => {
          const r = new SubgoalStoreRecorder(db, runId, { kind: 'worker', instance: instantiate(getTemplate(j.templateId), j.seed) });
          recorders.set(j.key, r);
          return r;
        },
      });
      for (const j of jobs) {
        const stored = getSubgoalProgress(db, recorders.get(j.key)!.episodeId!);
        const expected = await inProcess(j.templateId, j.seed);
        expect(expected.done.at(-1), j.key).toBe(expected.names.length);
        expect(stored, j.key).toEqual(expected);
      }
    } finally {
      db.close();
    }
  });

  it('a worker that dies mid-episode leaves the progress of the steps that reached the store with the ended episode', async () => {
    const db = openStore(join(tmp.dir, 'crash-subgoals.db'));
    try {
      const runId = createRun(db, { kind: 'suite', name: 'crash subgoals', config: {} }).id;
      const crash = job('ContactsAddContact', 2, '/crash-exit', { subgoals: true });
      let recorder: SubgoalStoreRecorder | undefined;
      await runPool({
        devices: 1, jobs: [crash], entry: CRASHING,
        recorder: (j) => (recorder = new SubgoalStoreRecorder(db, runId, { kind: 'worker', instance: instantiate(getTemplate(j.templateId), j.seed) })),
      });
      const id = recorder!.episodeId!;
      expect(loadTrajectory(db, id).episode.status).toBe('error');
      const full = await inProcess('ContactsAddContact', 2);
      expect(getSubgoalProgress(db, id)).toEqual({ names: full.names, done: full.done.slice(0, 2) });
    } finally {
      db.close();
    }
  });

  it('refuses subgoal jobs without a recorder (the progress travels with the records)', async () => {
    await expect(runPool({ devices: 1, jobs: [job('SystemWifiTurnOn', 1, '', { subgoals: true })] })).rejects.toThrow(PoolError);
  });
});
