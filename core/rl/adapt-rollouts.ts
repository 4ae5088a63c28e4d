import type { Device } from '../device/device.js';
import type { EpisodeRecorder, EpisodeResult } from '../episode/record.js';
import { runEpisode, type ScreenshotMode } from '../episode/runner.js';
import type { AdapterChoice, AdaptedStepRecord, HomeMode } from '../policy/adapter-policy.js';
import type { PolicyModel } from '../policy/builtin.js';
import type { WorkerStepRecord } from '../rollout/threads/protocol.js';
import { adaptedSamplingPolicy } from '../policy/registry.js';
import { scheduleOnDevices } from '../rollout/in-process.js';
import { RayEnvServers } from '../rollout/ray.js';
import { rayCluster } from '../rollout/ray-settings.js';
import { resolveRolloutWorkers, RolloutWorkerPool, workerModel } from '../rollout/rollout-workers.js';
import { outcomeReward, type RolloutJob } from '../rollout/rollouts.js';
import { WorkbenchError } from '../util/errors.js';
import type { AdaptConfig } from './adapt-config.js';

/**
 * Where adaptation's GRPO rollouts run (docs/adaptation.md, docs/ray.md): in process on devices this thread drives
 * (the caller's adb devices, or SimDroids when one core is enough), or on a rollout worker pool — SimDroids in worker
 * threads, or on a Ray cluster's nodes — through the same pool GRPO training uses (core/rollout/rollout-workers.ts),
 * so its scheduling, recording, crash handling and re-runs apply as they are. Each iteration the frozen base's and
 * the adapters' parameters go to every worker once; each rollout samples with its own RNG key, so the results, and
 * the adapter trained on them, do not depend on which device, worker or actor ran a rollout.
 */

/** The policy name adaptation's rollouts are recorded under. */
export const ADAPT_ROLLOUT_POLICY_NAME = 'builtin-adapt';

export interface AdaptedRollout {
  job: RolloutJob;
  result: EpisodeResult;
  records: AdaptedStepRecord[];
  reward: number;
}

export interface AdaptedRolloutOptions {
  base: PolicyModel;
  adapters: readonly AdapterChoice[];
  temperature: number;
  maxSteps: number;
  home: HomeMode;
  /** A recorder per rollout (the adaptation's run, each rollout tagged with its iteration); none = not recorded. */
  recorder?: (job: RolloutJob) => EpisodeRecorder;
  /** Screenshots the recorder gets in process (default 'none'); a worker pool took its own at start. */
  screenshots?: ScreenshotMode;
}

/** A worker sent an adapted rollout's records without the adapter that scored each step. */
export class AdaptedRecordsError extends WorkbenchError {
  override name = 'AdaptedRecordsError';
  constructor(readonly templateId: string, readonly seed: number, readonly step: number) {
    super(`Adapted rollout of ${templateId} seed ${seed}: its record of step ${step} does not say which adapter scored it`);
  }
}

/**
 * Runs the jobs first come first served, on the devices in process (as core/rollout/rollouts.ts runRollouts) or on
 * the pool's workers (as its GRPO rollouts), with the adapted policy; results in job order.
 */
