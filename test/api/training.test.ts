import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import { channelPair, connectApi } from '../../core/api/bridge.js';
import { serveApi } from '../../core/api/serve-api.js';
import type { JobInfo, JobState, TrainingEvent } from '../../core/api/types.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { trainConfigFields } from '../../core/rl/config.js';
import { asRunId } from '../../core/store/ids.js';

/**
 * Training through the real bridge (in-memory channel, the same serveApi / connectApi as both
 * transports): tiny GRPO jobs in worker threads against a temporary data folder.
 */
const TINY = { iterations: 50, instancesPerIteration: 1, rolloutsPerInstance: 2, maxSteps: 3, devices: 1, checkpointEvery: 10 };

describe('training jobs through the bridge', () => {
  let dir: string;
  let workbench: Workbench;
  let api: WorkbenchApi;
  const events: TrainingEvent[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awb-training-api-'));
    workbench = await createWorkbench({ dataDir: dir, adb: false, embeddedDevice: false });
    const [client, server] = channelPair();
    serveApi(workbench, server);
    api = connectApi<WorkbenchApi>(client);
    api.onTraining({}, (e) => events.push(e));
  });

  afterAll(async () => {
    await workbench.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function until<T>(what: string, get: () => T | undefined | Promise<T | undefined>, ms = 30_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await get();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  /** The job as of its first event in `state` at or after event number `from`. */
  const stateOf = (jobId: string, state: JobState, from = 0) =>
    until(`${jobId} ${state}`, () => events.slice(from).find((e) => e.job.id === jobId && e.job.state === state)?.job);
  const iterationsOf = (jobId: string) => events.filter((e) => e.kind === 'iteration' && e.job.id === jobId) as Array<Extract<TrainingEvent, { kind: 'iteration' }>>;

  it('describes the GRPO config as the schema does, with the MobileRL ablation presets and the charts', async () => {
    const d = await api.describeTrainConfig({ kind: 'grpo' });
    const schema = trainConfigFields();
    expect(d.fields.map((f) => [f.path, f.default, f.description])).toEqual(schema.map((f) => [f.path, f.default, f.description]));
    const byPath = Object.fromEntries(d.fields.map((f) => [f.path, f]));
    expect(byPath['advantage.mode']).toMatchObject({ kind: 'choice', options: ['trajectory', 'step'] });
    expect(byPath['rolloutsPerInstance']).toMatchObject({ kind: 'integer', min: 2 });
    expect(byPath['init']).toMatchObject({ kind: 'text', nullable: true, default: null });
    expect(byPath['adagrpo.shortestPath.enabled']).toMatchObject({ kind: 'boolean', default: false });
    expect(byPath['curriculum.stageAt']).toMatchObject({ kind: 'json' });
    // Rollouts on a Ray cluster (docs/ray.md): an address (none = this machine) and the SimDroids there.
    expect(byPath['ray.address']).toMatchObject({ kind: 'text', nullable: true, default: null, description: expect.stringMatching(/^Run rollouts on a Ray cluster: HOST:PORT/) });
    expect(byPath['ray.envs']).toMatchObject({ kind: 'integer', min: 1, max: 64, default: 4 });
    expect(byPath['ray.envsPerActor']).toMatchObject({ kind: 'integer', min: 1, max: 64, default: 1 });
    expect(d.presets.map((p) => p.name)).toEqual(['smoke', 'adagrpo', 'no-shortest-path', 'no-replay', 'no-failure-curriculum', 'grpo']);
    expect(d.presets.find((p) => p.name === 'no-replay')!.config).toEqual({
      adagrpo: { shortestPath: { enabled: true }, positiveReplay: { enabled: false }, failureCurriculum: { enabled: true } },
    });
    expect(d.charts.map((c) => c.metric)).toEqual(expect.arrayContaining(['success/rate', 'reward/mean', 'loss/policy', 'loss/kl', 'policy/entropy', 'policy/clip_frac', 'perf/steps_per_s']));
    const sft = await api.describeTrainConfig({ kind: 'sft' });
    expect(sft.fields.find((f) => f.path === 'sft.epochs')).toMatchObject({ kind: 'integer', default: 30 });
    expect(sft.fields.find((f) => f.path === 'templates')).toMatchObject({ kind: 'json', optional: true });
  });

  it('refuses an invalid config with every problem listed, and starts nothing', async () => {
    const bad = api.startTraining({ kind: 'grpo', config: { iterations: 0, loss: { clipEps: 2 }, bogus: 1 } });
    await expect(bad).rejects.toMatchObject({ name: 'TrainingConfigError' });
    const e = (await bad.catch((x: unknown) => x)) as { issues: Array<{ path: string }>; message: string };
    expect(e.issues.map((i) => i.path).sort()).toEqual(['(config)', 'iterations', 'loss.clipEps']);
    expect(e.message).toMatch(/bogus/);
    await expect(api.startTraining({ kind: 'grpo', config: { loss: { clipEpsHigh: 0.1 } } })).rejects.toMatchObject({
      name: 'TrainingConfigError', issues: [{ path: 'loss.clipEpsHigh', message: expect.stringMatching(/≥ loss.clipEps/) }],
    });
    await expect(api.startTraining({ kind: 'grpo', config: { init: join(dir, 'nope.json') } })).rejects.toMatchObject({ name: 'TrainingConfigError', message: expect.stringMatching(/nope\.json/) });
    const sft = api.startTraining({ kind: 'sft', config: { seeds: [], sft: { epochs: 0 } } });
    await expect(sft).rejects.toMatchObject({ name: 'TrainingConfigError' });
    expect(((await sft.catch((x: unknown) => x)) as { issues: Array<{ path: string }> }).issues.map((i) => i.path).sort()).toEqual(['seeds', 'sft.epochs']);
    await expect(api.startTraining({ kind: 'ppo' as 'grpo', config: {} })).rejects.toMatchObject({ name: 'ApiInputError' });
    await expect(api.resumeTraining({ checkpoint: '../etc' })).rejects.toMatchObject({ name: 'TrainingConfigError' });
    expect(await api.listTrainingJobs()).toEqual([]);
    expect(events).toEqual([]);
  });

  let first: JobInfo;

  it('streams per-iteration metrics, pauses between iterations, refuses a second job, and stops with a checkpoint', async () => {
    first = await api.startTraining({ kind: 'grpo', config: TINY });
    expect(first).toMatchObject({ id: 'job-1', kind: 'grpo', state: 'starting', config: expect.objectContaining({ rolloutsPerInstance: 2 }) });
    await expect(api.startTraining({ kind: 'grpo', config: TINY })).rejects.toMatchObject({ name: 'TrainingBusyError', message: expect.stringMatching(/job-1/) });

    await until('iteration 1', () => iterationsOf(first.id)[0]);
    expect((await api.pauseTraining({ jobId: first.id })).state).toBe('pausing');
    const paused = await stateOf(first.id, 'paused');
    const at = paused.iteration;
    expect(at).toBeGreaterThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 400));
    expect(iterationsOf(first.id).length).toBe(at); // nothing ran while paused
    expect((await api.listTrainingJobs())[0]!.state).toBe('paused');
    await expect(api.resumeTraining({ jobId: first.id, iterations: 99 })).rejects.toMatchObject({ name: 'TrainingStateError', message: expect.stringMatching(/stop it/) });

    expect((await api.resumeTraining({ jobId: first.id })).state).toBe('running');
    await until('the next iteration', () => iterationsOf(first.id)[at]);
    await api.stopTraining({ jobId: first.id });
    const stopped = await stateOf(first.id, 'stopped');
    expect(stopped.iteration).toBeLessThan(TINY.iterations);
    expect(stopped.checkpoint).toMatchObject({ iteration: stopped.iteration });
    expect(stopped.runId).not.toBeNull();

    const its = iterationsOf(first.id);
    expect(its.map((e) => e.iteration)).toEqual(Array.from({ length: stopped.iteration }, (_, i) => i + 1));
    for (const e of its) {
      for (const m of ['success/rate', 'reward/mean', 'adv/mean', 'adv/std', 'loss/policy', 'loss/kl', 'policy/clip_frac', 'perf/steps_per_s']) {
        expect(Number.isFinite(e.metrics[m]), m).toBe(true);
      }
      // Entropy over the steps trained: 'n/a' (absent), not 0, when every group was flat and nothing was trained.
      if (e.metrics['batch/steps'] === 0) expect(e.metrics['policy/entropy']).toBeUndefined();
      else expect(Number.isFinite(e.metrics['policy/entropy'])).toBe(true);
      expect(e.job.runId).toBe(stopped.runId);
    }
    // The history a reloaded page draws comes from the store and matches what was streamed.
    expect(await api.getTrainingMetrics({ runId: stopped.runId! })).toEqual(its.map((e) => ({ iteration: e.iteration, metrics: e.metrics })));
    // Issue 21: the job recorded its rollouts (1 instance × G = 2 per iteration) with their iteration and score.
    const rollouts = await api.listEpisodes({ runId: asRunId(stopped.runId!), iteration: 1 });
    expect(rollouts.total).toBe(2);
    expect(rollouts.rows.map((r) => r.rollout)).toEqual(expect.arrayContaining([expect.objectContaining({ iteration: 1, group: 0, reward: expect.any(Number) })]));
    expect((await api.episodeFacets()).runs.find((r) => r.id === stopped.runId)!.iterations).toEqual(its.map((e) => e.iteration));
    // Issue 33: sorted by a rollout column through the bridge; a rollout's trajectory carries its place and scores.
    const byReward = await api.listEpisodes({ runId: asRunId(stopped.runId!), sort: { by: 'reward', dir: 'desc' } });
    const rewards = byReward.rows.map((r) => r.rollout?.reward ?? Number.NEGATIVE_INFINITY);
    expect(rewards).toEqual([...rewards].sort((a, b) => b - a));
    expect((await api.getTrajectory({ episodeId: rollouts.rows[0]!.id })).rollout).toEqual(rollouts.rows[0]!.rollout);
    await expect(api.listEpisodes({ sort: { by: 'colour' as 'id', dir: 'asc' } })).rejects.toMatchObject({ name: 'ApiInputError' });
    const [run] = await api.listTrainingRuns();
    expect(run).toMatchObject({ runId: stopped.runId, trainer: 'grpo', status: 'interrupted', iterations: stopped.iteration, checkpoint: stopped.checkpoint!.name, job: { id: first.id, state: 'stopped' } });
    // The config it ran with (the charts' config diff and the no-signal advice read it): the trainer's, defaults filled.
    expect(run!.config).toMatchObject({ trainer: 'grpo', init: null, rolloutsPerInstance: 2, loss: { clipEps: 0.2 } });
    const [ckpt] = await api.listCheckpoints();
    expect(ckpt).toMatchObject({ name: stopped.checkpoint!.name, trainer: 'grpo', iteration: stopped.iteration, resumable: true, runId: stopped.runId });
    await expect(api.stopTraining({ jobId: first.id })).rejects.toMatchObject({ name: 'TrainingStateError' });
    await expect(api.pauseTraining({ jobId: 'job-99' })).rejects.toMatchObject({ name: 'TrainingJobNotFoundError' });
    first = stopped;
  });

  it('resumes a stopped run from its checkpoint into the same store run; a stop while paused does no more work', async () => {
    const second = await api.resumeTraining({ checkpoint: first.checkpoint!.name });
    expect(second).toMatchObject({ id: 'job-2', iteration: first.iteration, state: 'starting' });
    await api.pauseTraining({ jobId: second.id }); // before its first iteration
    expect(await stateOf(second.id, 'paused')).toMatchObject({ iteration: first.iteration, runId: first.runId });
    await api.stopTraining({ jobId: second.id });
    const stopped = await stateOf(second.id, 'stopped');
    expect(iterationsOf(second.id)).toEqual([]);
    expect(stopped).toMatchObject({ iteration: first.iteration, runId: first.runId, checkpoint: { name: first.checkpoint!.name, iteration: first.iteration } });

    const third = await api.resumeTraining({ jobId: second.id });
    await until('an iteration after the resume', () => iterationsOf(third.id)[0]);
    await api.stopTraining({ jobId: third.id });
    const end = await stateOf(third.id, 'stopped');
    expect(iterationsOf(third.id)[0]!.iteration).toBe(first.iteration + 1);
    expect(end).toMatchObject({ runId: first.runId, checkpoint: { name: first.checkpoint!.name, iteration: end.iteration } });
    const history = await api.getTrainingMetrics({ runId: first.runId! });
    expect(history.map((h) => h.iteration)).toEqual(Array.from({ length: end.iteration }, (_, i) => i + 1));
    expect((await api.listTrainingRuns())[0]).toMatchObject({ runId: first.runId, status: 'interrupted', iterations: end.iteration });
    first = end;
  });

  it('a job whose worker throws ends as failed with the named error', async () => {
    const src = join(dir, 'checkpoints', first.checkpoint!.name);
    const broken = join(dir, 'checkpoints', 'broken');
    cpSync(src, broken, { recursive: true });
    rmSync(join(broken, 'awb-job.json')); // a copy is not the original run
    const trainer = JSON.parse(readFileSync(join(broken, 'trainer.json'), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(broken, 'trainer.json'), JSON.stringify({ ...trainer, policy: { format: 'something-else' } }));
    const job = await api.resumeTraining({ checkpoint: 'broken', iterations: 9 });
    const failed = await stateOf(job.id, 'failed');
    expect(failed.error).toMatchObject({ name: expect.stringMatching(/CheckpointError/), message: expect.stringMatching(/broken/) });
    expect(failed.endedAt).not.toBeNull();
    expect(failed.checkpoint).toBeNull(); // the broken one is not a good checkpoint to go back to
  });
});
