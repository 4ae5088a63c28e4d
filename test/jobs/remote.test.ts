import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RemoteJobNotFoundError, RemoteJobStateError } from '../../core/remote-jobs/errors.js';
import { RemoteJobs } from '../../core/remote-jobs/remote.js';
import { TrainerProfiles } from '../../core/remote-jobs/profiles.js';
import { loadCheckpoint } from '../../core/policy/checkpoint.js';
import { openStore, type WritableDB } from '../../core/store/db.js';
import { dropVersion10 } from '../store/helpers.js';
import { LATEST_VERSION, schemaVersion } from '../../core/store/migrate.js';
import { getRemoteJob, insertRemoteJob, listRemoteJobs, updateRemoteJob } from '../../core/store/remote-jobs.js';
import { startFakeTrainer, type FakeTrainer } from '../helpers/fake-trainer.js';
import { fastClient, scratch, syntheticBundle, TOKEN } from './fixture.js';

const tmp = scratch('awb-jobs-remote-');
let fake: FakeTrainer;
let db: WritableDB;
let dataDir: string;
let jobs: RemoteJobs;

beforeEach(async () => {
  fake = await startFakeTrainer({ token: TOKEN, epochDelayMs: 5 });
  dataDir = tmp.dir();
  db = openStore(':memory:');
  const profiles = new TrainerProfiles(dataDir);
  profiles.put({ name: 'gpu', baseUrl: fake.url, token: TOKEN });
  let key = 0;
  jobs = new RemoteJobs({ db, dataDir, profiles, clientFor: (p) => fastClient(p.baseUrl), newKey: () => `key-${++key}` });
});
afterEach(async () => {
  db.close();
  await fake.close();
  tmp.cleanup();
});

describe('remote_jobs store (migration 0005)', () => {
  it('migrating a version-4 store adds an empty remote_jobs table and keeps its rows', () => {
    const file = join(tmp.dir(), 'old.db');
    const legacy = openStore(file);
    legacy.pragma('user_version = 4');
    // What version 4 did not have yet (versions 5–12: remote jobs, rollouts, usage, step indexes, verdicts, outside
    // agents, step requests, run owners).
    legacy.exec('ALTER TABLE runs DROP COLUMN owner');
    legacy.exec('ALTER TABLE steps DROP COLUMN request');
    dropVersion10(legacy);
    legacy.exec('DROP TABLE remote_jobs; DROP TABLE training_rollouts; ALTER TABLE steps DROP COLUMN completion_tokens; ALTER TABLE steps DROP COLUMN prompt_tokens; DROP INDEX steps_screenshot; DROP INDEX steps_tree; ALTER TABLE episodes DROP COLUMN verdict');
    legacy.exec(`INSERT INTO runs (uid, kind, name, status, created_at) VALUES ('u1', 'suite', 'kept', 'finished', 1)`);
    legacy.close();
    const db2 = openStore(file);
    expect(schemaVersion(db2)).toBe(LATEST_VERSION);
    expect(listRemoteJobs(db2)).toEqual([]);
    expect(db2.prepare('SELECT name FROM runs').pluck().all()).toEqual(['kept']);
    db2.close();
  });

  it('round-trips a record; last_seq only grows and a finished status is not replaced by an older one', () => {
    const j = insertRemoteJob(db, { trainer: 'gpu', idempotencyKey: 'k1', kind: 'builtin-sft', name: 'n', datasetSha256: 'a'.repeat(64), datasetSize: 10, config: { epochs: 2 }, createdAt: 5 });
    expect(j).toMatchObject({ status: 'submitting', remoteId: null, lastSeq: 0, artifacts: [], policyPath: null, config: { epochs: 2 } });
    updateRemoteJob(db, j.id, { remoteId: 'r1', status: 'succeeded', lastSeq: 9, finishedAt: 7 });
    const after = updateRemoteJob(db, j.id, { status: 'running', lastSeq: 3 });
    expect(after).toMatchObject({ status: 'succeeded', lastSeq: 9, remoteId: 'r1', finishedAt: 7 });
    expect(getRemoteJob(db, j.id)).toEqual(after);
    expect(() => insertRemoteJob(db, { trainer: 'gpu', idempotencyKey: 'k1', kind: 'x', name: null, datasetSha256: 'b'.repeat(64), datasetSize: 1, config: {}, createdAt: 6 })).toThrow(/UNIQUE/);
    expect(() => updateRemoteJob(db, j.id, { remoteId: 'r2' })).toThrow(/already has remote id r1/);
  });
});

