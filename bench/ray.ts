/**
 * Ray jobs (issue 17): one small builtin-sft round trip on a real Ray head against the same on the trainer service,
 * measured in one run, rounds alternating between the two (same machine, same load).
 *   npm run bench -- ray
 * A round: upload (the service: the bundle; Ray: nothing yet) → submit (Ray: pack + PUT the package + POST) → follow to
 * succeeded → artifacts listed and policy.json fetched, verified (the service: downloaded; Ray: copied from the results
 * folder). Both through the JobBackend interface RemoteJobs uses. The head: 1 CPU, loopback (test/jobs/ray-head.ts).
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JobBackend } from '../core/remote-jobs/backend.js';
import { RayJobsClient } from '../core/remote-jobs/ray.js';
import { fastClient, syntheticBundle, TOKEN } from '../test/jobs/fixture.js';
import { startRayHead } from '../test/jobs/ray-head.js';
import { startRealTrainer } from '../test/jobs/real-service.js';
import { stats, type Stats } from './stats.js';

const ms = (s: Stats) => `median ${s.median.toFixed(0)} ms, p95 ${s.p95.toFixed(0)} ms (n=${s.n})`;

interface Round { total: number; submit: number; follow: number; fetch: number; run: number }

async function roundTrip(backend: JobBackend, dir: string, seed: number): Promise<Round> {
  const { bundle } = syntheticBundle(dir, { steps: 40, seed });
  const t0 = performance.now();
  await backend.upload(bundle.file, bundle.sha256);
  const { job } = await backend.submit({ idempotencyKey: randomUUID(), kind: 'builtin-sft', dataset: bundle.sha256, config: { epochs: 1, batchSize: 40, learningRate: 0.01, seed: 0 } });
  const t1 = performance.now();
  for await (const ev of backend.events(job.id)) void ev;
  const t2 = performance.now();
  const done = await backend.getJob(job.id);
  if (done.status !== 'succeeded') throw new Error(`bench job ${job.id} ended ${done.status}: ${JSON.stringify(done.error)}`);
  const policy = (await backend.artifacts(done)).find((a) => a.name === 'policy.json')!;
  await backend.download(job.id, policy, join(dir, `policy-${seed}.json`));
  const t3 = performance.now();
  return { total: t3 - t0, submit: t1 - t0, follow: t2 - t1, fetch: t3 - t2, run: done.finishedAt! - done.startedAt! };
}

export async function benchRay(): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-ray-'));
  const results = join(dir, 'results');
  mkdirSync(results);
  const h0 = performance.now();
  const head = await startRayHead();
  const headS = (performance.now() - h0) / 1000;
  console.log(`Ray head (1 CPU) ready in ${head.startupS} s (${headS.toFixed(1)} s with the helper)`);
  const service = await startRealTrainer(dir, TOKEN);
  try {
    const backends: Record<string, JobBackend> = {
      service: fastClient(service.url, { timeoutMs: 60_000 }),
      // The default 1 s poll is what a user gets; 250 ms here shows how much of the follow the poll is.
      ray: new RayJobsClient({ baseUrl: head.dashboard, resultsDir: results, gpus: 0, pollMs: 250 }),
    };
    const rounds: Record<string, Round[]> = { service: [], ray: [] };
    const N = 7;
    for (let i = 0; i < N; i++) {
      for (const [name, backend] of Object.entries(backends)) {
        const r = await roundTrip(backend, dir, 100 + i);
        if (i > 0) rounds[name]!.push(r); // the first round of each warms the OS file cache (torch's files)
      }
    }
    const out: Record<string, Record<string, Stats>> = {};
    for (const [name, rs] of Object.entries(rounds)) {
      out[name] = Object.fromEntries((['total', 'submit', 'follow', 'fetch', 'run'] as const).map((k) => [k, stats(rs.map((r) => r[k]))]));
      for (const [k, s] of Object.entries(out[name]!)) console.log(`${name.padEnd(8)} ${k.padEnd(7)} ${ms(s)}`);
    }
    return { headStartS: head.startupS, headStartWithHelperS: headS, ...out };
  } finally {
    await service.stop();
    await head.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
