import type { Device } from '../device/device.js';
import { runEpisode } from '../episode/runner.js';
import type { EpisodeRecorder } from '../episode/record.js';
import type { ScreenshotMode } from '../episode/runner.js';
import type { TransformerModel } from '../policy/transformer/model.js';
import type { TransformerStepRecord } from '../policy/transformer/policy.js';
import { transformerSamplingPolicy } from '../policy/registry.js';
import { scheduleOnDevices } from '../rollout/in-process.js';
import { resolveRolloutWorkers, RolloutWorkerPool } from '../rollout/rollout-workers.js';
import type { WorkerStepRecord } from '../rollout/threads/protocol.js';
import { outcomeReward, rolloutRecorder, type RolloutJob } from '../rollout/rollouts.js';
import type { EpisodeResult } from '../episode/record.js';
import { WorkbenchError } from '../util/errors.js';
import { openSimDroids } from '../devices/provider.js';
import { MAX_MODEL_ARCHIVE, ModelArchiveError, packModelFolder } from '../rollout/remote/model-folder.js';
import { RayEnvServers } from '../rollout/ray.js';
import { rayCluster, type RaySettings } from '../rollout/ray-settings.js';
import { TrainingDevicesError } from './train-grpo.js';

/**
 * GRPO rollouts of the transformer policy: every job samples with its own RNG (job.rngKey) from the model the
 * iteration holds, either on devices driven in this thread or on a rollout worker pool (worker threads, or remote
 * rollout servers such as Ray actors: docs/ray.md), where each job names the model's folder and the worker loads it
 * (a remote server is sent the folder as one archive, once per connection and model). In this thread the network runs
 * in ONNX Runtime, whose `run` is asynchronous and computes off the JavaScript thread, so N SimDroids here overlap one
 * episode's inference with another's simulation. Results do not depend on the device, worker or order: each
 * rollout's RNG is its own, and the policy is built the same way everywhere (transformerSamplingPolicy).
 */
export interface TransformerRollout {
  job: RolloutJob;
  result: EpisodeResult;
  records: TransformerStepRecord[];
  /** 1 success, 0 failure, NaN for an environment error. */
  reward: number;
  trees?: string[];
}

export const TRANSFORMER_ROLLOUT_POLICY = 'transformer-grpo';

/** A worker sent a transformer rollout's records in another policy's shape. */
export class TransformerRecordsError extends WorkbenchError {
  override name = 'TransformerRecordsError';
  constructor(readonly templateId: string, readonly seed: number, readonly step: number) {
    super(`Transformer rollout of ${templateId} seed ${seed}: its record of step ${step} is not a transformer step record`);
  }
}

export async function runTransformerRollouts(
  on: readonly Device[] | RolloutWorkerPool, jobs: readonly RolloutJob[],
  opts: {
    model: TransformerModel; temperature: number; maxSteps: number; captureTrees?: boolean;
    /** A recorder per rollout (the run's RolloutRecording); none = not recorded. */
    recorder?: (job: RolloutJob) => EpisodeRecorder;
    /** Screenshots a recorder gets in process (default 'none'); a worker pool took its own at start. */
    screenshots?: ScreenshotMode;
  },
): Promise<TransformerRollout[]> {
  const policyOf = (rngKey: string) => transformerSamplingPolicy(opts.model, { temperature: opts.temperature, rngKey, policyName: TRANSFORMER_ROLLOUT_POLICY });
  if (on instanceof RolloutWorkerPool) {
    // Refuse what the in-process path refuses (a bad temperature), before any worker sees it.
    policyOf('check');
    const rollouts = await on.sample(jobs, {
      policyName: TRANSFORMER_ROLLOUT_POLICY, maxSteps: opts.maxSteps,
      policy: (j) => ({ name: 'transformer-sample', model: opts.model.dir, temperature: opts.temperature, rngKey: j.rngKey, policyName: TRANSFORMER_ROLLOUT_POLICY }),
      ...(opts.recorder ? { recorder: opts.recorder } : {}), ...(opts.captureTrees ? { captureTrees: true } : {}),
    });
    return rollouts.map((r) => ({ ...r, records: transformerRecords(r.job, r.records) }));
  }
  const out: TransformerRollout[] = new Array(jobs.length);
  await scheduleOnDevices(on, jobs, (device) => async (job, k) => {
    const policy = policyOf(job.rngKey);
    const { recorder, capture } = rolloutRecorder(opts, job);
    const result = await runEpisode({
      device, instance: job.instance, policy, maxSteps: opts.maxSteps, onMalformed: 'continue',
      ...(recorder ? { recorder, ...(opts.screenshots ? { screenshots: opts.screenshots } : {}) } : {}),
    });
    out[k] = { job, result, records: policy.takeRecords(), reward: outcomeReward(result), ...(capture ? { trees: capture.trees } : {}) };
  });
  return out;
}