export async function runAdaptedRollouts(on: readonly Device[] | RolloutWorkerPool, jobs: readonly RolloutJob[], opts: AdaptedRolloutOptions): Promise<AdaptedRollout[]> {
  const policyOf = (rngKey: string) => adaptedSamplingPolicy(opts.base, opts.adapters, {
    temperature: opts.temperature, rngKey, policyName: ADAPT_ROLLOUT_POLICY_NAME, home: opts.home,
  });
  if (on instanceof RolloutWorkerPool) {
    // Refuse what the in-process path refuses (a bad temperature), before any worker sees it.
    policyOf('check');
    const rollouts = await on.sample(jobs, {
      model: workerModel(opts.base, opts.adapters), policyName: ADAPT_ROLLOUT_POLICY_NAME, maxSteps: opts.maxSteps,
      policy: (j) => ({ name: 'builtin-adapted-sample', temperature: opts.temperature, rngKey: j.rngKey, policyName: ADAPT_ROLLOUT_POLICY_NAME, home: opts.home }),
      ...(opts.recorder ? { recorder: opts.recorder } : {}),
    });
    return rollouts.map((r) => ({ job: r.job, result: r.result, records: adaptedRecords(r.job, r.records), reward: r.reward }));
  }
  const out: AdaptedRollout[] = new Array(jobs.length);
  await scheduleOnDevices(on, jobs, (device) => async (job, k) => {
    const policy = policyOf(job.rngKey);
    const result = await runEpisode({
      device, instance: job.instance, policy, maxSteps: opts.maxSteps, onMalformed: 'continue',
      ...(opts.recorder ? { recorder: opts.recorder(job), screenshots: opts.screenshots ?? 'none' } : {}),
    });
    out[k] = { job, result, records: policy.takeRecords(), reward: outcomeReward(result) };
  });
  return out;
}

/** The records a worker sent for an adapted rollout: each names the adapter that scored its step (null: the base). */
function adaptedRecords(job: RolloutJob, records: readonly WorkerStepRecord[]): AdaptedStepRecord[] {
  return records.map((r, i) => {
    if (!('features' in r) || !('adapter' in r) || (typeof r.adapter !== 'string' && r.adapter !== null)) throw new AdaptedRecordsError(job.instance.template.id, job.instance.seed, i);
    return { ...r, adapter: r.adapter };
  });
}

/** Ray rollouts and the caller's own devices together: the devices would be left unused by GRPO, so neither is guessed. */
export class AdaptRolloutDevicesError extends WorkbenchError {
  override name = 'AdaptRolloutDevicesError';
  constructor(readonly address: string) {
    super(`The adaptation config runs GRPO rollouts on the Ray cluster ${address} (ray.address), and devices were given too: one or the other`);
  }
}

export interface AdaptRolloutWorkersOptions {
  /** The caller drives devices of its own (adb devices, say): GRPO rolls out on those, in process. */
  devicesGiven: boolean;
  /** Whether rollouts are recorded (the workers then take the recording's screenshots). */
  recording: boolean;
  /** Messages about the Ray cluster (its servers, one that died). */
  log?: (message: string) => void;
}

/**
 * Runs `fn` with the rollout workers the config asks for, stopped however `fn` ends: null (in process on the devices)
 * when the caller gave devices or `grpo.rolloutWorkers` resolves to 0; `ray.envs` SimDroids on the Ray cluster when
 * `ray.address` is set (started first: a cluster that cannot give its servers is one error before anything runs);
 * else `grpo.rolloutWorkers` worker threads.
 */
export async function withAdaptRolloutWorkers<T>(config: AdaptConfig, opts: AdaptRolloutWorkersOptions, fn: (workers: RolloutWorkerPool | null) => Promise<T>): Promise<T> {
  const cluster = rayCluster(config.ray);
  if (cluster && opts.devicesGiven) throw new AdaptRolloutDevicesError(cluster.address);
  const count = opts.devicesGiven ? 0 : cluster ? cluster.envs : resolveRolloutWorkers(config.grpo.rolloutWorkers, config.grpo.devices);
  if (count === 0) return fn(null);
  const ray = cluster ? await RayEnvServers.start({ ...cluster, ...(opts.log ? { log: opts.log } : {}) }) : null;
  let workers: RolloutWorkerPool | null = null;
  try {
    if (ray) opts.log?.(ray.summary);
    workers = await RolloutWorkerPool.start({
      workers: count, screenshots: opts.recording ? config.recording.screenshots : 'none', ...(ray ? { remote: ray.remote } : {}),
    });
    return await fn(workers);
  } finally {
    await workers?.close();
    await ray?.close();
  }
}
