import { availableParallelism } from 'node:os';
import type { EpisodeRecorder, EpisodeResult } from '../episode/record.js';
import type { ScreenshotMode } from '../episode/runner.js';
import type { RolloutJob as WireJob, WorkerModel, WorkerStepRecord } from './threads/protocol.js';
import { unfinishedResult, WorkerPool, type WorkerOutcome } from './threads/pool.js';
import type { RemoteServers } from './remote/servers.js';
import { BuiltinPolicy, type PolicyModel, type PolicyStepRecord } from '../policy/builtin.js';
import type { AdapterChoice } from '../policy/adapter-policy.js';
import type { PolicySpec } from '../policy/registry.js';
import { instanceKey, instantiate, type TaskInstance } from '../tasks/instance.js';
import { getTemplate } from '../tasks/registry.js';
import { WorkbenchError } from '../util/errors.js';
import { createRng } from '../util/rng.js';
import { outcomeReward, ROLLOUT_POLICY_NAME, rolloutRecorder, type Rollout, type RolloutJob, type RolloutOptions, type TreeCapture } from './rollouts.js';

/**
 * GRPO rollouts on SimDroids in worker threads: the same jobs, options and results as
 * `runRollouts` (rollouts.ts), but each device runs in its own thread, so N devices use N cores.
 *
 * Per batch the policy parameters go to each worker once (a copy of the Float32Array plus the
 * encoder config and network dims); jobs are then handed out first come first served. A worker
 * samples with `createRng(job.rngKey)` exactly as the in-process path does, so rewards, actions
 * and log-probs are identical whichever path or device runs a rollout. Step records come back
 * with the episode's end, their feature matrices transferred rather than copied; without a
 * recorder the result's steps leave out `candidates` (the scored alternatives, most of a result's
 * bytes; the trainer reads only the step records). With a recorder, every step is forwarded in full
 * and recorded on this thread (the store's single writer).
 *
 * A worker that dies mid-episode (a thrown error, an exit) fails only that rollout: it becomes an
 * environment error (status 'error', reward NaN, so left out of its group's statistics, as
 * outcomeReward does for any 'error' episode), a recorder gets that result, and a fresh worker
 * takes the device's place. A worker that cannot start stops the run (WorkerStartError), as does
 * a recorder that throws.
 *
 * With `remote`, the workers are remote rollout servers' (Ray actors', docs/ray.md): the same jobs and results. A
 * rollout whose remote worker died runs once more on another worker (a recorded failed attempt stays as an
 * environment error; the re-run is a new episode and the rollout's result), so the group keeps its G episodes;
 * `reruns` counts them.
 */

export class RolloutWorkersError extends WorkbenchError {
  override name = 'RolloutWorkersError';
  constructor(readonly workers: unknown) {
    super(`Rollout workers must be an integer from 1 to 64, got ${JSON.stringify(workers)}`);
  }
}

/** A rollout whose task instance a worker cannot rebuild from the registry (template id + seed). */
export class RolloutInstanceError extends WorkbenchError {
  override name = 'RolloutInstanceError';
  constructor(readonly templateId: string, readonly seed: number, reason: string) {
    super(`Rollout of ${templateId} seed ${seed} cannot run in a worker thread: ${reason}. Use in-process rollouts (rolloutWorkers: 0).`);
  }
}

/**
 * How many rollout workers a `rolloutWorkers` setting means: 0 = in-process. 'auto' takes one per
 * core, at most one per device, and stays in-process when that is a single worker (one worker
 * only adds message passing: the training thread idles during rollouts either way).
 */
export function resolveRolloutWorkers(setting: 'auto' | number, devices: number, cores = availableParallelism()): number {
  if (setting !== 'auto') return setting;
  const n = Math.min(devices, cores);
  return n >= 2 ? n : 0;
}

