import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RemoteJobInfo } from '../../core/api/types.js';
import type { Workbench } from '../../core/workbench/index.js';
import { loadCheckpoint } from '../../core/policy/checkpoint.js';
import { commandForKey } from '../../renderer/src/commands/index.js';
import type { AppStore } from '../../renderer/src/store/index.js';
import { applyRemoteJobEvent, metricNames } from '../../renderer/src/store/slices/jobs.js';
import { submitRequest, type SubmitFormState } from '../../renderer/src/views/jobs/submit-form.js';
import { bridgedWorkbench, type BridgedWorkbench } from '../helpers/bridged-workbench.js';
import { startFakeTrainer, type FakeTrainer } from '../helpers/fake-trainer.js';
import { fastClient, TOKEN } from './fixture.js';

async function until(what: string, cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the jobs slice against the real workbench and the fake trainer', () => {
  let bridged: BridgedWorkbench;
  let dir: string;
  let fake: FakeTrainer;
  let workbench: Workbench;
  let store: AppStore;
  let unwatch: () => void;

  beforeAll(async () => {
    fake = await startFakeTrainer({ token: TOKEN, epochDelayMs: 10 });
    bridged = await bridgedWorkbench('awb-jobs-ui-', { trainerClient: (p) => fastClient(p.baseUrl) });
    ({ dir, workbench, store } = bridged);
    unwatch = store.getState().watchJobs();
  });
  afterAll(async () => {
    unwatch();
    await bridged.close();
    await fake.close();
  });

  it('saves a trainer: the list shows name and URL only, the token is in secrets.json, not trainers.json', async () => {
    expect(await store.getState().saveTrainer({ name: 'fake', baseUrl: fake.url, token: TOKEN })).toBe(true);
    expect(store.getState().trainers).toEqual([{ name: 'fake', baseUrl: fake.url, hasToken: true }]);
    expect(JSON.stringify(await workbench.listTrainers({}))).not.toContain(TOKEN);
    expect(readFileSync(join(dir, 'trainers.json'), 'utf8')).not.toContain(TOKEN);
    expect(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'))).toEqual({ 'trainer:fake': TOKEN });
  });

  it('submits an SFT job, streams its log and metrics live, then downloads and registers the policy', async () => {
    const job = await store.getState().submitRemoteJob({ trainer: 'fake', kind: 'builtin-sft', config: { epochs: 3 }, split: 'unseen-instance', part: 'train', limit: 2, name: 'ui' });
    expect(job).toMatchObject({ trainer: 'fake', kind: 'builtin-sft', name: 'ui' });
    expect(store.getState().shownRemoteJob).toBe(job!.id);
    await until('the job succeeds', () => store.getState().remoteJobs.find((j) => j.id === job!.id)?.status === 'succeeded');
    await until('the last metric', () => (store.getState().jobStreams[job!.id]?.metrics.length ?? 0) === 3);
    const stream = store.getState().jobStreams[job!.id]!;
    expect(metricNames(stream)).toEqual(['loss/policy', 'epoch']);
    expect(stream.logs.some((l) => /^epoch 3\/3 loss \d/.test(l.message))).toBe(true);
    // Following again replays from the first event: nothing is duplicated.
    const before = JSON.stringify(store.getState().jobStreams[job!.id]);
    await store.getState().showRemoteJob(job!.id);
    await new Promise((r) => setTimeout(r, 200));
    expect(JSON.stringify(store.getState().jobStreams[job!.id])).toBe(before);

    await store.getState().downloadRemoteArtifacts(job!.id);
    await store.getState().registerRemotePolicy(job!.id);
    const done = store.getState().remoteJobs.find((j) => j.id === job!.id)!;
    expect(done.artifacts.map((a) => a.name).sort()).toEqual(['metrics.jsonl', 'policy.json']);
    expect(done.policyPath).toBe(join(dir, 'policies', `fake-${done.remoteId}.json`));
    expect(loadCheckpoint(done.policyPath!).meta).toMatchObject({ trainer: 'fake', epochs: 3 });
    expect(store.getState().errors).toEqual([]);
  });

  it('refuses an init checkpoint outside the data folder and a bad config, as visible errors', async () => {
    await store.getState().submitRemoteJob({ trainer: 'fake', kind: 'builtin-sft', init: '/etc/passwd' });
    await store.getState().submitRemoteJob({ trainer: 'fake', kind: 'builtin-sft', config: { epochs: -1 } });
    expect(store.getState().errors.map((e) => e.name)).toEqual(['RemoteJobInputError', 'JobConfigError']);
    expect(store.getState().errors[0]!.message).toMatch(/path under the data folder, got "\/etc\/passwd"/);
    expect(fake.jobs.size).toBe(1);
  });

  it('refuses a trainer that does not answer, saying what was tried and what to do; Save anyway keeps it; a submit to it says so first', async () => {
    const dead = await deadUrl();
    for (const e of store.getState().errors) store.getState().dismissError(e.id);
    expect(await store.getState().saveTrainer({ name: 'off', baseUrl: dead, token: TOKEN })).toBe(false);
    // Said once, at the form (with Save anyway), not as a banner too.
    expect(store.getState().trainerUnreachable).toBe(
      `Trainer "off" at ${dead} did not answer GET /v1/health: connection refused (nothing listens at that port). `
      + 'start it (python3 -m awb_trainer serve) or correct the URL; or save anyway to keep a trainer that is off now');
    expect(store.getState().errors).toEqual([]);
    expect((await workbench.listTrainers({})).map((t) => t.name)).toEqual(['fake']);
    await expect(workbench.saveTrainer({ name: 'ray-off', baseUrl: dead, kind: 'ray', resultsDir: dir }))
      .rejects.toMatchObject({ name: 'TrainerCheckError', message: expect.stringMatching(/did not answer GET \/api\/version: connection refused.*ray start --head/) });

    expect(await store.getState().saveTrainer({ name: 'off', baseUrl: dead, token: TOKEN, saveAnyway: true })).toBe(true);
    expect(store.getState().trainerUnreachable).toBeNull();
    const jobsBefore = (await workbench.listRemoteJobs({})).length;
    const t0 = Date.now();
    await store.getState().submitRemoteJob({ trainer: 'off', kind: 'builtin-sft', split: 'unseen-instance', part: 'train', limit: 2 });
    expect(Date.now() - t0).toBeLessThan(3_000); // not after an upload's retries
    expect(store.getState().errors.at(-1)).toMatchObject({ name: 'TrainerCheckError', message: expect.stringMatching(/^Trainer "off" at .* did not answer GET \/v1\/health: connection refused.*correct the trainer profile/) });
    expect((await workbench.listRemoteJobs({})).length).toBe(jobsBefore);
    await workbench.removeTrainer({ name: 'off' });
  });
});

