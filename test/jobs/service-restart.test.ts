import { mkdirSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { TrainerProfiles } from '../../core/remote-jobs/profiles.js';
import { RemoteJobs } from '../../core/remote-jobs/remote.js';
import { openStore } from '../../core/store/db.js';
import { fastClient, scratch, syntheticBundle, TOKEN } from './fixture.js';
import { realTrainerAvailability, startRealTrainer, type RealTrainer } from './real-service.js';

/**
 * Issue 32: a job killed with the trainer service was only reported (failed: interrupted). Its dataset stays on the
 * service, so `awb jobs submit --retry JOB` (RemoteJobs.resubmit) submits it again as a new job that runs to its end.
 */
const avail = realTrainerAvailability();
const skip = avail.service ?? avail.torch;
if (skip) console.log(`skipping the service restart test: ${skip}`);
const tmp = scratch('awb-jobs-restart-');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(skip !== null)('a job killed with its trainer service', () => {
  let service: RealTrainer | null = null;
  afterAll(async () => {
    await service?.stop();
    tmp.cleanup();
  });

  it('is failed interrupted after the restart, and --retry runs it again to the end as a new job', async () => {
    const workdir = tmp.dir();
    const dataDir = tmp.dir();
    mkdirSync(dataDir, { recursive: true });
    service = await startRealTrainer(workdir, TOKEN);
    const db = openStore(':memory:');
    const profiles = new TrainerProfiles(dataDir);
    profiles.put({ name: 'local', baseUrl: service.url, token: TOKEN });
    const remoteJobs = () => new RemoteJobs({ db, dataDir, profiles, clientFor: (p) => fastClient(p.baseUrl) });
    let jobs = remoteJobs();
    const { bundle } = syntheticBundle(tmp.dir(), { steps: 40, seed: 3 });
    // Killed while it runs (a job process spends its first seconds importing torch, already 'running').
    const { job } = await jobs.submit({ trainer: 'local', kind: 'builtin-sft', bundle, config: { epochs: 5, batchSize: 8, learningRate: 0.01, seed: 0 } });
    for (let i = 0; i < 200 && (await jobs.refresh(String(job.id))).row.status !== 'running'; i++) await sleep(100);
    expect(jobs.resolve(String(job.id)).status).toBe('running');

    service.process.kill('SIGKILL');
    await new Promise((r) => service!.process.once('exit', r));
    service = await startRealTrainer(workdir, TOKEN);
    profiles.put({ name: 'local', baseUrl: service.url, token: TOKEN });
    jobs = remoteJobs(); // as the next `awb jobs …` command would: the profile's new port

    const lost = (await jobs.refresh(String(job.id))).row;
    expect(lost).toMatchObject({ status: 'failed', error: { code: 'interrupted', message: expect.stringMatching(/awb jobs submit --retry JOB/) } });
    const again = await jobs.resubmit(String(job.id));
    expect(again.id).not.toBe(job.id);
    expect(again.remoteId).not.toBe(job.remoteId);
    expect(again).toMatchObject({ kind: 'builtin-sft', datasetSha256: bundle.sha256, config: job.config });
    const events = [];
    for await (const ev of jobs.follow(String(again.id))) events.push(ev);
    expect(events.at(-1)).toMatchObject({ type: 'status', status: 'succeeded' });
    // The lost job stays as it ended; a second retry of it is another new job, never a rewrite of it.
    expect(jobs.resolve(String(job.id)).status).toBe('failed');
    await expect(jobs.resubmit(String(again.id))).rejects.toThrow(/is succeeded: only a submission that got no answer, or a job its trainer lost/);
    db.close();
  }, 180_000);
});
