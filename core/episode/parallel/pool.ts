import { Worker } from 'node:worker_threads';
import type { EpisodeRecorder, EpisodeResult, StepError } from '../record.js';
import type { ScreenshotMode } from '../runner.js';
import type { FromWorker, RolloutJob, ToWorker, WorkerConfig } from './protocol.js';

export type { PolicySpec, RolloutJob } from './protocol.js';

/**
 * Parallel rollouts over N SimDroid devices in worker threads, first come first served (the
 * AndroidWorld-Generalization rollout design, digest 004 §5.3): each device takes the next job
 * the moment it is free, so a slow episode never holds the others back. Records arrive on the
 * main thread, where a single writer (the trajectory store) keeps them. A worker that dies takes
 * only its own episode down: that episode is reported as an environment error and a fresh worker
 * takes its place.
 */
export interface PoolOptions {
  devices: number;
  jobs: readonly RolloutJob[];
  screenshots?: ScreenshotMode;
  maxSteps?: number;
  onMalformed?: 'end' | 'continue';
  /** A recorder for each episode, on the main thread (e.g. a trajectory-store recorder). */
  recorder?: (job: RolloutJob) => EpisodeRecorder | undefined;
  onEpisode?: (job: RolloutJob, outcome: JobOutcome) => void;
  /** Seeds the devices' first-boot content (device i gets seed + i). */
  deviceSeed?: number;
}

export type JobOutcome = { ok: true; result: EpisodeResult; device: string } | { ok: false; error: StepError; device: string };

export interface PoolSummary {
  outcomes: Map<string, JobOutcome>;
  wallMs: number;
  /** Until every device first reported ready (loading code, booting SimDroid). */
  startupMs: number;
  steps: number;
}

export class PoolError extends Error {
  override name = 'PoolError';
}

const ENTRY = new URL('./worker-entry.mjs', import.meta.url);

export async function runPool(opts: PoolOptions): Promise<PoolSummary> {
  if (!Number.isInteger(opts.devices) || opts.devices < 1 || opts.devices > 64) {
    throw new PoolError(`--parallel must be an integer from 1 to 64, got ${opts.devices}`);
  }
  const keys = new Set<string>();
  for (const j of opts.jobs) {
    if (keys.has(j.key)) throw new PoolError(`Duplicate job key ${JSON.stringify(j.key)}`);
    keys.add(j.key);
  }
  const started = performance.now();
  const queue = [...opts.jobs];
  const outcomes = new Map<string, JobOutcome>();
  let steps = 0;
  let spawned = 0;
  let readyDevices = 0;
  let startupMs: number | undefined;
  const width = Math.min(opts.devices, Math.max(1, queue.length));

  return new Promise<PoolSummary>((resolve, reject) => {
    let live = 0;
    let settled = false;
    const finishIfDone = () => {
      if (!settled && live === 0) {
        settled = true;
        resolve({ outcomes, wallMs: performance.now() - started, startupMs: startupMs ?? performance.now() - started, steps });
      }
    };

    const spawn = () => {
      const serial = `simdroid-${spawned}`;
      const config: WorkerConfig = {
        serial, deviceSeed: (opts.deviceSeed ?? 0) + spawned, screenshots: opts.screenshots ?? 'none',
        forward: opts.recorder ? 'records' : 'results',
        ...(opts.maxSteps !== undefined ? { maxSteps: opts.maxSteps } : {}),
        ...(opts.onMalformed ? { onMalformed: opts.onMalformed } : {}),
      };
      spawned++;
      live++;
      const worker = new Worker(ENTRY, { workerData: config });
      let current: RolloutJob | null = null;
      let booted = false;
      let recorder: EpisodeRecorder | undefined;
      // Records of one episode are applied in order, even when a recorder is async.
      let chain: Promise<unknown> = Promise.resolve();
      const apply = (fn: () => unknown) => {
        chain = chain.then(fn).catch((e) => {
          if (!settled) {
            settled = true;
            void worker.terminate();
            reject(e);
          }
        });
        return chain;
      };
      const send = (m: ToWorker) => worker.postMessage(m);
      const complete = (job: RolloutJob, outcome: JobOutcome) => {
        outcomes.set(job.key, outcome);
        opts.onEpisode?.(job, outcome);
      };

      worker.on('message', (m: FromWorker) => {
        switch (m.type) {
          case 'ready': {
            if (!booted) {
              booted = true;
              if (++readyDevices === width) startupMs = performance.now() - started;
            }
            void apply(() => {
              const next = queue.shift();
              current = next ?? null;
              if (next) {
                recorder = opts.recorder?.(next);
                send({ type: 'job', job: next });
              } else send({ type: 'exit' });
            });
            return;
          }
          case 'begin':
            void apply(() => recorder?.begin(m.start));
            return;
          case 'step':
            steps++;
            if (m.before.screenshot) m.before.screenshot = Buffer.from(m.before.screenshot);
            void apply(() => recorder?.step(m.step, m.before));
            return;
          case 'end':
            if (!opts.recorder) steps += m.result.steps.length;
            if (m.final.screenshot) m.final.screenshot = Buffer.from(m.final.screenshot);
            void apply(async () => {
              await recorder?.end(m.result, m.final);
              if (current) complete(current, { ok: true, result: m.result, device: serial });
            });
            return;
          case 'failed':
            void apply(() => {
              if (current) complete(current, { ok: false, error: m.error, device: serial });
            });
            return;
        }
      });
      worker.on('error', (e) => {
        // The worker died (a crash in the device or a bug): its episode fails, the pool goes on.
        void apply(() => {
          if (current && !outcomes.has(current.key)) complete(current, { ok: false, error: { name: 'WorkerCrash', message: e.message }, device: serial });
          current = null;
        });
      });
      worker.on('exit', () => {
        void apply(() => {
          live--;
          if (current && !outcomes.has(current.key)) {
            complete(current, { ok: false, error: { name: 'WorkerCrash', message: `worker ${serial} exited mid-episode` }, device: serial });
          }
          if (queue.length > 0 && !settled) spawn();
          finishIfDone();
        });
      });
    };

    for (let i = 0; i < width; i++) spawn();
  });
}