/** One batch of sampled rollouts (RolloutWorkerPool.sample): what every worker samples with and how each job's policy is named. */
export interface SampledBatch extends Pick<RolloutOptions, 'maxSteps' | 'recorder' | 'captureTrees'> {
  /**
   * The parameters each worker receives once, before its first job of the batch (the builtin policy's); none for a
   * policy whose jobs name their model (a transformer model folder, sent with the first job that names it).
   */
  model?: WorkerModel;
  /** A job's policy: a sampling spec with the job's rngKey, so a rollout is the same on any worker. */
  policy: (job: RolloutJob) => PolicySpec;
  /** The name the episodes carry, and so the result of a rollout whose worker failed. */
  policyName: string;
}

/** A rollout from a worker: its records are those of the job's policy kind (the caller knows which it asked for). */
export interface SampledRollout extends Omit<Rollout, 'records'> {
  records: WorkerStepRecord[];
}

/** A model's parameters as a worker receives them (protocol.ts WorkerModel), with the adapters of adapted sampling if any. */
export function workerModel(model: PolicyModel, adapters: readonly AdapterChoice[] = []): WorkerModel {
  return {
    encoder: model.encoder.config, dims: model.net.dims, params: model.net.params,
    ...(adapters.length ? { adapters: adapters.map((a) => ({ app: a.app, package: a.package, spec: a.adapter.spec, params: a.adapter.params })) } : {}),
  };
}

export interface RolloutWorkerPoolOptions {
  workers: number;
  /** Screenshots of recorded rollouts (default 'none'); fixed for the pool's life, as each worker's device config is. */
  screenshots?: ScreenshotMode;
  /** The worker script (tests substitute one that crashes on purpose). */
  entry?: URL;
  /** Run on these remote rollout servers instead of threads of this process (`workers` at most their capacity). */
  remote?: RemoteServers;
}

export class RolloutWorkerPool {
  /** Rollouts run again after their remote worker died, over the pool's life. */
  reruns = 0;

  private constructor(private readonly pool: WorkerPool, private readonly remote: boolean) {}

  /** Starts the workers (each boots a SimDroid) and waits until all are ready. */
  static async start(opts: RolloutWorkerPoolOptions): Promise<RolloutWorkerPool> {
    if (!Number.isInteger(opts.workers) || opts.workers < 1 || opts.workers > 64) throw new RolloutWorkersError(opts.workers);
    const pool = await WorkerPool.start({
      workers: opts.remote ? Math.min(opts.workers, opts.remote.capacity) : opts.workers,
      ...(opts.entry ? { entry: opts.entry } : {}),
      ...(opts.remote ? { startWorker: opts.remote.startWorker } : {}),
      // Device seed 0 for all, as the in-process path's SimDroids (openSimDroids): the boot content is then the same everywhere.
      config: (i) => ({ serial: `simdroid-grpo-w${i}`, deviceSeed: 0, screenshots: opts.screenshots ?? 'none', onMalformed: 'continue', forward: 'results' }),
    });
    return new RolloutWorkerPool(pool, opts.remote !== undefined);
  }

  /** Live workers (a crashed one is replaced). */
  get size(): number {
    return this.pool.size;
  }

  /** Runs the rollouts; results in job order, as runRollouts. A refused batch is a rejection, as every other error. */
  async run(jobs: readonly RolloutJob[], opts: RolloutOptions): Promise<Rollout[]> {
    // Refuse what the in-process path refuses (a bad temperature), before any worker sees it.
    new BuiltinPolicy(opts.model, { mode: 'sample', temperature: opts.temperature, rng: createRng('check') });
    const rollouts = await this.sample(jobs, {
      model: workerModel(opts.model), policyName: ROLLOUT_POLICY_NAME, maxSteps: opts.maxSteps,
      policy: (j) => ({ name: 'builtin-sample', temperature: opts.temperature, rngKey: j.rngKey, policyName: ROLLOUT_POLICY_NAME }),
      ...(opts.recorder ? { recorder: opts.recorder } : {}), ...(opts.captureTrees ? { captureTrees: true } : {}),
    });
    return rollouts.map((r) => ({ ...r, records: r.records.filter((x): x is PolicyStepRecord => 'features' in x) }));
  }

