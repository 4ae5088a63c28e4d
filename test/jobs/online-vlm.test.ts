import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { runEpisode } from '../../core/episode/runner.js';
import { OnlineGrpoConfigError, OnlineGrpoJobError } from '../../core/remote-jobs/online-errors.js';
import { ONLINE_METRIC, rolloutRequestSeed, runOnlineGrpo, type OnlineGrpoOptions } from '../../core/remote-jobs/online.js';
import { TrainerProfiles } from '../../core/remote-jobs/profiles.js';
import { RemoteJobs } from '../../core/remote-jobs/remote.js';
import { readTar } from '../../core/util/tar.js';
import { VlmPolicySettings } from '../../core/policy/vlm/settings.js';
import { DEFAULT_ADVANTAGE_OPTIONS, groupAdvantages } from '../../core/rl/grpo.js';
import { openStore, type WritableDB } from '../../core/store/db.js';
import { getRun } from '../../core/store/runs.js';
import { listIterationMetrics } from '../../core/store/training.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { fastClient, scratch, TOKEN } from './fixture.js';
import { startFakeVllm, type FakeVllm } from './online-fake-vllm.js';
import { realTrainerAvailability, startRealTrainer, type RealTrainer } from './real-service.js';

/**
 * The online GRPO loop with a served VLM, against the real Python trainer (`model: "awb-tiny-lm"`,
 * its torch-only plumbing LM, so the vlm-grpo path runs without transformers) and a fake vLLM server
 * on loopback. The fake answers a rollout with the task's oracle actions or with a non-action,
 * decided by the request seed's parity — even seeds are good for the base model, odd ones for an
 * adapter — so the groups have a reward spread and the switch to the adapter shows in the answers.
 */
const avail = realTrainerAvailability();
const skip = avail.service ?? avail.torch;
if (skip) console.log(`skipping the online VLM GRPO tests: ${skip}`);

const BASE = 'awb-tiny-lm';
const KEY = 'sk-online-grpo-test-7c1e55';
/** The trainer publishes with the key from its own environment (config.publish.apiKeyEnv names the variable). */
const KEY_ENV = 'AWB_ONLINE_TEST_VLLM_KEY';
const INSTANCE = instantiate(getTemplate('ClockStopwatchRun'), 0);
const G = 4;
const tmp = scratch('awb-online-vlm-');
let service: RealTrainer;
let workdir: string;
let oracle: unknown[];
let fake: FakeVllm | null = null;

/** The current step of a request: the highest "Step N:" of the history lines (summary style), else 0. */
function stepOf(body: any): number {
  const text = String(body.messages.at(-1).content[0].text);
  const steps = [...text.matchAll(/^Step (\d+):/gm)].map((m) => Number(m[1]));
  return steps.length ? Math.max(...steps) : 0;
}

const goodFor = (model: string, seed: number) => seed % 2 === (model === BASE ? 0 : 1);

/** A run seed whose rollouts (G per iteration, one instance) have both parities in iterations 1 and 2. */
function seedWithSpread(): number {
  for (let s = 0; s < 1000; s++) {
    if ([1, 2].every((k) => new Set(Array.from({ length: G }, (_, r) => rolloutRequestSeed(s, k, 0, r) % 2)).size === 2)) return s;
  }
  throw new Error('no seed with a spread');
}

async function vllm(): Promise<FakeVllm> {
  fake = await startFakeVllm({
    baseModel: BASE, key: KEY,
    answer: ({ model, seed, body }) => {
      const k = stepOf(body);
      if (!goodFor(model, seed ?? -1)) return `I am not sure what to do on this screen (${model}).`;
      const action = oracle[k] ?? { action_type: 'status', goal_status: 'complete' };
      return `Reason: step ${k} as ${model}.\nAction: ${JSON.stringify(action)}`;
    },
  });
  return fake;
}

function setup(dataDir: string, db: WritableDB): RemoteJobs {
  const profiles = new TrainerProfiles(dataDir);
  profiles.put({ name: 'local', baseUrl: service.url, token: TOKEN });
  return new RemoteJobs({ db, dataDir, profiles, clientFor: (p) => fastClient(p.baseUrl) });
}

