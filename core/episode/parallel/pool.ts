import { Worker } from 'node:worker_threads';
import type { EpisodeResult, EpisodeStart, StepError, StepRecord } from '../record.js';
import type { ScreenshotMode } from '../runner.js';
import type { EpisodeExtras, FromWorker, PoolRecorder, RolloutJob, ToWorker, WorkerConfig } from './protocol.js';

export type { EpisodeExtras, PoolRecorder, RolloutJob } from './protocol.js';

/**
 * Parallel rollouts over N SimDroid devices in worker threads, first come first served (the
 * AndroidWorld-Generalization rollout design, digest 004 §5.3): each device takes the next job
 * the moment it is free, so a slow episode never holds the others back. Records arrive on the
 * main thread, where a single writer (the trajectory store) keeps them. A worker that dies takes
 * only its own episode down: that episode is reported as an environment error (and, if its recorder
 * saw it begin, ended there as one, so no recording stays 'running') and a fresh worker takes its
 * place. Jobs with `subgoals` hand their ground-truth progress to the recorder's `end`.
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
  /** Seeds the devices' first-boot content (device i gets seed + i). */
  deviceSeed?: number;
  /** The worker script; default worker-entry.mjs (tests substitute one that dies on purpose). */
  entry?: URL;
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
    if (j.subgoals && !opts.recorder) throw new PoolError(`Job ${JSON.stringify(j.key)} captures subgoals, which travel with the records: give the pool a recorder`);
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
      const worker = new Worker(opts.entry ?? ENTRY, { workerData: config });
      let current: RolloutJob | null = null;
      let booted = false;
      let recorder: PoolRecorder | undefined;
      // What reached this thread of the current episode: to end its recording if the worker dies.
      let begun: EpisodeStart | undefined;
      let ended = false;
      let episodeSteps: StepRecord[] = [];
      let subgoals: EpisodeExtras['subgoals'];
      let crash: string | undefined;
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
      const extras = (): EpisodeExtras => (subgoals ? { subgoals } : {});
      // A job that failed or whose worker died after its recording began: end it as an environment
      // error (as the runner ends one whose device failed), so the store never keeps it 'running'.
      const endUnfinished = async (error: StepError) => {
        if (!recorder || !begun || ended) return;
        ended = true;
        await recorder.end(unfinishedResult(begun, episodeSteps, error), { xml: '' }, extras());
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
              begun = undefined;
              ended = false;
              episodeSteps = [];
              subgoals = undefined;
              if (next) {
                recorder = opts.recorder?.(next);
                send({ type: 'job', job: next });
              } else send({ type: 'exit' });
            });
            return;
          }
          case 'begin':
            void apply(() => {
              begun = m.start;
              if (m.subgoalNames) subgoals = { names: m.subgoalNames, done: [] };
              return recorder?.begin(m.start);
            });
            return;
          case 'step':
            steps++;
            if (m.before.screenshot) m.before.screenshot = Buffer.from(m.before.screenshot);
            void apply(() => {
              episodeSteps.push(m.step);
              if (subgoals && m.subgoalsDone !== undefined) subgoals.done.push(m.subgoalsDone);
              return recorder?.step(m.step, m.before);
            });
            return;
          case 'end':
            if (!opts.recorder) steps += m.result.steps.length;
            if (m.final.screenshot) m.final.screenshot = Buffer.from(m.final.screenshot);
            void apply(async () => {
              ended = true;
              await recorder?.end(m.result, m.final, extras());
              if (current) complete(current, { ok: true, result: m.result, device: serial });
            });
            return;
          case 'failed':
            void apply(async () => {
              await endUnfinished(m.error);
              if (current) complete(current, { ok: false, error: m.error, device: serial });
            });
            return;
        }
      });
      worker.on('error', (e) => {
        // The worker died (a crash in the device or a bug); 'exit' follows and fails its episode.
        crash = `${e.name}: ${e.message}`;
      });
      worker.on('exit', (code) => {
        void apply(async () => {
          live--;
          if (current && !outcomes.has(current.key)) {
            const error = { name: 'WorkerCrash', message: `worker ${serial} died mid-episode: ${crash ?? `exited with code ${code}`}` };
            await endUnfinished(error);
            complete(current, { ok: false, error, device: serial });
          }
          current = null;
          if (queue.length > 0 && !settled) spawn();
          finishIfDone();
        });
      });
    };

    for (let i = 0; i < width; i++) spawn();
  });
}

/** The result of an episode its worker did not finish: an environment error, with the steps that reached this thread. */
function unfinishedResult(start: EpisodeStart, steps: StepRecord[], error: StepError): EpisodeResult {
  const now = Date.now();
  return {
    templateId: start.templateId, seed: start.seed, instruction: start.instruction, policy: start.policy,
    steps, success: false, status: 'error', outcome: { actions: steps.flatMap((s) => (s.action ? [s.action] : [])) },
    terminatedBy: 'environment_error', error,
    timings: { resetMs: 0, checkMs: 0, totalMs: now - start.startedAt }, startedAt: start.startedAt, finishedAt: now,
  };
}