  /**
   * Runs rollouts of any sampling policy the workers know ('builtin-sample', adaptation's 'builtin-adapted-sample',
   * 'transformer-sample'): `batch.model` goes to each worker once, then each job runs with its spec; results in job
   * order, each with the policy's step records as the worker sent them.
   */
  async sample(jobs: readonly RolloutJob[], batch: SampledBatch): Promise<SampledRollout[]> {
    const checked = new Map<string, string>();
    for (const j of jobs) checkRebuildable(j.instance, checked);
    if (batch.model) this.pool.setModel(batch.model);
    const wire: WireJob[] = jobs.map((j, k) => ({
      key: String(k), templateId: j.instance.template.id, seed: j.instance.seed, maxSteps: batch.maxSteps, policy: batch.policy(j),
    }));
    // Steps are forwarded in full (with the tree each was taken on) only when a recorder needs them.
    const recorders = new Map<string, { recorder: EpisodeRecorder; capture?: TreeCapture }>();
    // A re-run asks for a recorder again: its episode is a new one, and its trees replace the failed attempt's.
    const rerun = this.remote ? { rerunCrashed: true, onRerun: () => void this.reruns++ } : {};
    const outcomes = await this.pool.run(wire, batch.recorder || batch.captureTrees
      ? { ...rerun, forward: 'records', recorder: (w) => { const r = rolloutRecorder(batch, jobs[Number(w.key)]!); recorders.set(w.key, { recorder: r.recorder!, ...(r.capture ? { capture: r.capture } : {}) }); return r.recorder!; } }
      : { ...rerun, forward: 'results' });
    const out: SampledRollout[] = [];
    for (const [k, job] of jobs.entries()) {
      const o = outcomes.get(String(k))!;
      const rec = recorders.get(String(k));
      const trees = rec?.capture ? { trees: rec.capture.trees } : {};
      if (o.ok) {
        out.push({ job, result: o.result, records: o.records, reward: outcomeReward(o.result), ...trees });
        continue;
      }
      const result = failedResult(job.instance, o, batch.policyName);
      // GRPO records every rollout: the pool ended the recordings it saw begin, this ends the others.
      if (!o.start) await rec?.recorder.end(result, { xml: '' });
      out.push({ job, result, records: [], reward: outcomeReward(result), ...trees });
    }
    return out;
  }

  /** Stops every worker; safe to call more than once. */
  close(): Promise<void> {
    return this.pool.close();
  }
}

/** Workers rebuild an instance as instantiate(getTemplate(id), seed): anything else would silently train on another task. */
function checkRebuildable(instance: TaskInstance, checked: Map<string, string>): void {
  const id = instance.template.id;
  const tag = `${id}#${instance.seed}`;
  let key = checked.get(tag);
  if (key === undefined) {
    let template;
    try {
      template = getTemplate(id);
    } catch {
      throw new RolloutInstanceError(id, instance.seed, 'its template is not in the registry');
    }
    if (template !== instance.template) throw new RolloutInstanceError(id, instance.seed, 'its template object is not the registry’s');
    key = instanceKey(instantiate(template, instance.seed));
    checked.set(tag, key);
  }
  if (key !== instanceKey(instance)) throw new RolloutInstanceError(id, instance.seed, 'its parameters differ from the ones its seed generates');
}

/** The result of a rollout whose worker failed: an environment error, with what reached this thread. */
function failedResult(instance: TaskInstance, o: Extract<WorkerOutcome, { ok: false }>, policy: string): EpisodeResult {
  const now = Date.now();
  const start = { templateId: instance.template.id, seed: instance.seed, instruction: instance.instruction, policy, startedAt: o.start?.startedAt ?? now };
  return unfinishedResult(start, o.steps, o.error, now);
}