function options(f: FakeVllm, seed: number, iterations: number): OnlineGrpoOptions {
  return {
    trainer: 'local', iterations, instances: [INSTANCE], source: 'ClockStopwatchRun#0', groupSize: G, temperature: 1, maxSteps: 8, seed,
    config: { epochs: 1, batchSize: 8, learningRate: 1e-3, publish: { apiKeyEnv: KEY_ENV } },
    policy: {
      kind: 'vlm', baseModel: BASE, publishName: 'wb', servedDelayMs: 10,
      settings: VlmPolicySettings.parse({ endpoint: { baseUrl: `${f.url}/v1`, model: BASE, apiKey: KEY, retries: 0, timeoutMs: 10_000 }, format: 'androidworld' }),
    },
  };
}

describe.skipIf(skip !== null)('online GRPO, VLM policy, against a fake vLLM server and the real trainer (awb-tiny-lm)', () => {
  beforeAll(async () => {
    workdir = tmp.dir();
    process.env[KEY_ENV] = KEY; // inherited by the trainer service only: the workbench never sends it
    // Offline: a model id the trainer does not have fails at once instead of retrying the hub for half a minute
    // (that once held the service's one-job queue past the next test's timeout).
    const offline = process.env.HF_HUB_OFFLINE;
    process.env.HF_HUB_OFFLINE = '1';
    try {
      service = await startRealTrainer(workdir, TOKEN, 30_000, ['--publish-key', KEY_ENV]);
    } finally {
      delete process.env[KEY_ENV];
      if (offline === undefined) delete process.env.HF_HUB_OFFLINE;
      else process.env.HF_HUB_OFFLINE = offline;
    }
    const device = new SimDroid({ serial: 'simdroid-online-oracle' });
    try {
      const r = await runEpisode({ device, instance: INSTANCE, policy: new OraclePolicy() });
      expect(r.status).toBe('success');
      oracle = r.steps.map((s) => s.action);
    } finally {
      device.close();
    }
  });
  afterEach(async () => {
    await fake?.close();
    fake = null;
  });
  afterAll(async () => {
    await service?.stop();
    tmp.cleanup();
  });

  it('two iterations: iteration 2 asks for <name>-<job 1>, job 2 resumes from job 1, the bundle carries grpo.ts advantages, raw answers and messages, and the key stays out of the trainer and the store', async () => {
    const f = await vllm();
    const dataDir = tmp.dir();
    const dbPath = join(dataDir, 'store.db');
    const db = openStore(dbPath);
    const seed = seedWithSpread();
    let result;
    try {
      const jobs = setup(dataDir, db);
      result = await runOnlineGrpo(options(f, seed, 2), { jobs, dataDir });
      const rows = jobs.list('local').sort((a, b) => a.id - b.id);
      expect(rows.map((r) => [r.kind, r.status])).toEqual([['vlm-grpo', 'succeeded'], ['vlm-grpo', 'succeeded']]);
      const [j1, j2] = rows.map((r) => r.remoteId!);

      // the switch: published as wb-<job id>, listed by /v1/models, then asked for by every request of iteration 2
      expect(f.loads.map((l) => l.lora_name)).toEqual([`wb-${j1}`, `wb-${j2}`]);
      expect(rows[0]!.config).toMatchObject({ model: BASE, resumeFrom: null, publish: { server: 'vllm', baseUrl: f.url, name: 'wb', apiKeyEnv: KEY_ENV } });
      expect(rows[0]!.config).toMatchObject({ minPixels: 3136, maxPixels: 12_845_056 }); // the endpoint's (defaults): the trainer resizes the same
      expect(rows[1]!.config).toMatchObject({ model: BASE, resumeFrom: j1, publish: { baseUrl: f.url, name: 'wb' } });
      const chats = f.requests.filter((r) => r.path === '/v1/chat/completions');
      const seeds1 = new Set(Array.from({ length: G }, (_, r) => rolloutRequestSeed(seed, 1, 0, r)));
      const byIteration = (k: number) => chats.filter((r) => new Set(Array.from({ length: G }, (_, i) => rolloutRequestSeed(seed, k, 0, i))).has(r.body.seed));
      expect(byIteration(1).map((r) => r.body.model)).toEqual(byIteration(1).map(() => BASE));
      expect(byIteration(2).length).toBeGreaterThan(0);
      expect(byIteration(2).map((r) => r.body.model)).toEqual(byIteration(2).map(() => `wb-${j1}`));
      expect(chats.every((r) => r.body.temperature === 1 && (seeds1.has(r.body.seed) || byIteration(2).includes(r)))).toBe(true);
      expect(result.iterations.map((i) => i.policy)).toEqual([`wb-${j1}`, `wb-${j2}`]);
      // the previous version is unloaded once the new one is listed (never the base model); the last one stays served
      expect(f.unloads).toEqual([`wb-${j1}`]);
      const at = (path: string, name?: string) => f.requests.findIndex((r) => r.path === path && (name === undefined || r.body?.lora_name === name));
      expect(at('/v1/unload_lora_adapter')).toBeGreaterThan(f.requests.findLastIndex((r) => r.path === '/v1/models'));
      expect(at('/v1/unload_lora_adapter')).toBeGreaterThan(at('/v1/load_lora_adapter', `wb-${j2}`));
      expect([...f.models]).toEqual([BASE, `wb-${j2}`]);
      expect(result.finalPolicy).toBe(`wb-${j2}`);

      // job 1's bundle as the trainer received it: advantages = grpo.ts on the outcome rewards, raw = the completion, messages without images
      const bundle = readTar(readFileSync(join(workdir, 'service', 'uploads', rows[0]!.datasetSha256)));
      const lines = bundle.get('episodes.jsonl')!.toString('utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(lines).toHaveLength(G);
      const rewards = lines.map((l) => (l.success ? 1 : 0));
      expect(new Set(rewards).size).toBe(2);
      const expected = groupAdvantages([rewards], DEFAULT_ADVANTAGE_OPTIONS).advantages[0]!;
      lines.forEach((l, i) => expect(l.advantage).toBeCloseTo(expected[i]!, 12));
      for (const l of lines) {
        for (const st of l.steps) {
          expect(st.raw).toBe(st.thought);
          expect(st.raw).toMatch(/^Reason: step \d+ as awb-tiny-lm|^I am not sure/);
          expect(st.messages[0].role).toBe('system');
          const parts = st.messages[1].content;
          expect(parts.filter((p: { type: string }) => p.type === 'image')).toEqual([{ type: 'image', step: st.index }]);
          expect(JSON.stringify(st.messages)).not.toContain('data:image');
          expect(bundle.has(st.screenshot)).toBe(true);
        }
      }

      // one training run with a metrics row per iteration, finished
      expect(getRun(db, result.runId)).toMatchObject({ kind: 'training', status: 'finished', config: { loop: 'online-grpo', policy: { kind: 'vlm', baseModel: BASE } } });
      const metrics = listIterationMetrics(db, result.runId);
      expect(metrics.map((m) => [m.iteration, m.metrics[ONLINE_METRIC.submitted], m.metrics[ONLINE_METRIC.groupsSkipped]])).toEqual([[1, 1, 0], [2, 1, 0]]);
      expect(metrics[0]!.metrics[ONLINE_METRIC.success]).toBe(rewards.filter((r) => r === 1).length / G);
      expect(metrics[0]!.metrics[ONLINE_METRIC.formatErrors]).toBe(G - rewards.filter((r) => r === 1).length);
      expect(metrics[1]!.metrics['trainer/loss/grpo']).toEqual(expect.any(Number));
    } finally {
      db.close();
    }

    // the endpoint's key: sent to the endpoint only — never in the trainer's job records, events or the store
    expect(f.requests.every((r) => r.auth === `Bearer ${KEY}`)).toBe(true);
    const jobsDir = join(workdir, 'service', 'jobs');
    for (const id of readdirSync(jobsDir)) {
      for (const file of ['job.json', 'events.jsonl']) {
        const p = join(jobsDir, id, file);
        if (existsSync(p)) expect(readFileSync(p, 'utf8')).not.toContain(KEY);
      }
    }
    for (const file of [dbPath, `${dbPath}-wal`]) if (existsSync(file)) expect(readFileSync(file).includes(KEY)).toBe(false);
  }, 90_000);

  it('a base model folder that is not a model: the first job fails with the trainer\'s ModelFolderError (bad_request), the loop stops with OnlineGrpoJobError at iteration 1, the rollouts stay recorded', async () => {
    const f = await vllm();
    const notAModel = tmp.dir();
    writeFileSync(join(notAModel, 'README.md'), 'not a model\n');
    const dataDir = tmp.dir();
    const db = openStore(':memory:');
    try {
      const jobs = setup(dataDir, db);
      const o = options(f, seedWithSpread(), 2);
      const err = await runOnlineGrpo({ ...o, policy: { ...o.policy, baseModel: notAModel } as OnlineGrpoOptions['policy'] }, { jobs, dataDir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OnlineGrpoJobError);
      const [row] = jobs.list('local');
      expect(err).toMatchObject({ iteration: 1, jobId: row!.remoteId, status: 'failed', jobError: { code: 'bad_request' } });
      expect((err as Error).message).toMatch(/failed — bad_request: ModelFolderError: config\.model: has no model config that loads .*; the loop stopped$/);
      expect((err as Error).message).toContain(notAModel); // the bad value
      expect(jobs.list('local')).toHaveLength(1);
      const runs = db.prepare("SELECT id, status FROM runs WHERE kind = 'training'").all() as Array<{ id: number; status: string }>;
      expect(runs.map((r) => r.status)).toEqual(['interrupted']);
      // nothing recorded is lost: iteration 1's rollouts stay in the run (G episodes), no metrics row for the failed iteration
      expect(db.prepare('SELECT count(*) AS n FROM episodes WHERE run_id = ?').get(runs[0]!.id)).toEqual({ n: G });
      expect(listIterationMetrics(db, runs[0]!.id as never)).toEqual([]);
    } finally {
      db.close();
    }
  }, 60_000);

  it('an endpoint whose server is "other" is refused before any rollout or run: the loop cannot serve new weights there', async () => {
    const f = await vllm();
    const db = openStore(':memory:');
    try {
      const o = options(f, 0, 1);
      const settings = VlmPolicySettings.parse({ endpoint: { baseUrl: `${f.url}/v1`, model: BASE, apiKey: KEY, server: 'other' }, format: 'androidworld' });
      const err = await runOnlineGrpo({ ...o, policy: { ...o.policy, settings } as OnlineGrpoOptions['policy'] }, { jobs: setup(tmp.dir(), db), dataDir: tmp.dir() }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OnlineGrpoConfigError);
      expect((err as Error).message).toMatch(/endpoint\.server "other": cannot serve new weights/);
      expect(f.requests).toEqual([]);
      expect(db.prepare('SELECT count(*) AS n FROM runs').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });

  it('a publish that vLLM refuses (HTTP 400) fails the job: the loop stops with OnlineGrpoJobError naming iteration 1 and the job, the run interrupted', async () => {
    const f = await vllm();
    f.failLoads = 400;
    const dataDir = tmp.dir();
    const db = openStore(':memory:');
    try {
      const jobs = setup(dataDir, db);
      const err = await runOnlineGrpo(options(f, seedWithSpread(), 2), { jobs, dataDir }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OnlineGrpoJobError);
      const [row] = jobs.list('local');
      expect(err).toMatchObject({ iteration: 1, jobId: row!.remoteId, status: 'failed', jobError: { code: 'publish_failed' } });
      expect((err as Error).message).toMatch(new RegExp(`iteration 1: job ${row!.remoteId} \\(local ${row!.id}\\) failed — publish_failed: .*HTTP 400`));
      expect(jobs.list('local')).toHaveLength(1);
      const runs = db.prepare("SELECT id, status FROM runs WHERE kind = 'training'").all() as Array<{ id: number; status: string }>;
      expect(runs.map((r) => r.status)).toEqual(['interrupted']);
      expect(listIterationMetrics(db, runs[0]!.id as never)).toEqual([]);
      expect(f.requests.filter((r) => r.path === '/v1/models')).toEqual([]);
    } finally {
      db.close();
    }
  }, 60_000);
});
