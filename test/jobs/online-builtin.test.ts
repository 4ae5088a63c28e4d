import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { ONLINE_METRIC, runOnlineGrpo, trainerSeed } from '../../core/remote-jobs/online.js';
import { TrainerProfiles } from '../../core/remote-jobs/profiles.js';
import { RemoteJobs } from '../../core/remote-jobs/remote.js';
import { readTar } from '../../core/util/tar.js';
import { loadCheckpoint } from '../../core/policy/checkpoint.js';
import { openStore, type WritableDB } from '../../core/store/db.js';
import { getRun } from '../../core/store/runs.js';
import { listIterationMetrics } from '../../core/store/training.js';
import { GRPO_POOL, sftWarmStart } from '../helpers/grpo-fixture.js';
import { fastClient, scratch, TOKEN } from './fixture.js';
import { realTrainerAvailability, startRealTrainer, type RealTrainer } from './real-service.js';

/**
 * The online GRPO loop with the builtin policy against the real Python trainer service
 * (`python3 -m awb_trainer serve` on loopback): two iterations of rollouts → builtin-grpo job →
 * policy.json loaded as the next iteration's policy, then the last checkpoint registered.
 */
const avail = realTrainerAvailability();
const skip = avail.service ?? avail.torch;
if (skip) console.log(`skipping the online builtin GRPO test: ${skip}`);

const tmp = scratch('awb-online-builtin-');
let service: RealTrainer;
let workdir: string;
let db: WritableDB;

describe.skipIf(skip !== null)('online GRPO, builtin policy, against the real trainer service', () => {
  beforeAll(async () => {
    workdir = tmp.dir();
    service = await startRealTrainer(workdir, TOKEN);
    db = openStore(':memory:');
  });
  afterAll(async () => {
    db?.close();
    await service?.stop();
    tmp.cleanup();
  });

  it('two iterations: two remote jobs, the second bundle starts from the first job\'s policy.json, metrics per iteration, the final checkpoint registered', async () => {
    const dataDir = tmp.dir();
    const profiles = new TrainerProfiles(dataDir);
    profiles.put({ name: 'local', baseUrl: service.url, token: TOKEN });
    const jobs = new RemoteJobs({ db, dataDir, profiles, clientFor: (p) => fastClient(p.baseUrl) });
    const device = new SimDroid({ serial: 'simdroid-online-warm' });
    let init: string;
    try {
      init = await sftWarmStart(device, tmp.dir());
    } finally {
      device.close();
    }
    const lines: string[] = [];
    const result = await runOnlineGrpo({
      trainer: 'local', iterations: 2, instances: GRPO_POOL, source: 'GRPO_POOL', groupSize: 4, temperature: 1, maxSteps: 8, seed: 3,
      config: { epochs: 2, minibatchSize: 16, learningRate: 0.02, klBeta: 0 }, policy: { kind: 'builtin', init },
    }, { jobs, dataDir }, { onLog: (l) => lines.push(l) });

    // two normal remote job records, both succeeded, with the run's iteration in their names
    const rows = jobs.list('local').sort((a, b) => a.id - b.id);
    expect(rows.map((r) => [r.kind, r.status]), lines.join('\n')).toEqual([['builtin-grpo', 'succeeded'], ['builtin-grpo', 'succeeded']]);
    expect(rows.map((r) => r.name)).toEqual([expect.stringMatching(/#1 \(run \d+\)$/), expect.stringMatching(/#2 \(run \d+\)$/)]);
    expect(result.iterations.map((i) => i.job?.remoteId)).toEqual(rows.map((r) => r.remoteId));
    // the builtin-grpo config with the overrides; no seed given, so each update's shuffle seed is drawn from the run seed
    expect(rows.map((r) => r.config)).toEqual([1, 2].map((k) => expect.objectContaining({ epochs: 2, minibatchSize: 16, klBeta: 0, clipEps: 0.2, seed: trainerSeed(3, k) })));
    expect(trainerSeed(3, 1)).not.toBe(trainerSeed(3, 2));

    // the bundles as the service received them: iteration 1 starts from the warm start, iteration 2 from job 1's policy.json
    const bundleOf = (sha: string) => readTar(readFileSync(join(workdir, 'service', 'uploads', sha)));
    const first = rows[0]!.artifacts.find((a) => a.name === 'policy.json')!;
    expect(bundleOf(rows[0]!.datasetSha256).get('init/policy.json')!.toString('utf8')).toBe(readFileSync(init, 'utf8'));
    expect(bundleOf(rows[1]!.datasetSha256).get('init/policy.json')!.toString('utf8')).toBe(readFileSync(first.path, 'utf8'));
    expect(result.iterations[0]!.policy).toBe(first.path);

    // one metrics row per iteration in one training run, which finished
    const run = getRun(db, result.runId);
    expect(run).toMatchObject({ kind: 'training', status: 'finished', config: { loop: 'online-grpo', remoteTrainer: 'local', policy: { kind: 'builtin', init } } });
    const metrics = listIterationMetrics(db, result.runId);
    expect(metrics.map((m) => m.iteration)).toEqual([1, 2]);
    for (const [k, m] of metrics.entries()) {
      expect(m.metrics[ONLINE_METRIC.submitted]).toBe(1);
      expect(m.metrics[ONLINE_METRIC.job]).toBe(rows[k]!.id);
      expect(m.metrics[ONLINE_METRIC.success]).toBeGreaterThanOrEqual(0);
      expect(m.metrics[ONLINE_METRIC.groupsSkipped]).toBeLessThan(GRPO_POOL.length);
      expect(m.metrics[ONLINE_METRIC.uploadS]).toBeGreaterThan(0);
      expect(m.metrics[ONLINE_METRIC.trainS]).toBeGreaterThanOrEqual(0);
      expect(m.metrics[ONLINE_METRIC.iterationS]).toBeGreaterThan(0);
      expect(m.metrics['trainer/loss/policy']).toEqual(expect.any(Number));
    }

    // the last job's checkpoint is registered where awb eval and the Agent view find it, and loads
    expect(result.finalPolicy).toBe(join(dataDir, 'policies', `local-${rows[1]!.remoteId}.json`));
    expect(jobs.resolve(String(rows[1]!.id)).policyPath).toBe(result.finalPolicy);
    const final = loadCheckpoint(result.finalPolicy);
    expect(Array.from(final.model.net.params)).not.toEqual(Array.from(loadCheckpoint(first.path).model.net.params));
  }, 120_000);
});
