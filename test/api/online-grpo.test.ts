import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { ApiInputError, parseInput } from '../../core/api/inputs.js';
import type { OnlineGrpoRunInfo, OnlineGrpoStart, RemoteJobEvent } from '../../core/api/job-types.js';
import type { Activity } from '../../core/api/types.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { runEpisode } from '../../core/episode/runner.js';
import { rolloutRequestSeed } from '../../core/remote-jobs/online.js';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { collectDemonstrations } from '../../core/rl/demonstrations.js';
import { parseSftConfig, trainSft } from '../../core/rl/sft.js';
import { TASKS } from '../../core/tasks/registry.js';
import { splitInstances } from '../../core/tasks/splits.js';
import { createRng } from '../../core/util/rng.js';
import { fastClient, TOKEN } from '../jobs/fixture.js';
import { startFakeVllm, type FakeVllm } from '../jobs/online-fake-vllm.js';
import { realTrainerAvailability, startRealTrainer, type RealTrainer } from '../jobs/real-service.js';
import { wholeEpisodesOf } from '../helpers/whole-episodes.js';
import type { RunId } from '../../core/store/ids.js';

/**
 * startOnlineGrpo / stopOnlineGrpo / listOnlineGrpo on a real workbench against the real Python
 * trainer service (loopback): the builtin policy from a registered warm start, a stop mid-job, the
 * refusals at their fields, and a served VLM (a fake vLLM server, the trainer's awb-tiny-lm) whose
 * endpoint key crosses neither the API's input nor its events.
 */
const avail = realTrainerAvailability();
const skip = avail.service ?? avail.torch;
if (skip) console.log(`skipping the online GRPO API tests: ${skip}`);

const KEY = 'sk-online-api-test-SECRET-9d2';
const KEY_ENV = 'AWB_ONLINE_API_TEST_VLLM_KEY';
const BASE = 'awb-tiny-lm';
/** The loop's instances: the first of unseen-instance / train (the API selects a split part and a limit). */
const FIRST = splitInstances(TASKS, 'unseen-instance', 'train').slice(0, 2);

let dir: string;
let service: RealTrainer;
let wb: Workbench;
const events: RemoteJobEvent[] = [];
const activities: Activity[] = [];

const start = (input: unknown) => wb.startOnlineGrpo(parseInput('startOnlineGrpo', input) as OnlineGrpoStart);