describe('RemoteJobs against the fake trainer', () => {
  it('submits, follows into the store, downloads and registers a policy that loads', async () => {
    const { bundle, model } = syntheticBundle(tmp.dir(), { steps: 30 });
    const { job } = await jobs.submit({ trainer: 'gpu', kind: 'builtin-sft', bundle, config: { epochs: 4, learningRate: 0.05 }, name: 'tiny' });
    expect(job).toMatchObject({ trainer: 'gpu', idempotencyKey: 'key-1', status: 'queued', datasetSha256: bundle.sha256, name: 'tiny' });
    const types: string[] = [];
    for await (const ev of jobs.follow(String(job.id))) types.push(ev.type);
    expect(types.filter((t) => t === 'metric')).toHaveLength(4);
    const row = jobs.resolve(job.remoteId!);
    expect(row).toMatchObject({ status: 'succeeded', lastSeq: fake.jobs.get(job.remoteId!)!.lastSeq });
    expect(row.finishedAt).not.toBeNull();

    await expect(Promise.resolve().then(() => jobs.registerPolicy(String(job.id)))).rejects.toBeInstanceOf(RemoteJobStateError);
    const dl = await jobs.download(String(job.id));
    expect(dl.artifacts.map((a) => a.name).sort()).toEqual(['metrics.jsonl', 'policy.json']);
    for (const a of dl.artifacts) expect(statSync(a.path).size).toBe(a.size);
    const reg = jobs.registerPolicy(String(job.id));
    expect(reg.policyPath).toBe(join(dataDir, 'policies', `gpu-${job.remoteId}.json`));
    const trained = loadCheckpoint(reg.policyPath!);
    expect(trained.meta).toMatchObject({ trainer: 'fake', epochs: 4 });
    // It trained: the parameters moved away from the init.
    expect(Array.from(trained.model.net.params)).not.toEqual(Array.from(model.net.params));
  });

  it('a record left "submitting" (crash after recording, before the answer) is resubmitted under its key: one job on the service', async () => {
    const { bundle } = syntheticBundle(tmp.dir());
    const first = await jobs.submit({ trainer: 'gpu', kind: 'builtin-sft', bundle, config: { epochs: 1 } });
    // Simulate the crash: the same key recorded again as a fresh 'submitting' row would be — here we rewind the row's state.
    db.prepare(`UPDATE remote_jobs SET status = 'submitting', remote_id = NULL WHERE id = ?`).run(first.job.id);
    const again = await jobs.resubmit(String(first.job.id));
    expect(again.remoteId).toBe(first.job.remoteId);
    expect(fake.jobs.size).toBe(1);
    await expect(jobs.resubmit(String(first.job.id))).rejects.toBeInstanceOf(RemoteJobStateError);
  });

  it('cancel and refresh store the service status; unknown refs and unknown profiles are named errors', async () => {
    const { bundle } = syntheticBundle(tmp.dir());
    const { job } = await jobs.submit({ trainer: 'gpu', kind: 'builtin-sft', bundle, config: { epochs: 400 } });
    for await (const ev of jobs.follow(String(job.id))) if (ev.type === 'metric') break;
    await jobs.cancel(String(job.id));
    for await (const _ of jobs.follow(String(job.id), { resume: true })) void _;
    expect(jobs.resolve(String(job.id)).status).toBe('cancelled');
    await expect(jobs.download(String(job.id))).rejects.toThrow(/is cancelled/);
    expect(() => jobs.resolve('999')).toThrow(RemoteJobNotFoundError);
    expect(() => jobs.client('nope')).toThrow(/Trainer profile "nope": not found \(known: gpu\)/);
  });

  it('the token is kept in the secret store (secrets.json, 0600), not in trainers.json (0600) and nowhere in the store', async () => {
    const { bundle } = syntheticBundle(tmp.dir());
    await jobs.submit({ trainer: 'gpu', kind: 'builtin-sft', bundle, config: { epochs: 1 } });
    const file = join(dataDir, 'trainers.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).not.toContain(TOKEN);
    const secrets = join(dataDir, 'secrets.json');
    expect(statSync(secrets).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(secrets, 'utf8'))).toEqual({ 'trainer:gpu': TOKEN });
    const dump = JSON.stringify(db.prepare('SELECT * FROM remote_jobs').all());
    expect(dump).not.toContain(TOKEN);
    expect(readdirSync(dataDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
