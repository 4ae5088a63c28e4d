import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../../core/api/ws/server.js';
import { TransformerModel } from '../../core/policy/transformer/model.js';
import { appTestTemplates, resolveAdaptApp } from '../../core/rl/adapt-instances.js';
import { parseTrainConfig } from '../../core/rl/config.js';
import { RolloutRecording } from '../../core/rl/rollout-recording.js';
import { TransformerAdaptConfigSchema, adaptTransformer } from '../../core/rl/transformer-adapt.js';
import { trainTransformerGrpo } from '../../core/rl/transformer-grpo.js';
import { runTransformerRollouts, type TransformerRollout } from '../../core/rl/transformer-rollouts.js';
import { RemoteServers } from '../../core/rollout/remote/servers.js';
import { RolloutHost } from '../../core/rollout/remote/serve.js';
import { RolloutWorkerPool } from '../../core/rollout/rollout-workers.js';
import type { RolloutJob } from '../../core/rollout/rollouts.js';
import { createRun, loadTrajectory, openStore, type EpisodeId, type RunId, type StoredStep, type WritableDB } from '../../core/store/index.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { scratch } from '../helpers/scratch.js';
import { device } from '../helpers/simdroid.js';
import { TINY_TRANSFORMER_TEMPLATES, tinyTransformerModel } from '../helpers/transformer-fixture.js';

/**
 * The transformer policy's GRPO and adaptation rollouts in the trajectory store (docs/policy-transformer.md), recorded
 * through the one RolloutRecording the builtin policy's runs use: in process, on worker threads and on a rollout
 * server, each stored episode is the rollout the loop learned from, step by step, with the policy's probabilities.
 */
const tmp = scratch('awb-tf-record-');
let model: string;
beforeAll(async () => {
  model = await tinyTransformerModel(join(tmp.dir(), 'sft'));
}, 120_000);
afterAll(() => tmp.cleanup());

interface RolloutRow { episode_id: EpisodeId; iteration: number; g: number; k: number; reward: number | null; advantage: number | null }

const loadSteps = (db: WritableDB, id: EpisodeId): StoredStep[] => loadTrajectory(db, id).steps;

const rolloutRows = (db: WritableDB, runId: RunId): RolloutRow[] => db.prepare(`SELECT r.episode_id, r.iteration, r.group_index AS g, r.rollout_index AS k,
  r.reward, r.advantage FROM training_rollouts r JOIN episodes e ON e.id = r.episode_id WHERE e.run_id = ? ORDER BY r.iteration, g, k`).all(runId) as RolloutRow[];

/** Every stored step carries the policy's candidates with their own probabilities (a distribution's top, summing to ≤ 1). */
function expectProbabilities(db: WritableDB, id: EpisodeId): void {
  const steps = loadSteps(db, id);
  expect(steps.length).toBeGreaterThan(0);
  for (const s of steps.filter((x) => !x.error)) {
    expect(s.candidates?.length).toBeGreaterThan(0);
    const p = s.candidates!.map((c) => c.probability!);
    expect(p.every((x) => x > 0 && x <= 1)).toBe(true);
    expect(p.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1 + 1e-9);
  }
}