/** Waits until the loop of `runId` has ended (its last `online` event). */
async function ended(runId: number, timeoutMs = 40_000): Promise<OnlineGrpoRunInfo> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const run = (await wb.listOnlineGrpo({})).find((r) => r.runId === runId)!;
    if (run.state !== 'running' && run.state !== 'stopping') return run;
    if (Date.now() > end) throw new Error(`online run ${runId} still ${run.state}: ${run.log.join('\n')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(skip !== null)('online GRPO in the workbench API, against the real trainer service', () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awb-online-api-'));
    process.env[KEY_ENV] = KEY; // the trainer publishes to the fake vLLM with it; the workbench never sends it
    try {
      mkdirSync(join(dir, 'trainer'));
      service = await startRealTrainer(join(dir, 'trainer'), TOKEN, 30_000, ['--publish-key', KEY_ENV]);
    } finally {
      delete process.env[KEY_ENV];
    }
    wb = await createWorkbench({ dataDir: join(dir, 'home'), adb: false, embeddedDevice: false, trainerClient: (p) => fastClient(p.baseUrl) });
    wb.onRemoteJob({}, (e) => events.push(e));
    wb.onActivity({}, (a) => activities.push(a));
    await wb.saveTrainer({ name: 'local', baseUrl: service.url, token: TOKEN });
    // A warm start on the loop's instances (SFT on oracle demonstrations): some rollouts succeed, so groups have a spread.
    const device = new SimDroid({ serial: 'simdroid-online-api-warm' });
    try {
      const model = createModel(createRng('online-api/init'));
      trainSft(model, (await collectDemonstrations(device, FIRST, model)).demos, parseSftConfig({ epochs: 250, batchSize: 8 }));
      mkdirSync(join(dir, 'home', 'policies'), { recursive: true });
      saveCheckpoint(join(dir, 'home', 'policies', 'warm.json'), model);
    } finally {
      device.close();
    }
  }, 60_000);
  afterAll(async () => {
    await wb?.close();
    await service?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('builtin, 2 iterations from a registered checkpoint: the run returned at once, a job record per iteration in the Jobs list, iteration events and metrics, the activity counting iterations', async () => {
    events.length = 0;
    const run = await start({
      trainer: 'local', policy: { kind: 'builtin', init: 'warm.json' }, split: 'unseen-instance', part: 'train', limit: 2, iterations: 2,
      groupSize: 4, temperature: 1, maxSteps: 8, seed: 3, config: { epochs: 2, minibatchSize: 16, learningRate: 0.02, klBeta: 0 },
    });
    expect(run).toMatchObject({ state: 'running', trainer: 'local', policyKind: 'builtin', iterations: 2, done: [], policy: join(dir, 'home', 'policies', 'warm.json') });
    await expect(start({ trainer: 'local', policy: { kind: 'builtin' }, iterations: 1 })).rejects.toMatchObject({ name: 'OnlineGrpoBusyError', runId: run.runId });

    const end = await ended(run.runId);
    expect(end.state, end.log.join('\n')).toBe('finished');
    expect(end.done.map((i) => i.iteration)).toEqual([1, 2]);
    const jobs = await wb.listRemoteJobs({});
    const submitted = end.done.filter((i) => i.job);
    expect(submitted.length, end.log.join('\n')).toBeGreaterThan(0);
    for (const it of submitted) {
      const row = jobs.find((j) => j.id === it.job!.localId)!;
      expect(row).toMatchObject({ kind: 'builtin-grpo', status: 'succeeded', remoteId: it.job!.remoteId, name: expect.stringMatching(new RegExp(`#${it.iteration} \\(run ${run.runId}\\)$`)) });
      // the Jobs table heard of the record (queued, then succeeded) and the job's own log and metrics
      const seen = events.filter((e): e is Extract<RemoteJobEvent, { type: 'job' }> => e.type === 'job' && e.job.id === row.id).map((e) => e.job.status);
      expect(seen[0]).toMatch(/queued|running/);
      expect(seen).toContain('succeeded');
      expect(events.some((e) => e.type === 'metric' && e.jobId === row.id)).toBe(true);
    }
    expect(end.finalPolicy).toBe(join(dir, 'home', 'policies', `local-${submitted.at(-1)!.job!.remoteId}.json`));
    expect(existsSync(end.finalPolicy!)).toBe(true);

    // online events: iteration 1's line before the end, the final state last
    const online = events.filter((e): e is Extract<RemoteJobEvent, { type: 'online' }> => e.type === 'online' && e.run.runId === run.runId).map((e) => e.run);
    expect(online.some((r) => r.state === 'running' && r.done.length === 1)).toBe(true);
    expect(online.at(-1)).toMatchObject({ state: 'finished', done: end.done });
    const acts = activities.filter((a) => a.id === run.activityId);
    expect(acts.map((a) => [a.state, a.done, a.total])).toEqual(expect.arrayContaining([['running', 1, 2], ['done', 2, 2]]));

    // the training run the Training view charts: one metrics row per iteration, config names the remote trainer
    expect((await wb.getTrainingMetrics({ runId: run.runId })).map((r) => r.iteration)).toEqual([1, 2]);
    expect((await wb.listTrainingRuns({})).find((r) => r.runId === run.runId)).toMatchObject({ status: 'finished', trainer: null, iterations: 2 });

    // its rollouts, recorded as offline GRPO's: in Trajectories by run and iteration, each with its reward and advantage
    expect((await wb.episodeFacets({})).runs.find((r) => r.id === run.runId)!.iterations).toEqual([1, 2]);
    const rows = await wholeEpisodesOf(wb, run.runId);
    expect(rows.map((r) => `${r.rollout!.iteration}/${r.rollout!.group}/${r.rollout!.index}`).sort())
      .toEqual([1, 2].flatMap((k) => [0, 1].flatMap((g) => [0, 1, 2, 3].map((i) => `${k}/${g}/${i}`))).sort());
    for (const r of rows) expect([r.rollout!.reward, Number.isFinite(r.rollout!.advantage)]).toEqual([r.status === 'success' ? 1 : 0, true]);
    expect(rows.some((r) => r.rollout!.advantage !== 0), 'a group with a reward spread').toBe(true);
    expect((await wb.listEpisodes({ runId: run.runId as RunId, iteration: 2 })).total).toBe(8);
  }, 60_000);

  it('refusals name their field and leave no run: a path for init (input schema), a checkpoint that is not registered, an unknown trainer, a bad trainer config field', async () => {
    const runsBefore = (await wb.listTrainingRuns({})).length;
    expect(() => parseInput('startOnlineGrpo', { trainer: 'local', policy: { kind: 'builtin', init: '../x.json' }, iterations: 1 })).toThrow(ApiInputError);
    expect(() => parseInput('startOnlineGrpo', { trainer: 'local', policy: { kind: 'vlm', endpoint: 'x', baseModel: 'm', apiKey: KEY }, iterations: 1 })).toThrow(/policy: unknown field "apiKey"/);
    await expect(start({ trainer: 'local', policy: { kind: 'builtin', init: 'nope.json' }, iterations: 1 }))
      .rejects.toMatchObject({ name: 'OnlineGrpoInputError', issues: [{ path: 'policy.init', message: expect.stringMatching(/not a file in .*policies.*\(got "nope.json"\)/) }] });
    await expect(start({ trainer: 'elsewhere', policy: { kind: 'builtin' }, iterations: 1 }))
      .rejects.toMatchObject({ name: 'OnlineGrpoInputError', issues: [{ path: 'trainer' }] });
    await expect(start({ trainer: 'local', policy: { kind: 'builtin' }, iterations: 1, config: { epochs: -1 } }))
      .rejects.toMatchObject({ name: 'OnlineGrpoInputError', issues: [expect.objectContaining({ path: 'config.epochs' })] });
    await expect(start({ trainer: 'local', policy: { kind: 'vlm', endpoint: 'missing', baseModel: BASE }, iterations: 1 }))
      .rejects.toMatchObject({ name: 'OnlineGrpoInputError', issues: [{ path: 'policy.endpoint' }] });
    expect((await wb.listTrainingRuns({})).length).toBe(runsBefore);
  });

  it('stop while an iteration\'s job trains: the job is cancelled, the run interrupted, the loop stopped', async () => {
    events.length = 0;
    // Many epochs: the job is still training when the stop arrives.
    const run = await start({
      trainer: 'local', policy: { kind: 'builtin', init: 'warm.json' }, limit: 2, iterations: 3, groupSize: 4, maxSteps: 8, seed: 3,
      config: { epochs: 400, minibatchSize: 4 },
    });
    const end = Date.now() + 30_000;
    let jobId: number | null = null;
    while (jobId === null && Date.now() < end) {
      const e = events.find((x): x is Extract<RemoteJobEvent, { type: 'job' }> => x.type === 'job' && x.job.remoteId !== null);
      if (e) jobId = e.job.id;
      else await new Promise((r) => setTimeout(r, 20));
    }
    expect(jobId).not.toBeNull();
    expect(await wb.stopOnlineGrpo({ runId: run.runId })).toMatchObject({ state: 'stopping' });
    const stopped = await ended(run.runId);
    expect(stopped).toMatchObject({ state: 'stopped', error: expect.stringMatching(/^OnlineGrpoStoppedError: .*iteration \d+ \(job \S+ cancelled\): stopped from the workbench/) });
    // a running job is cancelled at its next step boundary: the workbench follows it until then
    const until = Date.now() + 15_000;
    while ((await wb.listRemoteJobs({})).find((j) => j.id === jobId)!.status !== 'cancelled' && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
    expect((await wb.listRemoteJobs({})).find((j) => j.id === jobId)!.status).toBe('cancelled');
    expect(events.some((e) => e.type === 'job' && e.job.id === jobId && e.job.status === 'cancelled')).toBe(true);
    expect((await wb.listTrainingRuns({})).find((r) => r.runId === run.runId)!.status).toBe('interrupted');
    // whole episodes only: the rollouts of the iterations that ran, each scored before its job was submitted
    const rows = await wholeEpisodesOf(wb, run.runId);
    const ran = [...new Set(rows.map((r) => r.rollout!.iteration))];
    expect(rows.length).toBe(ran.length * 8);
    expect(rows.every((r) => r.rollout!.reward !== null && r.rollout!.advantage !== null)).toBe(true);
    expect(activities.filter((a) => a.id === run.activityId).at(-1)).toMatchObject({ state: 'failed' });
    await expect(wb.stopOnlineGrpo({ runId: 999_999 })).rejects.toMatchObject({ name: 'OnlineGrpoNotFoundError' });
  }, 60_000);

  it('VLM from an endpoint profile (fake vLLM server, awb-tiny-lm): one iteration switches to the published adapter; the key is used, yet in no input or event', async () => {
    const instance = FIRST[0]!;
    const device = new SimDroid({ serial: 'simdroid-online-api-oracle' });
    let oracle: unknown[];
    try {
      oracle = (await runEpisode({ device, instance, policy: new OraclePolicy() })).steps.map((s) => s.action);
    } finally {
      device.close();
    }
    let seed = 0;
    while (new Set(Array.from({ length: 4 }, (_, r) => rolloutRequestSeed(seed, 1, 0, r) % 2)).size < 2) seed++;
    const fake: FakeVllm = await startFakeVllm({
      baseModel: BASE, key: KEY,
      answer: ({ seed: s, body }) => {
        if ((s ?? 1) % 2 !== 0) return 'I am not sure what to do here.';
        const k = [...String(body.messages.at(-1).content[0].text).matchAll(/^Step (\d+):/gm)].map((m) => Number(m[1]));
        const action = oracle[k.length ? Math.max(...k) : 0] ?? { action_type: 'status', goal_status: 'complete' };
        return `Reason: next.\nAction: ${JSON.stringify(action)}`;
      },
    });
    try {
      await wb.saveEndpoint(parseInput('saveEndpoint', {
        name: 'served', settings: { endpoint: { baseUrl: `${fake.url}/v1`, model: BASE, retries: 0, timeoutMs: 10_000 }, format: 'androidworld' }, apiKey: KEY,
      }) as never);
      events.length = 0;
      const input = {
        trainer: 'local', policy: { kind: 'vlm', endpoint: 'served', baseModel: BASE }, limit: 1, iterations: 1, groupSize: 4, maxSteps: 8, seed,
        config: { epochs: 1, batchSize: 8, learningRate: 1e-3, publish: { apiKeyEnv: KEY_ENV } },
      };
      const run = await start(input);
      expect(run).toMatchObject({ policyKind: 'vlm', policy: BASE });
      const end = await ended(run.runId);
      expect(end.state, end.log.join('\n')).toBe('finished');
      const job = end.done[0]!.job!;
      expect(end.done[0]!.policy).toBe(`awb-online-${run.runId}-${job.remoteId}`);
      expect(fake.loads.map((l) => l.lora_name)).toEqual([end.done[0]!.policy]);
      expect((await wb.listRemoteJobs({})).find((j) => j.id === job.localId)).toMatchObject({ kind: 'vlm-grpo', status: 'succeeded' });
      // the rollouts (the bundle's episodes) tagged and scored as offline GRPO's: half of them followed the oracle
      const rows = await wholeEpisodesOf(wb, run.runId);
      expect(rows.map((r) => [r.rollout!.iteration, r.rollout!.group, r.rollout!.index]).sort()).toEqual([[1, 0, 0], [1, 0, 1], [1, 0, 2], [1, 0, 3]]);
      for (const r of rows) expect([r.rollout!.reward, Math.sign(r.rollout!.advantage!)]).toEqual(r.status === 'success' ? [1, 1] : [0, -1]);

      // the key reached the endpoint (every request), and nothing the API took or sent holds it
      expect(fake.requests.length).toBeGreaterThan(0);
      expect(fake.requests.every((r) => r.auth === `Bearer ${KEY}`)).toBe(true);
      expect(JSON.stringify(input)).not.toContain(KEY);
      expect(JSON.stringify(events)).not.toContain(KEY);
      expect(JSON.stringify(activities)).not.toContain(KEY);
      expect(JSON.stringify(await wb.listOnlineGrpo({}))).not.toContain(KEY);
      expect(JSON.stringify(await wb.listRemoteJobs({}))).not.toContain(KEY);
      expect(readFileSync(join(dir, 'home', 'endpoints.json'), 'utf8')).not.toContain(KEY);
    } finally {
      await fake.close();
    }
  }, 60_000);
});
