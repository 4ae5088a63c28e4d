import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import { channelPair, connectApi } from '../../core/api/bridge.js';
import { serveApi } from '../../core/api/serve-api.js';
import type { AdaptationEvent, AdaptationStart, JobInfo, JobState, TrainingEvent } from '../../core/api/types.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { loadAdapter } from '../../core/policy/adapter-file.js';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { appAdaptPool, appTestTemplates, resolveAdaptApp } from '../../core/rl/adapt-instances.js';
import { createRng } from '../../core/util/rng.js';
import { parseTrainConfig } from '../../core/rl/config.js';
import { wholeEpisodesOf } from '../helpers/whole-episodes.js';
import type { RunId } from '../../core/store/ids.js';

/**
 * Per-app adaptation jobs through the real bridge (in-memory channel, the same serveApi / connectApi
 * as both transports): tiny before → adapt → after runs on Settings (2 held-out templates) in the
 * training worker, against a temporary data folder with an untrained base checkpoint.
 */
const TINY: AdaptationStart = { app: 'Settings', policy: 'base', shots: 2, method: 'sft', epochs: 2, evalSeeds: [30], config: { grpo: { devices: 1 } } };

describe('adaptation jobs through the bridge', () => {
  let dir: string;
  let workbench: Workbench;
  let api: WorkbenchApi;
  const events: AdaptationEvent[] = [];
  const trainingEvents: TrainingEvent[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awb-adapt-api-'));
    mkdirSync(join(dir, 'checkpoints', 'base'), { recursive: true });
    saveCheckpoint(join(dir, 'checkpoints', 'base', 'policy.json'), createModel(createRng('adapt-api/base')));
    workbench = await createWorkbench({ dataDir: dir, adb: false, embeddedDevice: false });
    const [client, server] = channelPair();
    serveApi(workbench, server);
    api = connectApi<WorkbenchApi>(client);
    api.onAdaptation({}, (e) => events.push(e));
    api.onTraining({}, (e) => trainingEvents.push(e));
  });

  afterAll(async () => {
    await workbench.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function until<T>(what: string, get: () => T | undefined, ms = 30_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = get();
      if (v !== undefined) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  const stateOf = (jobId: string, state: JobState) => until(`${jobId} ${state}`, () => events.find((e) => e.job.id === jobId && e.kind === 'state' && e.job.state === state)?.job);
  const progressOf = (jobId: string) => events.flatMap((e) => (e.kind === 'progress' && e.job.id === jobId ? [e.progress] : []));

  it('describes the adaptable apps (held-out apps first, with their shots and test templates), the methods and the defaults', async () => {
    const d = await api.describeAdaptation();
    expect(d.apps.slice(0, 5).map((a) => [a.app, a.regime, a.heldOut])).toEqual([
      ['Audio Recorder', 'unseen-app', true], ['Broccoli', 'unseen-app', true], ['Clock', 'unseen-app', true], ['OsmAnd', 'unseen-app', true],
      ['Tasks', 'unseen-app', true],
    ]);
    expect(d.apps.slice(5).every((a) => a.regime === 'unseen-template' && !a.heldOut)).toBe(true);
    expect(d.apps.find((a) => a.app === 'Settings')).toEqual({
      app: 'Settings', package: 'com.android.settings', regime: 'unseen-template', heldOut: false, adaptInstances: 16, testTemplates: 2,
    });
    expect(d.methods).toEqual(['grpo', 'sft', 'sft+grpo']);
    expect(d.kinds).toEqual(['head', 'lowrank']);
    expect(d.defaults).toEqual({ shots: 8, method: 'grpo', kind: 'lowrank', rank: 4, iterations: 50, epochs: 60, seed: 0, home: 'task-app', evalSeeds: [30, 7, 1234] });
    expect(d.fields.find((f) => f.path === 'grpo.rolloutsPerInstance')).toMatchObject({ kind: 'integer', default: 8, min: 2 });
    // The counts are the ones the adaptation itself picks from.
    const clock = resolveAdaptApp('Clock');
    expect(d.apps.find((a) => a.app === 'Clock')).toMatchObject({ adaptInstances: appAdaptPool(clock).length, testTemplates: appTestTemplates(clock).length });
  });

  it('tells what a base was trained on through its inits, and so whether an app is held out from it', async () => {
    // An SFT warm start on unseen-app/train (its meta keeps the config), and a GRPO run from it: on unseen-app/train,
    // then one on unseen-instance/train (every app). trainer.json as trainGrpo writes it, with only what a summary reads.
    const ckpt = (name: string) => join(dir, 'checkpoints', name);
    mkdirSync(ckpt('sft-a'), { recursive: true });
    saveCheckpoint(join(ckpt('sft-a'), 'policy.json'), createModel(createRng('lineage')), { trainer: 'sft', config: { split: 'unseen-app', part: 'train', maxTemplates: 2, seeds: [0] } });
    for (const [name, split] of [['grpo-app', 'unseen-app'], ['grpo-all', 'unseen-instance']] as const) {
      mkdirSync(ckpt(name), { recursive: true });
      saveCheckpoint(join(ckpt(name), 'policy.json'), createModel(createRng('lineage')), { trainer: 'grpo', iteration: 1 });
      writeFileSync(join(ckpt(name), 'trainer.json'), JSON.stringify({ iteration: 1, runId: null, config: parseTrainConfig({ split, init: 'checkpoint:sft-a' }) }));
    }
    const heldOutApps = (await api.describeAdaptation()).apps.filter((a) => a.heldOut).map((a) => a.app);
    const fromApp = await api.describeAdaptationBase({ policy: 'checkpoint:grpo-app' });
    expect(fromApp.steps.map((s) => [s.checkpoint, s.trainer, s.split, s.part])).toEqual([['grpo-app', 'grpo', 'unseen-app', 'train'], ['sft-a', 'sft', 'unseen-app', 'train']]);
    expect(fromApp.steps[1]!.templates).toBe(2);
    expect(fromApp.complete).toBe(true);
    expect(heldOutApps.filter((a) => fromApp.apps.includes(a))).toEqual([]);
    // unseen-instance/train has every app's templates: no app is held out from it.
    const fromAll = await api.describeAdaptationBase({ policy: 'grpo-all' });
    expect(heldOutApps.every((a) => fromAll.apps.includes(a))).toBe(true);
    // A checkpoint without its training config (the untrained base): the lineage says it cannot tell.
    expect(await api.describeAdaptationBase({ policy: 'checkpoint:base' })).toMatchObject({ complete: false, apps: [], steps: [{ checkpoint: 'base', trainer: null }] });
    await expect(api.describeAdaptationBase({ policy: 'oracle' })).rejects.toMatchObject({ name: 'PolicyChoiceError' });
    for (const name of ['sft-a', 'grpo-app', 'grpo-all']) rmSync(ckpt(name), { recursive: true, force: true });
  });

  it('refuses bad requests with every problem listed, and starts nothing', async () => {
    const typed = api.startAdaptation({ app: 'Settings', policy: 'base', shots: 0, method: 'ppo' as 'sft', extra: 1 } as AdaptationStart);
    await expect(typed).rejects.toMatchObject({ name: 'ApiInputError' });
    expect(((await typed.catch((e: unknown) => e)) as { issues: Array<{ path: string }> }).issues.map((i) => i.path).sort()).toEqual(['', 'method', 'shots']);

    const bad = api.startAdaptation({
      app: 'Settings', policy: 'nope', shots: 500, method: 'grpo', episodes: [999], evalTemplates: ['ClockStopWatch'], config: { sft: { epochs: 0 } },
    });
    await expect(bad).rejects.toMatchObject({ name: 'AdaptationInputError' });
    const issues = ((await bad.catch((e: unknown) => e)) as { issues: Array<{ path: string; message: string }> }).issues;
    expect(issues.map((i) => i.path).sort()).toEqual(['episodes', 'episodes', 'evalTemplates', 'policy', 'sft.epochs', 'shots']);
    const by = (path: string) => issues.filter((i) => i.path === path).map((i) => i.message).join(' | ');
    expect(by('policy')).toMatch(/Policy "nope": no checkpoint "nope" under/);
    expect(by('shots')).toMatch(/Cannot pick 500 adaptation instances for Settings: .* from 1 to 16/);
    expect(by('episodes')).toMatch(/method grpo has none/);
    expect(by('episodes')).toMatch(/episode 999/);
    expect(by('evalTemplates')).toMatch(/ClockStopWatch: not held-out templates of Settings \(SystemDeviceNameQuestion, SystemRenameDevice\)/);
    await expect(api.startAdaptation({ app: 'Nope', policy: 'relative/policy.json' })).rejects.toMatchObject({
      name: 'AdaptationInputError', issues: [{ path: 'app', message: expect.stringMatching(/Unknown app "Nope"/) }, { path: 'policy', message: expect.stringMatching(/names, not paths/) }],
    });
    expect(await api.listTrainingJobs()).toEqual([]);
    expect(events).toEqual([]);
  });

  let finished: JobInfo;

  it('runs before → adapt → after in the worker, streams each phase, keeps the report and lists the stored adapter', async () => {
    const job = await api.startAdaptation(TINY);
    expect(job).toMatchObject({ kind: 'adapt', state: 'starting', total: 2, config: expect.objectContaining({ app: 'Settings', method: 'sft', shots: 2, epochs: 2 }) });
    finished = await stateOf(job.id, 'finished');
    expect(finished).toMatchObject({ iteration: 2, total: 2, error: null, checkpoint: null });

    const phases = progressOf(job.id).map((p) => p.phase);
    expect(phases).toEqual(['before', 'before', 'demonstrating', 'demonstrating', 'demonstrations', 'sft', 'sft', 'saved', 'after', 'after']);
    // Issue 33: every phase is counted on the job (its bar and ETA): episodes, oracle demonstrations, SFT epochs.
    const jobPhases = events.flatMap((e) => (e.kind === 'progress' && e.job.id === job.id ? [e.job.phase] : []));
    expect(jobPhases.map((p) => (p ? [p.name, p.done, p.total, p.startDone] : null))).toEqual([
      ['base policy on the test instances', 1, 2, 1], ['base policy on the test instances', 2, 2, 1],
      ['oracle demonstrations', 0, 2, 0], ['oracle demonstrations', 1, 2, 0], null,
      ['SFT epochs', 1, 2, 1], ['SFT epochs', 2, 2, 1], null,
      ['adapted policy on the test instances', 1, 2, 1], ['adapted policy on the test instances', 2, 2, 1],
    ]);
    const report = (events.find((e) => e.kind === 'report' && e.job.id === job.id) as Extract<AdaptationEvent, { kind: 'report' }>).report;
    expect(report).toMatchObject({
      app: 'Settings', regime: 'unseen-template', evalSeeds: [30], stoppedBy: 'done', demonstrations: { source: 'oracle', episodes: 2 },
      before: { episodes: 2 }, after: { episodes: 2 }, adapter: { kind: 'lowrank', rank: 4, path: expect.stringContaining(join(dir, 'adapters')) },
    });
    expect(report.perTemplate.map((t) => t.templateId)).toEqual(['SystemDeviceNameQuestion', 'SystemRenameDevice']);
    expect(report.training.sft).toHaveLength(2);
    expect(await api.getAdaptationReport({ jobId: job.id })).toEqual(report);
    // The state changes reach onTraining too (the one-job rule spans kinds); progress does not.
    expect(trainingEvents.filter((e) => e.job.id === job.id).map((e) => [e.kind, e.job.state])).toEqual([['state', 'starting'], ['state', 'running'], ['state', 'finished']]);
    expect((await api.listTrainingJobs()).map((j) => [j.id, j.kind, j.state])).toEqual([[job.id, 'adapt', 'finished']]);

    const [adapter] = await api.listAdapters();
    expect(adapter).toMatchObject({
      path: report.adapter.path, app: 'Settings', package: 'com.android.settings', kind: 'lowrank', rank: 4, parameters: report.adapter.parameters,
      base: { sha256: report.base.sha256, checkpoint: 'base' }, method: 'sft', stoppedBy: 'done', problem: null,
      report: { before: report.before!.successRate, after: report.after!.successRate, delta: report.delta, evalSeeds: [30] },
    });
    expect(adapter!.bytes).toBeGreaterThan(1000);
    expect(loadAdapter(adapter!.path).package).toBe('com.android.settings');

    // Every episode it ran is in its own training run, whole, as Trajectories lists them: before (the base), the
    // oracle's demonstrations on the shots, after (base + adapter); the Run filter lists the run (no iterations: no GRPO).
    expect(finished.runId).not.toBeNull();
    const rows = await wholeEpisodesOf(api, finished.runId!);
    expect(rows.map((r) => r.policy)).toEqual(['builtin', 'builtin', 'oracle', 'oracle', 'builtin-adapted', 'builtin-adapted']);
    expect(rows.slice(2, 4).map((r) => [r.templateId, r.seed])).toEqual(report.shots.map((sh) => [sh.templateId, sh.seed]));
    expect(rows.every((r) => r.rollout === null)).toBe(true);
    expect((await api.episodeFacets()).runs.find((r) => r.id === finished.runId)).toEqual({ id: finished.runId, name: 'adapt Settings sft seed 0', kind: 'training', iterations: [] });
    expect((await api.listRuns()).find((r) => r.id === finished.runId)).toMatchObject({ kind: 'training', status: 'finished', config: { trainer: 'adapt', app: 'Settings' } });
  }, 30_000);

  it('GRPO on the shots: its rollouts are in the run by iteration with reward and advantage, thinned by config.recording; its metrics charted', async () => {
    const job = await api.startAdaptation({
      ...TINY, method: 'grpo', shots: 1, iterations: 3,
      config: { grpo: { devices: 1, instancesPerIteration: 1, rolloutsPerInstance: 2, maxSteps: 3 }, recording: { keepEvery: 2, keepSuccesses: false } },
    });
    const done = await stateOf(job.id, 'finished');
    const rows = await wholeEpisodesOf(api, done.runId!);
    // keepEvery 2 of 3 iterations: iteration 2 and the last kept whole, iteration 1 (no success kept) dropped
    expect((await api.episodeFacets()).runs.find((r) => r.id === done.runId)!.iterations).toEqual([2, 3]);
    const rollouts = rows.filter((r) => r.rollout !== null);
    expect(rollouts.map((r) => [r.rollout!.iteration, r.rollout!.group, r.rollout!.index])).toEqual([[2, 0, 0], [2, 0, 1], [3, 0, 0], [3, 0, 1]]);
    expect(rollouts.every((r) => r.policy === 'builtin-adapt' && r.rollout!.reward === (r.status === 'success' ? 1 : 0) && Number.isFinite(r.rollout!.advantage))).toBe(true);
    const byIteration = await api.listEpisodes({ runId: done.runId! as RunId, iteration: 3 });
    expect(byIteration.rows.map((r) => r.id).sort()).toEqual(rollouts.slice(2).map((r) => r.id).sort());
    // the evaluation around it: 2 before, 2 after
    expect(rows.filter((r) => r.rollout === null).map((r) => r.policy)).toEqual(['builtin', 'builtin', 'builtin-adapted', 'builtin-adapted']);
    expect((await api.getTrainingMetrics({ runId: done.runId! })).map((m) => m.iteration)).toEqual([1, 2, 3]);
  }, 30_000);

  it('one background job at a time across kinds; an adaptation cannot be paused; stop keeps the started adapter', async () => {
    const job = await api.startAdaptation({ ...TINY, epochs: 10_000 });
    await expect(api.startTraining({ kind: 'sft', config: {} })).rejects.toMatchObject({ name: 'TrainingBusyError', message: expect.stringMatching(new RegExp(`Adaptation job ${job.id}`)) });
    await expect(api.startAdaptation(TINY)).rejects.toMatchObject({ name: 'TrainingBusyError' });
    await expect(api.pauseTraining({ jobId: job.id })).rejects.toMatchObject({ name: 'TrainingStateError', message: expect.stringMatching(/cannot be paused/) });
    await until('SFT epochs', () => progressOf(job.id).find((p) => p.phase === 'sft' && p.epoch >= 3));
    expect((await api.stopAdaptation({ jobId: job.id })).state).toBe('stopping');
    const stopped = await stateOf(job.id, 'stopped');
    expect(stopped.iteration).toBeLessThan(10_000);
    const report = (await api.getAdaptationReport({ jobId: job.id }))!;
    expect(report).toMatchObject({ stoppedBy: 'aborted', after: null, delta: null, adapter: { path: expect.any(String) } });
    expect(report.training.sft.length).toBe(stopped.iteration);
    expect((await api.listAdapters())[0]).toMatchObject({ stoppedBy: 'aborted', report: { after: null } });
    // the run ends interrupted with whole episodes only: before and the demonstrations, no after
    expect((await api.listRuns()).find((r) => r.id === stopped.runId)).toMatchObject({ status: 'interrupted' });
    expect((await wholeEpisodesOf(api, stopped.runId!)).map((r) => r.policy)).toEqual(['builtin', 'builtin', 'oracle', 'oracle']);


    // …and the other way round: a training job blocks an adaptation.
    const training = await api.startTraining({ kind: 'sft', config: { maxTemplates: 1, seeds: [0], sft: { epochs: 1000 } } });
    await expect(api.startAdaptation(TINY)).rejects.toMatchObject({ name: 'TrainingBusyError', message: expect.stringMatching(new RegExp(`Training job ${training.id}`)) });
    await expect(api.stopAdaptation({ jobId: training.id })).rejects.toMatchObject({ name: 'JobKindError' });
    await expect(api.getAdaptationReport({ jobId: training.id })).rejects.toMatchObject({ name: 'JobKindError' });
    await api.stopTraining({ jobId: training.id });
    await until('the training job to stop', () => trainingEvents.find((e) => e.job.id === training.id && e.job.state === 'stopped'));
    await expect(api.getAdaptationReport({ jobId: 'job-99' })).rejects.toMatchObject({ name: 'TrainingJobNotFoundError' });
  }, 60_000);

  it('stopped during GRPO: the run ends interrupted with whole episodes only, its rollouts scored, no after-episode', async () => {
    const job = await api.startAdaptation({
      ...TINY, method: 'grpo', shots: 1, iterations: 50, evalTemplates: ['SystemRenameDevice'],
      config: { grpo: { devices: 1, instancesPerIteration: 1, rolloutsPerInstance: 2, maxSteps: 3 } },
    });
    await until('GRPO iteration 1', () => progressOf(job.id).find((p) => p.phase === 'grpo'));
    await api.stopAdaptation({ jobId: job.id });
    const cut = await stateOf(job.id, 'stopped');
    expect((await api.listRuns()).find((r) => r.id === cut.runId)).toMatchObject({ status: 'interrupted' });
    const rows = await wholeEpisodesOf(api, cut.runId!);
    const iterations = [...new Set(rows.flatMap((r) => (r.rollout ? [r.rollout.iteration] : [])))];
    expect(iterations.length).toBeGreaterThanOrEqual(1);
    expect(iterations.length).toBeLessThan(50);
    expect(rows.filter((r) => r.rollout).length).toBe(2 * iterations.length);
    expect(rows.filter((r) => r.rollout).every((r) => r.rollout!.reward !== null && r.rollout!.advantage !== null)).toBe(true);
    expect(rows.filter((r) => !r.rollout).map((r) => r.policy)).toEqual(['builtin']);
  }, 60_000);

  it('trains on recorded episodes of the app as demonstrations (a failed one is refused, named)', async () => {
    const { serial } = await api.startSimDroid();
    const record = async (policy: 'oracle' | 'random') => {
      const s = await api.startSession({ serial, templateId: 'SystemDarkThemeTurnOn', seed: 3, policy, run: true, maxSteps: 6 });
      for (;;) {
        const now = await api.getSession({ sessionId: s.id });
        if (now.result && now.episodeId !== null) return now.episodeId;
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const good = await record('oracle');
    const bad = await record('random');
    await expect(api.startAdaptation({ ...TINY, method: undefined, episodes: [good, bad] })).rejects.toMatchObject({
      name: 'AdaptationInputError', issues: [{ path: 'episodes', message: expect.stringMatching(new RegExp(`episode ${bad} .*did not succeed`)) }],
    });
    const job = await api.startAdaptation({ ...TINY, method: undefined, episodes: [good] });
    expect(job.config).toMatchObject({ method: 'sft', episodes: [good] });
    await stateOf(job.id, 'finished');
    expect(await api.getAdaptationReport({ jobId: job.id })).toMatchObject({ demonstrations: { source: 'episodes', episodes: 1 }, shots: expect.any(Array) });
  }, 30_000);
});
