import type { EpisodeResult, StepError } from '../../episode/record.js';
import type { ScreenshotMode } from '../../episode/runner.js';
import { WorkerPool, type WorkerOutcome } from './pool.js';
import type { PoolRecorder, RolloutJob } from './protocol.js';
import type { RemoteServers } from '../remote/servers.js';

export type { EpisodeExtras, PoolRecorder, RolloutJob } from './protocol.js';

/**
 * One batch of episodes (a suite, an eval) on N SimDroids in worker threads: the pool of pool.ts
 * opened for this batch and closed after it. Each worker takes a job as soon as it has booted.
 * A worker that dies takes only its own episode down: that episode is reported as an environment
 * error (and, if its recorder saw it begin, ended there as one) and a fresh worker takes its
 * place. Jobs with `subgoals` hand their ground-truth progress to the recorder's `end`.
 *
 * With `remote`, the workers run on remote rollout servers (the Ray actors' environment servers, docs/ray.md) instead
 * of threads here, with the same jobs, records and results. A job whose remote worker died (its actor or node gone)
 * runs once more on another: the failed attempt is recorded as an environment error and reported to `onRerun`, the
 * re-run is a new episode and its outcome the job's.
 */
export interface PoolOptions {
  devices: number;
  jobs: readonly RolloutJob[];
  screenshots?: ScreenshotMode;
  maxSteps?: number;
  onMalformed?: 'end' | 'continue';
  /** A recorder for each episode, on the main thread (e.g. a trajectory-store recorder). */
  recorder?: (job: RolloutJob) => PoolRecorder | undefined;
  onEpisode?: (job: RolloutJob, outcome: JobOutcome) => void;
  /**
   * Seeds the devices' first-boot content, the same for every device (default 0, as openSimDroids and GRPO's workers):
   * an episode then plays out the same whichever device runs it, here or on a Ray node.
   */
  deviceSeed?: number;
  /** The worker script; default worker-entry.mjs (tests substitute one that dies on purpose). */
  entry?: URL;
  /** Run on these remote rollout servers instead of threads of this process (at most their capacity at once). */
  remote?: RemoteServers;
  /** A job whose remote worker died, about to run again (its failed attempt's error). */
  onRerun?: (job: RolloutJob, error: StepError) => void;
}

export type JobOutcome = { ok: true; result: EpisodeResult; device: string } | { ok: false; error: StepError; device: string };

export interface PoolSummary {
  outcomes: Map<string, JobOutcome>;
  wallMs: number;
  /** Until every device first reported ready (loading code, booting SimDroid). */
  startupMs: number;
  steps: number;
  /** Jobs run again after their remote worker died. */
  reruns: number;
}

export class PoolError extends Error {
  override name = 'PoolError';
}

export async function runPool(opts: PoolOptions): Promise<PoolSummary> {
  if (!Number.isInteger(opts.devices) || opts.devices < 1 || opts.devices > 64) {
    throw new PoolError(`--parallel must be an integer from 1 to 64, got ${opts.devices}`);
  }
  const keys = new Set<string>();
  for (const j of opts.jobs) {
    if (keys.has(j.key)) throw new PoolError(`Duplicate job key ${JSON.stringify(j.key)}`);
    keys.add(j.key);
    if (j.subgoals && !opts.recorder) throw new PoolError(`Job ${JSON.stringify(j.key)} captures subgoals, which travel with the records: give the pool a recorder`);
  }
  const started = performance.now();
  const forward = opts.recorder ? 'records' : 'results';
  const remote = opts.remote;
  if (remote && remote.capacity < 1) throw new PoolError('No live rollout server is left to run on');
  const pool = WorkerPool.open({
    workers: Math.min(opts.devices, Math.max(1, opts.jobs.length), remote ? remote.capacity : Infinity),
    ...(opts.entry ? { entry: opts.entry } : {}),
    ...(remote ? { startWorker: remote.startWorker } : {}),
    config: (i) => ({
      serial: `simdroid-${i}`, deviceSeed: opts.deviceSeed ?? 0, screenshots: opts.screenshots ?? 'none', forward,
      ...(opts.maxSteps !== undefined ? { maxSteps: opts.maxSteps } : {}),
      ...(opts.onMalformed ? { onMalformed: opts.onMalformed } : {}),
    }),
  });
  let startupMs: number | undefined;
  void pool.started.then(() => (startupMs = performance.now() - started), () => {});
  const outcomes = new Map<string, JobOutcome>();
  let steps = 0;
  let reruns = 0;
  try {
    await pool.run(opts.jobs, {
      forward,
      ...(opts.recorder ? { recorder: opts.recorder } : {}),
      ...(remote ? {
        rerunCrashed: true,
        onRerun: (job: RolloutJob, failed: Extract<WorkerOutcome, { ok: false }>) => {
          reruns++;
          steps += failed.steps.length;
          opts.onRerun?.(job, failed.error);
        },
      } : {}),
      onEpisode: (job, o) => {
        // Steps that reached this thread: every forwarded one with a recorder, else those of finished episodes.
        steps += o.ok ? o.result.steps.length : o.steps.length;
        const outcome = jobOutcome(o);
        outcomes.set(job.key, outcome);
        opts.onEpisode?.(job, outcome);
      },
    });
  } finally {
    await pool.close();
  }
  return { outcomes, wallMs: performance.now() - started, startupMs: startupMs ?? performance.now() - started, steps, reruns };
}

function jobOutcome(o: WorkerOutcome): JobOutcome {
  return o.ok ? { ok: true, result: o.result, device: o.device } : { ok: false, error: o.error, device: o.device };
}