/** What the transformer policy's rollouts still cannot do: a model folder too large for a rollout server's bound. */
export class TransformerUnsupportedError extends WorkbenchError {
  override name = 'TransformerUnsupportedError';
  constructor(readonly field: string, readonly value: unknown, readonly reason: string) {
    super(`The transformer policy's rollouts cannot run with ${field} ${JSON.stringify(value)}: ${reason}`);
  }
}

/**
 * Refuses, before anything starts, rollouts on a Ray cluster of a model folder the servers would refuse: every job
 * there names the folder, sent as one archive (core/rollout/remote/model-folder.ts), and one over its bound cannot go.
 */
export function checkTransformerRollouts(ray: { address: string | null }, modelDir: string, maxBytes = MAX_MODEL_ARCHIVE): void {
  if (ray.address === null) return;
  try {
    packModelFolder(modelDir, maxBytes);
  } catch (e) {
    if (e instanceof ModelArchiveError) throw new TransformerUnsupportedError('ray.address', ray.address, `its rollout servers are sent the model folder, and ${e.message}`);
    throw e;
  }
}

/**
 * Where the transformer policy's GRPO rollouts run, as the builtin policy's (train-grpo.ts): the caller's devices in
 * process; else `ray.envs` SimDroids on a Ray cluster; else `rolloutWorkers` worker threads (each job names the
 * iteration's model folder, loaded by the worker); else `devices` SimDroids in this thread. Stopped by `close`.
 */
export async function transformerRolloutPlaces(o: {
  ray: RaySettings; rolloutWorkers: number | 'auto'; devices: number; serialPrefix: string; modelDir: string; log?: (m: string) => void;
  /** Screenshots of recorded rollouts, which a worker pool takes at start (default 'none'). */
  screenshots?: ScreenshotMode;
  /** The caller's own devices (adb devices, say): rollouts run on these, in process. */
  callerDevices?: readonly Device[];
  /** Devices in process when no workers are asked for (default: `devices` SimDroids of its own). */
  inProcess?: readonly Device[];
}): Promise<{ on: readonly Device[] | RolloutWorkerPool; close(): Promise<void> }> {
  const cluster = rayCluster(o.ray);
  if (cluster && o.callerDevices) throw new TrainingDevicesError(cluster.address);
  if (o.callerDevices) return { on: o.callerDevices, close: async () => {} };
  checkTransformerRollouts(o.ray, o.modelDir);
  const count = cluster ? cluster.envs : resolveRolloutWorkers(o.rolloutWorkers, o.devices);
  if (count === 0 && o.inProcess) return { on: o.inProcess, close: async () => {} };
  if (count === 0) {
    const own = openSimDroids(o.devices, o.serialPrefix);
    return { on: own, close: async () => { for (const d of own) d.close(); } };
  }
  const ray = cluster ? await RayEnvServers.start({ ...cluster, ...(o.log ? { log: o.log } : {}) }) : null;
  try {
    if (ray) o.log?.(ray.summary);
    const pool = await RolloutWorkerPool.start({ workers: count, screenshots: o.screenshots ?? 'none', ...(ray ? { remote: ray.remote } : {}) });
    return { on: pool, close: async () => { await pool.close(); await ray?.close(); } };
  } catch (e) {
    await ray?.close();
    throw e;
  }
}

function transformerRecords(job: RolloutJob, records: readonly WorkerStepRecord[]): TransformerStepRecord[] {
  return records.map((r, i) => {
    if (!('choice' in r) || !('inputs' in r)) throw new TransformerRecordsError(job.instance.template.id, job.instance.seed, i);
    return r;
  });
}
