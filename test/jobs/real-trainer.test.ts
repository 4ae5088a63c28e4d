import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TrainerHttpError } from '../../core/remote-jobs/errors.js';
import { prepareBundle } from '../../core/remote-jobs/prepare.js';
import { TrainerProfiles } from '../../core/remote-jobs/profiles.js';
import type { JobEvent } from '../../core/remote-jobs/protocol.js';
import { RemoteJobs } from '../../core/remote-jobs/remote.js';
import { deserializeCheckpoint, loadCheckpoint } from '../../core/policy/checkpoint.js';
import { readTar } from '../../core/util/tar.js';
import { openStore, type WritableDB } from '../../core/store/db.js';
import { fastClient, scratch, syntheticBundle, TOKEN } from './fixture.js';
import { startCuttingProxy, type CuttingProxy } from './proxy.js';
import { realTrainerAvailability, startRealTrainer, type RealTrainer } from './real-service.js';

/**
 * The job client against the real Python service (resources/trainer, `python3 -m awb_trainer serve`)
 * on loopback, through a TCP proxy that cuts connections: uploads, idempotent submissions, events and
 * downloads. Training (a tiny builtin-sft on real oracle demonstrations, a tiny builtin-grpo) needs
 * torch; without it those tests are skipped with the reason printed, and the transport tests still run.
 */
const avail = realTrainerAvailability();
if (avail.service) console.log(`skipping the real trainer tests: ${avail.service}`);
else if (avail.torch) console.log(`skipping the real trainer's training jobs (transport tests still run): ${avail.torch}`);

const tmp = scratch('awb-jobs-real-');
let service: RealTrainer;
let proxy: CuttingProxy;

describe.skipIf(avail.service !== null)('job client against the real trainer service', () => {
  beforeAll(async () => {
    service = await startRealTrainer(tmp.dir(), TOKEN);
    proxy = await startCuttingProxy(service.port);
  });
  afterAll(async () => {
    await proxy?.close();
    await service?.stop();
    tmp.cleanup();
  });

  it('health, and an upload cut mid-chunk resumes from the service offset to a complete, verified bundle', async () => {
    const client = fastClient(proxy.url, { chunkBytes: 32 * 1024 });
    const health = await client.health();
    expect(health.service).toBe('awb-trainer');
    const { bundle } = syntheticBundle(tmp.dir(), { steps: 80, seed: 1 });
    proxy.cut({ direction: 'up', afterBytes: 9_000, match: `bytes ${32 * 1024}-` });
    const r = await client.upload(bundle.file, bundle.sha256);
    expect(proxy.cuts).toBe(1);
    expect(r.reconnects).toBe(1);
    expect(await client.uploadStatus(bundle.sha256)).toEqual({ offset: bundle.size, complete: true });
    const wrong = createHash('sha256').update('x').digest('hex');
    await expect(client.upload(bundle.file, wrong)).rejects.toMatchObject({ status: 422, code: 'checksum_mismatch' });
    if (avail.torch) {
      // Without torch the service refuses builtin kinds by name, and the client reports it as such.
      const err = await client.submit({ idempotencyKey: randomUUID(), kind: 'builtin-sft', dataset: bundle.sha256, config: {} }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TrainerHttpError);
      expect(err).toMatchObject({ status: 422, code: 'unsupported_kind' });
      expect(health.kinds).not.toContain('builtin-sft');
    }
  });

  describe.skipIf(avail.torch !== null)('training jobs (torch)', () => {
    let db: WritableDB;
    let jobs: RemoteJobs;
    let dataDir: string;
    beforeAll(() => {
      dataDir = tmp.dir();
      db = openStore(':memory:');
      const profiles = new TrainerProfiles(dataDir);
      profiles.put({ name: 'local', baseUrl: proxy.url, token: TOKEN });
      jobs = new RemoteJobs({ db, dataDir, profiles, clientFor: (p) => fastClient(p.baseUrl, { chunkBytes: 64 * 1024 }) });
    });
    afterAll(() => db?.close());

    async function endToEnd(kind: 'builtin-sft' | 'builtin-grpo', bundle: { file: string; sha256: string; size: number }, config: Record<string, unknown>) {
      const cutsBefore = proxy.cuts;
      proxy.cut({ direction: 'up', afterBytes: 20_000, match: 'PUT /v1/uploads' });
      const { job, upload } = await jobs.submit({ trainer: 'local', kind, bundle, config, name: `tiny ${kind}` });
      expect(upload.reconnects).toBe(1);
      proxy.cut({ direction: 'down', afterBytes: 900, match: '/events?after=0' });
      const seen: JobEvent[] = [];
      const reconnects: number[] = [];
      for await (const ev of jobs.follow(String(job.id), { onReconnect: (seq) => reconnects.push(seq) })) seen.push(ev);
      expect(proxy.cuts).toBe(cutsBefore + 2);
      expect(reconnects).toHaveLength(1);
      expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
      const last = seen.at(-1)!;
      expect(last, JSON.stringify(seen.filter((e) => e.type !== 'metric'))).toMatchObject({ type: 'status', status: 'succeeded' });
      expect(seen.some((e) => e.type === 'metric')).toBe(true);
      const dl = await jobs.download(String(job.id));
      expect(dl.artifacts.map((a) => a.name)).toContain('policy.json');
      const reg = jobs.registerPolicy(String(job.id));
      expect(reg.policyPath).toBe(join(dataDir, 'policies', `local-${job.remoteId}.json`));
      return loadCheckpoint(reg.policyPath!);
    }

    it('a tiny builtin-sft on real oracle demonstrations: cut upload, cut log stream, download, register, load', async () => {
      const p = await prepareBundle({ kind: 'builtin-sft', file: join(tmp.dir(), 'sft.tar'), createdAt: Date.now(), limit: 3, seed: 0 });
      const trained = await endToEnd('builtin-sft', p.bundle, { epochs: 20, batchSize: 8, learningRate: 0.02, seed: 0 });
      const init = deserializeCheckpoint(readTar(readFileSync(p.bundle.file)).get('init/policy.json')!.toString('utf8'));
      expect(trained.model.net.dims).toEqual(init.model.net.dims);
      expect(Array.from(trained.model.net.params)).not.toEqual(Array.from(init.model.net.params));
    }, 120_000);

    it('a tiny builtin-grpo on workbench advantages: the same path, and the weights move', async () => {
      const { bundle, model } = syntheticBundle(tmp.dir(), { kind: 'builtin-grpo', steps: 48, seed: 2 });
      const trained = await endToEnd('builtin-grpo', bundle, { epochs: 2, minibatchSize: 16, learningRate: 0.01, klBeta: 0, seed: 0 });
      expect(Array.from(trained.model.net.params)).not.toEqual(Array.from(model.net.params));
    }, 120_000);
  });
});