describe('recorded transformer rollouts', () => {
  it('in process, on worker threads and on a rollout server, each stored episode has its rollout\'s steps', async () => {
    const m = await TransformerModel.load(model);
    const d = device();
    const host = new RolloutHost({ limit: 2, log: () => {} });
    const server = await serve({ api: {}, port: 0, staticDir: tmp.dir(), rollout: host });
    const threads = await RolloutWorkerPool.start({ workers: 2 });
    const remote = await RolloutWorkerPool.start({ workers: 2, remote: new RemoteServers([{ url: server.rolloutUrl, capacity: 2 }]) });
    const db = openStore(':memory:');
    try {
      const jobs: RolloutJob[] = TINY_TRANSFORMER_TEMPLATES.flatMap((t, g) => [0, 1].map((k) => ({
        group: g, rollout: k, instance: instantiate(getTemplate(t), 5), rngKey: `record/${g}/${k}`,
      })));
      const places = [['in process', [d]], ['threads', threads], ['remote', remote]] as const;
      for (const [i, [where, on]] of places.entries()) {
        const run = createRun(db, { kind: 'training', name: where, config: {} });
        const recording = new RolloutRecording(db, run.id, { keepEvery: 1, keepSuccesses: true }, 1);
        const rollouts: TransformerRollout[] = await runTransformerRollouts(on, jobs, { model: m, temperature: 1, maxSteps: 6, recorder: (job) => recording.recorder(i + 1, job) });
        const rows = rolloutRows(db, run.id);
        expect(rows.map((r) => `${r.iteration}/${r.g}/${r.k}`), where).toEqual(jobs.map((j) => `${i + 1}/${j.group}/${j.rollout}`));
        for (const r of rollouts) {
          const id = recording.episodeId(i + 1, r.job)!;
          expect(id, where).not.toBeNull();
          const stored = loadSteps(db, id);
          expect(stored.map((s) => s.action), `${where} ${r.job.rngKey}`).toEqual(r.result.steps.map((s) => s.action));
          expect(stored.map((s) => s.candidates), `${where} ${r.job.rngKey}`).toEqual(r.result.steps.map((s) => s.candidates));
          expect(stored.length).toBeGreaterThan(0);
          // the policy's records are one per step it took (a malformed step has none)
          expect(r.records.length).toBe(stored.filter((s) => !s.error).length);
          expectProbabilities(db, id);
        }
        const status = db.prepare('SELECT status, policy FROM episodes WHERE run_id = ?').all(run.id) as Array<{ status: string; policy: string }>;
        expect(status.map((s) => s.status).sort(), where).toEqual(rollouts.map((r) => r.result.status).sort());
        expect(new Set(status.map((s) => s.policy))).toEqual(new Set(rollouts.map((r) => r.result.policy)));
      }
    } finally {
      await threads.close();
      await remote.close();
      await server.close();
      await host.close();
      await m.close();
      d.close();
      db.close();
    }
  }, 60_000);

  it('a GRPO run records every rollout under its run with its iteration, group, reward and advantage', async () => {
    const db = openStore(':memory:');
    const config = parseTrainConfig({
      init: model, iterations: 2, instancesPerIteration: 2, rolloutsPerInstance: 2, devices: 2, rolloutWorkers: 0, maxSteps: 6,
      curriculum: { mode: 'none' }, advantage: { zeroStdGroups: 'keep' },
    });
    const instances = TINY_TRANSFORMER_TEMPLATES.map((t) => instantiate(getTemplate(t), 4));
    const r = await trainTransformerGrpo({ config, outDir: join(tmp.dir(), 'grpo'), instances, db, recordEpisodes: true });
    expect(r.stoppedBy).toBe('done');
    const rows = rolloutRows(db, r.runId!);
    expect(rows).toHaveLength(2 * 2 * 2);
    expect(rows.map((x) => x.iteration)).toEqual([1, 1, 1, 1, 2, 2, 2, 2]);
    for (const x of rows) {
      expect([0, 1]).toContain(x.reward);
      expect(Number.isFinite(x.advantage)).toBe(true);
      expectProbabilities(db, x.episode_id);
    }
    // the recorded steps are the ones the update learned from: each iteration's batch counts them (zero-std groups kept)
    for (const it of [1, 2]) {
      const steps = rows.filter((x) => x.iteration === it).reduce((n, x) => n + loadSteps(db, x.episode_id).filter((s) => !s.error).length, 0);
      expect(steps).toBe(r.history[it - 1]!.metrics['batch/steps']);
    }
    db.close();
  }, 60_000);

  it('an adaptation records its evaluation episodes and its GRPO rollouts (on worker threads) in its run', async () => {
    const db = openStore(':memory:');
    const run = createRun(db, { kind: 'training', name: 'adapt Clock transformer', config: {} });
    const template = appTestTemplates(resolveAdaptApp('Clock'))[0]!.id;
    const config = TransformerAdaptConfigSchema.parse({
      shots: 1, rank: 2, grpo: { iterations: 1, instancesPerIteration: 1, rolloutsPerInstance: 2, maxSteps: 4, devices: 2, rolloutWorkers: 2 },
    });
    const res = await adaptTransformer({
      base: model, app: 'Clock', outDir: join(tmp.dir(), 'adapted'), config, evalSeeds: [30], evalTemplates: [template], record: { db, runId: run.id },
    });
    expect(res.stoppedBy).toBe('done');
    const rows = rolloutRows(db, run.id);
    expect(rows.map((x) => `${x.iteration}/${x.g}/${x.k}`)).toEqual(['1/0/0', '1/0/1']);
    for (const x of rows) expectProbabilities(db, x.episode_id);
    // before and after: one test instance each, not GRPO rollouts
    const evals = db.prepare(`SELECT i.template_id AS t, i.seed FROM episodes e JOIN task_instances i ON i.id = e.instance_id
      LEFT JOIN training_rollouts r ON r.episode_id = e.id WHERE e.run_id = ? AND r.episode_id IS NULL`)
      .all(run.id) as Array<{ t: string; seed: number }>;
    expect(evals).toEqual([{ t: template, seed: 30 }, { t: template, seed: 30 }]);
    db.close();
  }, 60_000);
});