/** A URL nothing listens at: a port just given up by the OS. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return `http://127.0.0.1:${port}`;
}

describe('jobs view helpers', () => {
  const job = (id: number, status: RemoteJobInfo['status']) => ({ id, status } as RemoteJobInfo);

  it('applies events once per seq, keeps the newest job first, and keys metric rows by step', () => {
    let s = { remoteJobs: [job(1, 'queued')], jobStreams: {} };
    s = applyRemoteJobEvent(s, { type: 'job', job: job(2, 'queued') });
    s = applyRemoteJobEvent(s, { type: 'job', job: job(1, 'running') });
    expect(s.remoteJobs.map((j) => [j.id, j.status])).toEqual([[2, 'queued'], [1, 'running']]);
    s = applyRemoteJobEvent(s, { type: 'log', jobId: 1, seq: 2, time: 0, level: 'info', message: 'a' });
    s = applyRemoteJobEvent(s, { type: 'metric', jobId: 1, seq: 3, time: 0, step: 1, metrics: { 'loss/nll': 2 } });
    s = applyRemoteJobEvent(s, { type: 'log', jobId: 1, seq: 2, time: 0, level: 'info', message: 'a' });
    s = applyRemoteJobEvent(s, { type: 'metric', jobId: 1, seq: 3, time: 0, step: 1, metrics: { 'loss/nll': 2 } });
    expect(s.jobStreams).toEqual({ 1: { lastSeq: 3, logs: [{ seq: 2, time: 0, level: 'info', message: 'a' }], metrics: [{ iteration: 1, metrics: { 'loss/nll': 2 } }] } });
  });

  it('turns the submit form into a request, blank fields meaning defaults, and names a bad field', () => {
    const f: SubmitFormState = { trainer: 't', kind: 'builtin-grpo', name: ' ', split: '', part: '', limit: '4', init: '', epochs: '2', learningRate: '', groupSize: '6' };
    expect(submitRequest(f)).toEqual({ request: { trainer: 't', kind: 'builtin-grpo', config: { epochs: 2 }, split: 'unseen-instance', part: 'train', limit: 4, groupSize: 6 } });
    expect(submitRequest({ ...f, learningRate: '3' })).toEqual({ error: 'Learning rate must be in (0, 1], got "3"' });
    expect(submitRequest({ ...f, groupSize: '1' })).toMatchObject({ error: expect.stringMatching(/Group size must be 2 or more/) });
    expect(submitRequest({ ...f, trainer: '' })).toEqual({ error: 'Add a trainer first.' });
  });

  it('Ctrl+8 is the Jobs view', () => {
    expect(commandForKey({ key: '8', code: 'Digit8', ctrlKey: true, metaKey: false, shiftKey: false, altKey: false })?.name).toBe('go-jobs');
  });
});
