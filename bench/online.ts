/**
 * Online GRPO against a remote trainer (issue 8): where an iteration's time goes.
 *   npm run bench -- online
 * The builtin policy's loop (core/remote-jobs/online.ts) against the real trainer service on loopback:
 * 4 task instances (GRPO_POOL, SFT warm start) × G = 4 rollouts on one embedded SimDroid, one builtin-grpo job per iteration,
 * the returned policy.json loaded for the next. Per iteration: rollouts, upload + submit,
 * the service's run time (startedAt → finishedAt), waiting in its queue, switching (download +
 * load), and what is left: the loop's own overhead (writing the bundle, follow, refresh, metrics).
 * Needs the trainer's venv (.venv, ./scripts/setup); prints why and skips otherwise.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimDroid } from '../emulators/simdroid/simdroid.js';
import { ONLINE_METRIC, runOnlineGrpo } from '../core/remote-jobs/online.js';
import { TrainerProfiles } from '../core/remote-jobs/profiles.js';
import { RemoteJobs } from '../core/remote-jobs/remote.js';
import { openStore } from '../core/store/db.js';
import { listIterationMetrics } from '../core/store/training.js';
import { GRPO_POOL, sftWarmStart } from '../test/helpers/grpo-fixture.js';
import { fastClient, TOKEN } from '../test/jobs/fixture.js';
import { realTrainerAvailability, startRealTrainer } from '../test/jobs/real-service.js';
import { stats } from './stats.js';

const ITERATIONS = 6;

export async function benchOnline(): Promise<Record<string, unknown>> {
  const avail = realTrainerAvailability();
  if (avail.service || avail.torch) {
    const reason = avail.service ?? avail.torch;
    console.log(`skipped: ${reason}`);
    return { skipped: reason };
  }
  const dir = mkdtempSync(join(tmpdir(), 'awb-bench-online-'));
  const service = await startRealTrainer(dir, TOKEN);
  const db = openStore(':memory:');
  try {
    const dataDir = join(dir, 'data');
    new TrainerProfiles(dataDir).put({ name: 'local', baseUrl: service.url, token: TOKEN });
    const jobs = new RemoteJobs({ db, dataDir, clientFor: (p) => fastClient(p.baseUrl, { timeoutMs: 60_000 }) });
    const device = new SimDroid({ serial: 'simdroid-bench-online' });
    let init: string;
    try {
      init = await sftWarmStart(device, dir);
    } finally {
      device.close();
    }
    const t0 = performance.now();
    const result = await runOnlineGrpo({
      trainer: 'local', iterations: ITERATIONS, instances: GRPO_POOL, source: 'GRPO_POOL', groupSize: 4, temperature: 1, maxSteps: 12, seed: 1,
      config: { epochs: 2, minibatchSize: 64, learningRate: 0.01 }, policy: { kind: 'builtin', init },
    }, { jobs, dataDir }, { onLog: (l) => console.log(`  ${l}`) });
    const wall = (performance.now() - t0) / 1000;

    // The first iteration pays for the trainer's first torch import in its job process like every other; none is dropped.
    const rows = listIterationMetrics(db, result.runId).map((r) => r.metrics).filter((m) => m[ONLINE_METRIC.submitted] === 1);
    const col = (name: string) => rows.map((m) => m[name] ?? 0);
    const overhead = rows.map((m) => (m[ONLINE_METRIC.iterationS] ?? 0) - (m[ONLINE_METRIC.rolloutS] ?? 0) - (m[ONLINE_METRIC.uploadS] ?? 0)
      - (m[ONLINE_METRIC.queueS] ?? 0) - (m[ONLINE_METRIC.trainS] ?? 0) - (m[ONLINE_METRIC.switchS] ?? 0));
    const phases = {
      rollouts: stats(col(ONLINE_METRIC.rolloutS)),
      uploadSubmit: stats(col(ONLINE_METRIC.uploadS)),
      queue: stats(col(ONLINE_METRIC.queueS)),
      serviceRun: stats(col(ONLINE_METRIC.trainS)),
      switch: stats(col(ONLINE_METRIC.switchS)),
      loopOverhead: stats(overhead),
      iteration: stats(col(ONLINE_METRIC.iterationS)),
    };
    const s = (x: { median: number; p95: number }) => `median ${x.median.toFixed(3)} s, p95 ${x.p95.toFixed(3)} s`;
    for (const [k, v] of Object.entries(phases)) console.log(`${k.padEnd(20)} ${s(v)}`);
    const success = col(ONLINE_METRIC.success);
    console.log(`${rows.length} submitted iterations of ${ITERATIONS}, wall ${wall.toFixed(1)} s; training success per iteration ${success.map((x) => x.toFixed(2)).join(' ')}`);
    return { iterations: ITERATIONS, submitted: rows.length, rolloutsPerIteration: GRPO_POOL.length * 4, wallS: wall, phases, success };
  } finally {
    db.close();
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
