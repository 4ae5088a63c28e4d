import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ArtifactChecksumError, TrainerHttpError, TrainerUnreachableError } from '../../core/remote-jobs/errors.js';
import type { JobEvent } from '../../core/remote-jobs/protocol.js';
import { readTar } from '../../core/util/tar.js';
import { deserializeCheckpoint } from '../../core/policy/checkpoint.js';
import { startFakeTrainer, type FakeTrainer } from '../helpers/fake-trainer.js';
import { fastClient, scratch, syntheticBundle, TOKEN } from './fixture.js';
import { startCuttingProxy, type CuttingProxy } from './proxy.js';

let fake: FakeTrainer;
let proxy: CuttingProxy;
const tmp = scratch('awb-jobs-client-');

beforeEach(async () => {
  fake = await startFakeTrainer({ token: TOKEN, epochDelayMs: 15 });
  proxy = await startCuttingProxy(fake.port);
});
afterEach(async () => {
  await proxy.close();
  await fake.close();
  tmp.cleanup();
});

const uploaded = (sha: string) => Buffer.concat(fake.uploads.get(sha)?.bytes ?? []);

async function submitted(client = fastClient(proxy.url), kind: 'builtin-sft' | 'builtin-grpo' = 'builtin-sft', epochs = 6) {
  const { bundle } = syntheticBundle(tmp.dir(), { kind });
  await client.upload(bundle.file, bundle.sha256);
  const { job } = await client.submit({ idempotencyKey: randomUUID(), kind, dataset: bundle.sha256, config: { epochs, learningRate: 0.05 } });
  return { bundle, job };
}

describe('dataset bundle', () => {
  it('is a ustar file that tar and readTar both read, with the manifest first', () => {
    const { bundle, init } = syntheticBundle(tmp.dir(), { steps: 12 });
    const bytes = readFileSync(bundle.file);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(bundle.sha256);
    expect(bytes.length % 512).toBe(0);
    const files = readTar(bytes);
    expect([...files.keys()]).toEqual(['manifest.json', 'steps.jsonl', 'init/policy.json']);
    expect(JSON.parse(files.get('manifest.json')!.toString())).toMatchObject({ format: 'awb-bundle', version: 1, kind: 'builtin-sft', counts: { steps: 12 } });
    expect(files.get('init/policy.json')!.toString()).toBe(init);
    expect(files.get('steps.jsonl')!.toString().trim().split('\n')).toHaveLength(12);
    // An independent reader: GNU/BSD tar lists the same entries.
    let listed: string[] | null = null;
    try {
      listed = execFileSync('tar', ['-tf', bundle.file], { encoding: 'utf8' }).trim().split('\n');
    } catch {
      console.log('tar(1) not available: the independent listing is skipped');
    }
    if (listed) expect(listed).toEqual(['manifest.json', 'steps.jsonl', 'init/policy.json']);
  });
});

