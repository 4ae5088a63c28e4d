import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VlmPolicySettings } from '../../core/policy/vlm/settings.js';
import { PublishedSchema } from '../../core/remote-jobs/online-publish.js';
import { ONLINE_METRIC, runOnlineGrpo } from '../../core/remote-jobs/online.js';
import { TrainerProfiles } from '../../core/remote-jobs/profiles.js';
import { RemoteJobs } from '../../core/remote-jobs/remote.js';
import { openStore } from '../../core/store/db.js';
import { getRun } from '../../core/store/runs.js';
import { listIterationMetrics } from '../../core/store/training.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { startServedVlm, tokenIds, type ServedVlm } from '../policy/served-vlm.js';
import { requirePython, tinyVlm } from '../python-env.js';
import { fastClient, scratch, TOKEN } from './fixture.js';
import { startRealTrainer, type RealTrainer } from './real-service.js';

/**
 * Online GRPO on the real model stack: `transformers serve` serving the tiny random Qwen2.5-VL (test/policy/served-vlm.ts),
 * the real trainer's vlm-grpo on the same folder (a peft LoRA), and `server: "transformers"` publishing — the trainer
 * merges the LoRA into a model folder, the loop unloads the old model (POST /reset) and loads that folder (POST
 * /load_model), and the next iteration's requests name it.
 *
 * An untrained random model never writes an action, so every group would have zero reward std and nothing would be
 * trained. The requests therefore carry a sequence bias (the request's `generation_config`, transformers'
 * SequenceBiasLogitsProcessor) towards `finish(message="2")`, the answer of both ContactsCountQuestion instances: each
 * of its tokens (and the end-of-turn after them), given the ones before, gets a bias, so about half the rollouts answer
 * right. The sampling is the server's, seeded per request; the trainer scores the completions without the bias.
 */
const ANSWER = 'finish(message="2")';
/**
 * The first token's bias applies at every position (its key has no prefix), so each later token, given its prefix,
 * gets more. With the tiny model's 2048-token vocabulary about three rollouts in four answer right (measured: 75% in
 * iteration 1); groups of 4 and a small learning rate (the update must change the weights, not the model's behaviour
 * under the bias) keep a reward spread in some group of each iteration.
 */
const FIRST_BIAS = 8.4;
const NEXT_BIAS = 11.7;
const G = 4;
const INSTANCES = [0, 2].map((s) => instantiate(getTemplate('ContactsCountQuestion'), s));
const SEED = Number(process.env.AWB_ONLINE_SERVED_SEED ?? 3);
const tmp = scratch('awb-online-served-');
let service: RealTrainer;
let served: ServedVlm;
let workdir: string;
let model: string;
let generationConfig: string;

