/**
 * Remote jobs (issue 8): the job client against the real trainer service on loopback.
 *   npm run bench -- jobs
 * Round trip of a small builtin-sft job (bundle upload → submit → follow to succeeded → download
 * policy.json, verified), split into client-side phases, and the service's own run time (startedAt →
 * finishedAt) so the overhead of the protocol and the queue shows; then upload throughput for a
 * 32 MiB bundle in 4 MiB chunks and the time to build an SFT bundle from SimDroid demonstrations.
 * Needs the trainer's venv (.venv, ./scripts/setup); prints why and skips otherwise.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prepareBundle } from '../core/remote-jobs/prepare.js';
import { createRng } from '../core/util/rng.js';
import { fastClient, syntheticBundle, TOKEN } from '../test/jobs/fixture.js';
import { realTrainerAvailability, startRealTrainer } from '../test/jobs/real-service.js';
import { stats, type Stats } from './stats.js';

const ms = (s: Stats) => `median ${s.median.toFixed(1)} ms, p95 ${s.p95.toFixed(1)} ms (n=${s.n})`;

export async function benchJobs(): Promise<Record<string, unknown>> {
  const avail = realTrainerAvailability();
  if (avail.service || avail.torch) {
    const reason = avail.service ?? avail.torch;
    console.log(`skipped: ${reason}`);
    return { skipped: reason };
  }
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-jobs-'));
  const service = await startRealTrainer(dir, TOKEN);
  try {
    const client = fastClient(service.url, { timeoutMs: 60_000 });
    const phases = { upload: [] as number[], submit: [] as number[], follow: [] as number[], download: [] as number[], total: [] as number[], serviceRun: [] as number[], overhead: [] as number[] };
    const N = 12;
    for (let i = 0; i < N; i++) {
      // A distinct small bundle per job (40 steps, ~25 KiB), so every round includes a real upload.
      const { bundle } = syntheticBundle(dir, { steps: 40, seed: 100 + i });
      const t0 = performance.now();
      await client.upload(bundle.file, bundle.sha256);
      const t1 = performance.now();
      const { job } = await client.submit({ idempotencyKey: randomUUID(), kind: 'builtin-sft', dataset: bundle.sha256, config: { epochs: 1, batchSize: 40, learningRate: 0.01, seed: 0 } });
      const t2 = performance.now();
      for await (const ev of client.events(job.id)) void ev;
      const t3 = performance.now();
      const done = await client.getJob(job.id);
      if (done.status !== 'succeeded') throw new Error(`bench job ${job.id} ended ${done.status}: ${JSON.stringify(done.error)}`);
      const policy = done.artifacts.find((a) => a.name === 'policy.json')!;
      await client.download(job.id, policy, join(dir, `policy-${i}.json`));
      const t4 = performance.now();
      if (i === 0) continue; // warm-up: Python imports torch on the first job
      const run = (done.finishedAt! - done.startedAt!);
      phases.upload.push(t1 - t0);
      phases.submit.push(t2 - t1);
      phases.follow.push(t3 - t2);
      phases.download.push(t4 - t3);
      phases.total.push(t4 - t0);
      phases.serviceRun.push(run);
      phases.overhead.push(t4 - t0 - run);
    }
    const roundTrip = Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, stats(v)]));
    for (const [k, s] of Object.entries(roundTrip)) console.log(`round trip ${k.padEnd(10)} ${ms(s)}`);

    // upload throughput: 32 MiB of seeded bytes (the service stores any upload; only jobs parse bundles)
    const rng = createRng('bench/jobs/upload');
    const big = Buffer.alloc(32 * 1024 * 1024);
    for (let i = 0; i < big.length; i += 4) big.writeUInt32LE(Math.floor(rng.next() * 2 ** 32), i);
    const bigFile = join(dir, 'big.bin');
    writeFileSync(bigFile, big);
    const sha = createHash('sha256').update(big).digest('hex');
    const u0 = performance.now();
    await client.upload(bigFile, sha);
    const uploadS = (performance.now() - u0) / 1000;
    const uploadMiBs = 32 / uploadS;
    console.log(`upload 32 MiB in 4 MiB chunks: ${uploadS.toFixed(2)} s (${uploadMiBs.toFixed(0)} MiB/s)`);

    // bundle building: SFT demonstrations of 8 instances on an embedded SimDroid
    const b0 = performance.now();
    const prepared = await prepareBundle({ kind: 'builtin-sft', file: join(dir, 'sft.tar'), createdAt: Date.now(), limit: 8, seed: 0 });
    const buildMs = performance.now() - b0;
    console.log(`SFT bundle of 8 instances: ${prepared.bundle.manifest.counts.steps} steps, ${(prepared.bundle.size / 1024).toFixed(0)} KiB in ${buildMs.toFixed(0)} ms`);
    return { roundTrip, upload32MiB: { seconds: uploadS, mibPerS: uploadMiBs }, sftBundle8: { steps: prepared.bundle.manifest.counts.steps, bytes: prepared.bundle.size, ms: buildMs } };
  } finally {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