describe('TrainerClient against the fake trainer', () => {
  it('reads health, and a wrong token is a 401 TrainerHttpError whose message does not carry the token', async () => {
    expect(await fastClient(fake.url).health()).toMatchObject({ service: 'awb-trainer', kinds: ['builtin-sft', 'builtin-grpo'] });
    const bad = fastClient(fake.url, { token: 'wrong-secret-value' });
    const err = await bad.health().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrainerHttpError);
    expect(err).toMatchObject({ status: 401, code: 'unauthorized' });
    expect((err as Error).message).not.toContain('wrong-secret-value');
  });

  it('uploads in chunks, resumes from the server offset after a connection cut mid-chunk, and does not resend a complete bundle', async () => {
    const { bundle } = syntheticBundle(tmp.dir(), { steps: 60 });
    const client = fastClient(proxy.url, { chunkBytes: 16 * 1024 });
    // Cut the second PUT 5,000 bytes into its body (headers are ~250 bytes).
    proxy.cut({ direction: 'up', afterBytes: 5_000, match: `bytes ${16 * 1024}-` });
    const r = await client.upload(bundle.file, bundle.sha256);
    expect(proxy.cuts).toBe(1);
    expect(r).toMatchObject({ size: bundle.size, resumedFrom: 0, reconnects: 1 });
    expect(uploaded(bundle.sha256).equals(readFileSync(bundle.file))).toBe(true);
    expect(fake.uploads.get(bundle.sha256)!.complete).toBe(true);
    const puts = fake.counts.get('PUT /v1/uploads')!;
    const again = await client.upload(bundle.file, bundle.sha256);
    expect(again.resumedFrom).toBe(bundle.size);
    expect(fake.counts.get('PUT /v1/uploads')).toBe(puts);
  });

  it('a bundle whose bytes do not match its name is refused with checksum_mismatch', async () => {
    const { bundle } = syntheticBundle(tmp.dir());
    const wrong = createHash('sha256').update('something else').digest('hex');
    const err = await fastClient(fake.url).upload(bundle.file, wrong).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'TrainerHttpError', status: 422, code: 'checksum_mismatch' });
    expect(fake.uploads.has(wrong)).toBe(false);
  });

  it('submission is idempotent: a lost response is retried under the same key and the service keeps one job', async () => {
    const { bundle } = syntheticBundle(tmp.dir());
    const client = fastClient(proxy.url);
    await client.upload(bundle.file, bundle.sha256);
    const req = { idempotencyKey: randomUUID(), kind: 'builtin-sft', dataset: bundle.sha256, config: { epochs: 2 } };
    // The POST reaches the service, its answer is cut: the job exists, the client does not know.
    proxy.cut({ direction: 'down', afterBytes: 10, match: 'POST /v1/jobs' });
    const first = await client.submit(req);
    expect(proxy.cuts).toBe(1);
    expect(fake.counts.get('POST /v1/jobs')).toBe(2);
    expect(first.created).toBe(false);
    expect(fake.jobs.size).toBe(1);
    const again = await client.submit(req);
    expect(again.job.id).toBe(first.job.id);
    const conflict = await client.submit({ ...req, config: { epochs: 3 } }).catch((e: unknown) => e);
    expect(conflict).toMatchObject({ name: 'TrainerHttpError', status: 409, code: 'conflict' });
    expect(fake.jobs.size).toBe(1);
  });

  it('follows events through a stream cut mid-line: every seq once, in order, ending at the final status', async () => {
    const client = fastClient(proxy.url);
    const { job } = await submitted(client, 'builtin-sft', 8);
    proxy.cut({ direction: 'down', afterBytes: 700, match: 'GET /v1/jobs/' });
    const reconnects: number[] = [];
    const seen: JobEvent[] = [];
    for await (const ev of client.events(job.id, { onReconnect: (seq) => reconnects.push(seq) })) seen.push(ev);
    expect(proxy.cuts).toBe(1);
    expect(reconnects.length).toBeGreaterThanOrEqual(1);
    expect(reconnects[0]).toBeGreaterThan(0);
    const final = fake.jobs.get(job.id)!;
    expect(seen.map((e) => e.seq)).toEqual(Array.from({ length: final.lastSeq }, (_, i) => i + 1));
    expect(seen.at(-1)).toMatchObject({ type: 'status', status: 'succeeded' });
    expect(seen.filter((e) => e.type === 'metric')).toHaveLength(8);
  });

  it('resumes events after a given seq', async () => {
    const client = fastClient(fake.url);
    const { job } = await submitted(client, 'builtin-sft', 3);
    const all: JobEvent[] = [];
    for await (const ev of client.events(job.id)) all.push(ev);
    const tail: JobEvent[] = [];
    for await (const ev of client.events(job.id, { after: 4 })) tail.push(ev);
    expect(tail).toEqual(all.slice(4));
  });

  it('downloads an artifact through a cut with a Range request, verified by sha256', async () => {
    const client = fastClient(proxy.url);
    const { job } = await submitted(client, 'builtin-grpo', 2);
    for await (const _ of client.events(job.id)) void _;
    const done = await client.getJob(job.id);
    const policy = done.artifacts.find((a) => a.name === 'policy.json')!;
    proxy.cut({ direction: 'down', afterBytes: 2_000, match: '/artifacts/policy.json' });
    const dest = join(tmp.dir(), 'policy.json');
    const r = await client.download(job.id, policy, dest);
    expect(proxy.cuts).toBe(1);
    expect(createHash('sha256').update(readFileSync(dest)).digest('hex')).toBe(policy.sha256);
    expect(existsSync(`${dest}.partial`)).toBe(false);
    expect(r.size).toBe(policy.size);
    expect(deserializeCheckpoint(readFileSync(dest, 'utf8')).meta).toMatchObject({ trainer: 'fake', job: job.id });
  });

  it('a download whose bytes do not hash to the record is deleted and thrown as ArtifactChecksumError', async () => {
    const client = fastClient(fake.url);
    const { job } = await submitted(client, 'builtin-sft', 1);
    for await (const _ of client.events(job.id)) void _;
    const done = await client.getJob(job.id);
    const policy = done.artifacts.find((a) => a.name === 'policy.json')!;
    const f = fake.jobs.get(job.id)!.files;
    const bytes = Buffer.from(f.get('policy.json')!);
    bytes[10] = bytes[10]! ^ 1;
    f.set('policy.json', bytes);
    const dest = join(tmp.dir(), 'policy.json');
    const err = await client.download(job.id, policy, dest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ArtifactChecksumError);
    expect(err).toMatchObject({ jobId: job.id, artifact: 'policy.json', expected: policy.sha256 });
    expect(existsSync(dest)).toBe(false);
    expect(existsSync(`${dest}.partial`)).toBe(false);
  });

  it('cancels a running job at the next epoch boundary; cancel of a finished job leaves it', async () => {
    const client = fastClient(fake.url);
    const { job } = await submitted(client, 'builtin-sft', 500);
    for await (const ev of client.events(job.id)) {
      if (ev.type === 'metric') break;
    }
    await client.cancel(job.id);
    const statuses: string[] = [];
    for await (const ev of client.events(job.id)) if (ev.type === 'status') statuses.push(ev.status);
    expect(statuses.at(-1)).toBe('cancelled');
    expect((await client.cancel(job.id)).status).toBe('cancelled');
    expect((await client.getJob(job.id)).artifacts).toEqual([]);
  });

  it('an unknown job is a 404 carrying the job id; a closed port is TrainerUnreachableError after the retries', async () => {
    const err = await fastClient(fake.url).getJob('nope').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'TrainerHttpError', status: 404, code: 'not_found', jobId: 'nope' });
    const port = fake.port;
    await proxy.close();
    await fake.close();
    const down = await fastClient(`http://127.0.0.1:${port}`, { retries: 2 }).health().catch((e: unknown) => e);
    expect(down).toBeInstanceOf(TrainerUnreachableError);
    expect(down).toMatchObject({ attempts: 3 });
    // restart so afterEach can close them
    fake = await startFakeTrainer({ token: TOKEN });
    proxy = await startCuttingProxy(fake.port);
  });
});