/** The answer's token ids and the end-of-turn id, from the model folder's own tokenizer. */
function answerTokens(folder: string): { ids: number[]; eos: number; pad: number } {
  const { ids, eos, pad } = tokenIds(folder, [ANSWER]);
  return { ids: ids[0]!, eos, pad };
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe('online GRPO against transformers serve and the real trainer (tiny Qwen2.5-VL, LoRA merged and served by path)', () => {
  beforeAll(async () => {
    requirePython();
    model = tinyVlm();
    const { ids, eos, pad } = answerTokens(model);
    const chain = [...ids, eos];
    generationConfig = JSON.stringify({
      do_sample: true, eos_token_id: eos, pad_token_id: pad, max_new_tokens: 16,
      sequence_bias: chain.map((_, i) => [chain.slice(0, i + 1), i === 0 ? FIRST_BIAS : NEXT_BIAS]),
    });
    workdir = tmp.dir();
    const offline = process.env.HF_HUB_OFFLINE;
    process.env.HF_HUB_OFFLINE = '1'; // the trainer: a folder, never the hub
    try {
      [service, served] = await Promise.all([startRealTrainer(workdir, TOKEN), startServedVlm({ model })]);
    } finally {
      if (offline === undefined) delete process.env.HF_HUB_OFFLINE;
      else process.env.HF_HUB_OFFLINE = offline;
    }
  }, 180_000);
  afterAll(async () => {
    await Promise.all([service?.stop(), served?.stop()]);
    tmp.cleanup();
  });

  it('two iterations: rollouts from the served model, rewards, a LoRA update, the merged weights served by path and asked for by the next iteration', async () => {
    const dataDir = tmp.dir();
    const db = openStore(join(dataDir, 'store.db'));
    const lines: string[] = [];
    try {
      const profiles = new TrainerProfiles(dataDir);
      profiles.put({ name: 'local', baseUrl: service.url, token: TOKEN });
      const jobs = new RemoteJobs({ db, dataDir, profiles, clientFor: (p) => fastClient(p.baseUrl) });
      const settings = VlmPolicySettings.parse({
        endpoint: { baseUrl: served.baseUrl, model, server: 'transformers', retries: 0, timeoutMs: 60_000, maxConcurrency: 1 },
        format: 'mobilerl', maxTokens: 16, minPixels: 3136, maxPixels: 50_176, extraBody: { generation_config: generationConfig },
      });
      const result = await runOnlineGrpo({
        trainer: 'local', iterations: 2, instances: INSTANCES, source: 'ContactsCountQuestion#0,#2', groupSize: G, temperature: 1, maxSteps: 1, seed: SEED,
        config: { epochs: 1, batchSize: 8, learningRate: 1e-3 },
        policy: { kind: 'vlm', baseModel: model, publishName: 'served', settings },
      }, { jobs, dataDir }, { onLog: (l) => lines.push(l) });

      const rows = jobs.list('local').sort((a, b) => a.id - b.id);
      expect(rows.map((r) => [r.kind, r.status])).toEqual([['vlm-grpo', 'succeeded'], ['vlm-grpo', 'succeeded']]);
      const [j1, j2] = rows.map((r) => r.remoteId!);
      expect(rows[0]!.config).toMatchObject({ model, resumeFrom: null, minPixels: 3136, maxPixels: 50_176, publish: { server: 'transformers', name: 'served' } });
      expect(rows[1]!.config).toMatchObject({ model, resumeFrom: j1, publish: { server: 'transformers' } });

      // each job's merged folder: a whole model (weights, config, processor) whose weights are not the base's
      const folder = (j: string) => join(workdir, 'service', 'jobs', j, 'served', `served-${j}`);
      for (const j of [j1!, j2!]) {
        for (const f of ['config.json', 'model.safetensors', 'tokenizer.json', 'processor_config.json']) expect(existsSync(join(folder(j), f)), f).toBe(true);
        const published = PublishedSchema.parse(JSON.parse(readFileSync(join(workdir, 'service', 'jobs', j, 'artifacts', 'published.json'), 'utf8')));
        expect(published).toMatchObject({ name: `served-${j}`, server: 'transformers', servedPath: folder(j), job: j, model });
      }
      expect(sha256(join(folder(j1!), 'model.safetensors'))).not.toBe(sha256(join(model, 'model.safetensors')));
      expect(sha256(join(folder(j2!), 'model.safetensors'))).not.toBe(sha256(join(folder(j1!), 'model.safetensors')));
      expect(result.iterations.map((i) => i.policy)).toEqual([folder(j1!), folder(j2!)]);
      expect(result.finalPolicy).toBe(folder(j2!));

      // the server: the base model, then job 1's folder after a reset (iteration 2's requests name it: asking for the
      // base again would load it again), then job 2's
      const loads = [...served.log().matchAll(/Loading (\S+)@main/g)].map((m) => m[1]);
      expect(loads).toEqual([model, folder(j1!), folder(j2!)]);

      // one training run, a metrics row per iteration with the trainer's loss; both iterations had a reward spread
      expect(getRun(db, result.runId)).toMatchObject({ kind: 'training', status: 'finished' });
      const metrics = listIterationMetrics(db, result.runId);
      expect(metrics.map((m) => [m.iteration, m.metrics[ONLINE_METRIC.submitted]])).toEqual([[1, 1], [2, 1]]);
      for (const m of metrics) {
        expect(m.metrics[ONLINE_METRIC.success]).toBeGreaterThan(0);
        expect(m.metrics[ONLINE_METRIC.success]).toBeLessThan(1);
        expect(m.metrics['trainer/loss/grpo']).toEqual(expect.any(Number));
      }
    } catch (e) {
      console.log(lines.join('\n'));
      console.log(JSON.stringify(db.prepare('SELECT thought, error_message FROM steps').all(), null, 1));
      throw e;
    } finally {
      db.close();
    }
  }, 240_000);
});
