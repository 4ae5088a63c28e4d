import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { VlmPolicySettings } from '../policy/vlm/settings.js';
import { createRun, finishRun } from '../store/runs.js';
import type { RunId } from '../store/ids.js';
import type { RemoteJob } from '../store/remote-jobs.js';
import { putIterationMetrics } from '../store/training.js';
import { DEFAULT_ADVANTAGE_OPTIONS } from '../rl/grpo.js';
import { TrainConfigSchema, type TrainConfig } from '../rl/config.js';
import { RolloutRecording } from '../rl/rollout-recording.js';
import { mean, runGrpoLoop, type GrpoAdvantages } from '../rl/grpo-loop.js';
import { assertNever } from '../util/errors.js';
import { writeBundle } from './bundle.js';
import { BuiltinOnlineDriver } from './online-builtin.js';
import { OnlineGrpoConfigError, OnlineGrpoJobError, OnlineGrpoStoppedError } from './online-errors.js';
import {
  ONLINE_METRIC, TRAINER_METRIC_PREFIX, type OnlineBatch, type OnlineDriver, type OnlineGrpoHooks, type OnlineGrpoOptions, type OnlineIteration,
  type OnlineRollouts, type ScoredRollout,
} from './online-types.js';
import { SERVER_OTHER, vlmConfigOverrides, VlmOnlineDriver } from './online-vlm.js';
import { parseJobConfig } from './protocol.js';
import type { RemoteJobs } from './remote.js';

export * from './online-types.js';
export { rolloutRequestSeed } from './online-vlm.js';


/**
 * Online GRPO against a remote trainer (docs/online-grpo.md), on the GRPO loop (core/rl/grpo-loop.ts)
 * with a remote update. Iterations k = 1..N, each:
 *   rollout   G episodes per task instance with the CURRENT policy (builtin checkpoint or served VLM)
 *   score     outcome reward from the task checker (a VLM format error ends the episode a failure;
 *             an episode ended by an error is unscorable, NaN)
 *   advantage group-relative, core/rl/grpo.ts with local GRPO's defaults; zero-std groups skipped
 *             and counted; an iteration with no group left submits nothing and goes on
 *   remote    bundle → resumable upload → idempotent submit (a normal remote_jobs record) → follow
 *   switch    builtin: download policy.json, load it; vlm: published.json, wait for /v1/models, ask for it
 *   log       one row of iteration metrics in the run (kind 'training') the Training view charts
 * A failed or cancelled job stops the loop with OnlineGrpoJobError; any error ends the run
 * 'interrupted' and writes no metrics for the iteration it happened in. No resume after a crash.
 */

export interface OnlineGrpoDeps {
  jobs: RemoteJobs;
  dataDir: string;
  now?: () => number;
  /** For the VLM's endpoint calls and GET /v1/models (tests). */
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export interface OnlineGrpoResult {
  runId: RunId;
  iterations: OnlineIteration[];
  /** Iterations that submitted nothing (no group had a reward spread). */
  skippedIterations: number;
  /** builtin: the registered checkpoint (or the start when no job ran); vlm: the served model name last switched to. */
  finalPolicy: string;
}

/** The VLM settings as the run records them: never the key. */
function storableSettings(s: VlmPolicySettings): Record<string, unknown> {
  const { apiKey: _key, ...endpoint } = s.endpoint;
  return { ...s, endpoint };
}

/** The retention and screenshots of the recorded rollouts, checked (offline GRPO's `recording` schema). */
function recordingOf(o: OnlineGrpoOptions): TrainConfig['recording'] {
  const r = TrainConfigSchema.shape.recording.safeParse(o.recording ?? {});
  if (!r.success) throw new OnlineGrpoConfigError('recording', o.recording, r.error.issues.map((i) => `${i.path.join('.') || '(recording)'}: ${i.message}`).join('; '));
  return r.data;
}

/** Whether the loop records its rollouts: a VLM's always (its bundle is their export), the builtin policy's when asked. */
const recordsRollouts = (p: OnlineGrpoOptions['policy']): boolean => p.kind === 'vlm' || p.recordEpisodes === true;

function check(o: OnlineGrpoOptions): void {
  const int = (field: string, v: number, min: number) => {
    if (!Number.isInteger(v) || v < min) throw new OnlineGrpoConfigError(field, v, `must be an integer ≥ ${min}`);
  };
  int('iterations', o.iterations, 1);
  int('groupSize', o.groupSize, 2);
  int('maxSteps', o.maxSteps, 1);
  int('devices', o.devices ?? 1, 1);
  if (!(o.temperature > 0)) throw new OnlineGrpoConfigError('temperature', o.temperature, 'must be > 0 (a group of identical rollouts has no spread)');
  if (!o.instances.length) throw new OnlineGrpoConfigError('instances', o.source, 'selects no task instance');
  recordingOf(o);
  // The trainer config is checked here too, so a bad override leaves no run behind.
  const p = o.policy;
  switch (p.kind) {
    case 'builtin': parseJobConfig('builtin-grpo', o.config ?? {}); break;
    case 'vlm':
      vlmConfigOverrides(o.config ?? {});
      if (!p.baseModel.trim()) throw new OnlineGrpoConfigError('baseModel', p.baseModel, 'the trainer needs the base model the endpoint serves');
      if (p.settings.endpoint.server === 'other') throw new OnlineGrpoConfigError('endpoint.server', 'other', SERVER_OTHER);
      break;
    default: assertNever(p, 'online policy');
  }
}

function runConfig(o: OnlineGrpoOptions): Record<string, unknown> {
  const p = o.policy;
  const policy = p.kind === 'builtin'
    ? { kind: 'builtin', init: p.init ?? null }
    : { kind: 'vlm', profile: p.profile ?? null, baseModel: p.baseModel, publishName: p.publishName ?? null, settings: storableSettings(p.settings) };
  return {
    loop: 'online-grpo', remoteTrainer: o.trainer, policy, iterations: o.iterations, source: o.source, instances: o.instances.length,
    groupSize: o.groupSize, temperature: o.temperature, maxSteps: o.maxSteps, seed: o.seed, devices: o.devices ?? 1, trainerConfig: o.config ?? {},
    recordEpisodes: recordsRollouts(p), recording: recordingOf(o),
  };
}

/** The metrics of an iteration's rollouts and batch (the remote part's follow once the job ran). */
function rolloutMetrics(rollouts: readonly ScoredRollout[], r: OnlineRollouts, a: GrpoAdvantages, b: OnlineBatch): Record<string, number> {
  const rewards = rollouts.map((x) => x.reward);
  return {
    [ONLINE_METRIC.success]: mean(rollouts.map((x) => (x.result.success ? 1 : 0))),
    [ONLINE_METRIC.rewardMean]: mean(rewards.filter((x) => Number.isFinite(x))),
    [ONLINE_METRIC.groupsSkipped]: a.groups.filter((g) => g.skipped).length,
    [ONLINE_METRIC.envErrors]: rollouts.filter((x) => x.result.status === 'error').length,
    [ONLINE_METRIC.episodeLength]: mean(rollouts.map((x) => x.result.steps.length)),
    [ONLINE_METRIC.rolloutS]: r.rolloutS,
    [ONLINE_METRIC.batchEpisodes]: b.batchEpisodes,
    [ONLINE_METRIC.batchSteps]: b.batchSteps,
    ...b.extra,
  };
}

/** Asks the trainer whether it can run the loop's jobs at all, before the first rollout is paid for. */
async function preflight(o: OnlineGrpoOptions, jobs: RemoteJobs, signal?: AbortSignal): Promise<void> {
  const kind = o.policy.kind === 'builtin' ? 'builtin-grpo' : 'vlm-grpo';
  const health = await jobs.trainerService(o.trainer).health(signal);
  if (!health.kinds.includes(kind)) throw new OnlineGrpoConfigError('trainer', o.trainer, `cannot run ${kind} jobs (it runs ${health.kinds.join(', ') || 'nothing'})`);
  const models = health.vlmModels;
  if (o.policy.kind === 'vlm' && Array.isArray(models) && !models.includes(o.policy.baseModel)) {
    throw new OnlineGrpoConfigError('baseModel', o.policy.baseModel, `is not a model trainer ${o.trainer} can load (it can: ${models.join(', ')}; transformers and peft are missing there)`);
  }
}

/** Runs the loop; see the module comment. */
export async function runOnlineGrpo(o: OnlineGrpoOptions, deps: OnlineGrpoDeps, hooks: OnlineGrpoHooks = {}): Promise<OnlineGrpoResult> {
  check(o);
  const { jobs } = deps;
  const now = deps.now ?? Date.now;
  const log = (line: string) => hooks.onLog?.(line);
  const signal = hooks.signal;
  jobs.profiles.get(o.trainer); // an unknown trainer is refused before any rollout
  await preflight(o, jobs, signal);
  const db = jobs.db;
  const run = createRun(db, { kind: 'training', name: o.name ?? `online-grpo ${o.policy.kind} ${o.trainer}`, config: runConfig(o) });
  let driver: OnlineDriver | null = null;
  // The job an iteration waits for (set in the loop's update, read when a stop cancels it).
  const flight: { job: RemoteJob | null } = { job: null };
  const bundleDir = join(deps.dataDir, 'jobs', 'bundles');
  const iterations: OnlineIteration[] = [];
  let skippedIterations = 0;
  let last: RemoteJob | null = null;
  // The iteration running (1-based): a stop names it.
  let k = 0;
  try {
    hooks.onRun?.(run.id);
    const p = o.policy;
    // The rollouts recorded as offline GRPO records them (core/rl/rollout-recording.ts): scored once the advantages are known, thinned after the job.
    const kept = recordingOf(o);
    const recording = recordsRollouts(p) ? new RolloutRecording(db, run.id, kept, o.iterations) : null;
    const online = { db, id: run.id, recording, screenshots: kept.screenshots };
    switch (p.kind) {
      case 'builtin': driver = new BuiltinOnlineDriver(o, p, jobs, online); break;
      case 'vlm': driver = new VlmOnlineDriver(o, p, jobs, online, { ...(deps.fetch ? { fetch: deps.fetch } : {}), ...(deps.sleep ? { sleep: deps.sleep } : {}), log }); break;
      default: assertNever(p, 'online policy');
    }
    mkdirSync(bundleDir, { recursive: true });
    const d = driver;
    await runGrpoLoop({
      completed: 0, iterations: o.iterations,
      // A stop ends the loop with OnlineGrpoStoppedError (below), not quietly.
      stopBefore: (completed: number) => {
        k = completed + 1;
        signal?.throwIfAborted();
        return false;
      },

      // rollout: G episodes per instance with the current policy (the driver's)
      rollout: () => d.rollout(k, signal),

      // score: the checker's outcome (a VLM format error ended the episode a failure; an error, NaN)
      score: (_, r) => ({ scores: { kind: 'episode', returns: r.groups.map((g) => g.map((x) => x.reward)), steps: r.steps } }),
      advantage: { mode: 'trajectory', options: DEFAULT_ADVANTAGE_OPTIONS },

      // update: bundle → upload + idempotent submit → follow; then switch to the job's policy
      update: async ({ t0 }, { rolled, advantages }): Promise<OnlineIteration> => {
        // Scored before the job, so a stop while it trains leaves the iteration's episodes with their reward and advantage.
        recording?.score(k, rolled.groups, rolled.groups.map((g) => g.map((x) => x.reward)), advantages.advantages);
        const batch = rolled.batch(advantages);
        const rollouts = rolled.groups.flat();
        const metrics = rolloutMetrics(rollouts, rolled, advantages, batch);
        log(`iteration ${k}: ${rollouts.length} rollouts with ${d.current}, success ${(100 * metrics[ONLINE_METRIC.success]!).toFixed(0)}%, ${metrics[ONLINE_METRIC.groupsSkipped]} of ${advantages.groups.length} groups without a reward spread`);
        if (!batch.bundle) {
          skippedIterations++;
          log(`iteration ${k}: every group had zero reward std; nothing submitted, the policy stays ${d.current}`);
          metrics[ONLINE_METRIC.submitted] = 0;
          metrics[ONLINE_METRIC.iterationS] = (performance.now() - t0) / 1000;
          return { iteration: k, metrics, job: null, policy: d.current };
        }

        const file = join(bundleDir, `online-${run.id}-${k}-${process.pid}.tar`);
        let waiting: RemoteJob;
        try {
          const bundle = writeBundle({ ...batch.bundle, file, createdAt: now() });
          const tUp = performance.now();
          const submitted = await jobs.submit({
            trainer: o.trainer, kind: d.jobKind, bundle, config: d.jobConfig(k, last), name: `${run.name} #${k} (run ${run.id})`, ...(signal ? { signal } : {}),
          });
          waiting = flight.job = submitted.job;
          metrics[ONLINE_METRIC.uploadS] = (performance.now() - tUp) / 1000;
          log(`iteration ${k}: job ${submitted.job.remoteId} (local ${submitted.job.id}) submitted, bundle ${bundle.size} bytes`);
        } finally {
          rmSync(file, { force: true });
        }
        const trainerMetrics: Record<string, number> = {};
        for await (const ev of jobs.follow(String(waiting.id), signal ? { signal } : {})) {
          if (ev.type === 'metric') for (const [name, v] of Object.entries(ev.metrics)) if (Number.isFinite(v)) trainerMetrics[`${TRAINER_METRIC_PREFIX}${name}`] = v;
        }
        const { row, job } = await jobs.refresh(String(waiting.id), signal);
        if (job.status !== 'succeeded') throw new OnlineGrpoJobError(k, row.id, job.id, job.status, job.error);
        flight.job = null;
        if (job.startedAt !== null) metrics[ONLINE_METRIC.queueS] = Math.max(0, job.startedAt - job.createdAt) / 1000;
        if (job.startedAt !== null && job.finishedAt !== null) metrics[ONLINE_METRIC.trainS] = Math.max(0, job.finishedAt - job.startedAt) / 1000;

        // switch: the job's output becomes the policy of the next rollouts
        const tSw = performance.now();
        const policy = await d.switchTo(k, row, signal);
        metrics[ONLINE_METRIC.switchS] = (performance.now() - tSw) / 1000;
        last = row;
        log(`iteration ${k}: job ${job.id} succeeded; the policy is now ${policy}`);
        Object.assign(metrics, trainerMetrics, { [ONLINE_METRIC.submitted]: 1, [ONLINE_METRIC.job]: row.id, [ONLINE_METRIC.iterationS]: (performance.now() - t0) / 1000 });
        return { iteration: k, metrics, job: { localId: row.id, remoteId: job.id }, policy };
      },

      // log: one row of iteration metrics in the training run
      log: (_, { updated: it }) => {
        recording?.thin(k);
        putIterationMetrics(db, run.id, k, it.metrics);
        iterations.push(it);
        hooks.onIteration?.(it);
        return false;
      },
    });
    const finalPolicy = driver.finish(last);
    finishRun(db, run.id, 'finished');
    return { runId: run.id, iterations, skippedIterations, finalPolicy };
  } catch (e) {
    // A stop while a job trains: it would train for nothing, so it is cancelled (best effort).
    let stopped: OnlineGrpoStoppedError | null = null;
    if (signal?.aborted) {
      let cancelled: string | null = null;
      const inFlight = flight.job;
      if (inFlight) {
        try {
          cancelled = (await jobs.cancel(String(inFlight.id))).remoteId;
          // The trainer stops a running job at its next step boundary; the local record says so once someone follows it.
          log(`asked the trainer to cancel job ${cancelled} of the stopped loop (a running job stops at its next step boundary; awb jobs status ${inFlight.id} shows its end)`);
        } catch (ce) {
          log(`could not cancel job ${inFlight.remoteId ?? inFlight.id}: ${(ce as Error).message}`);
        }
      }
      const reason = signal.reason instanceof Error ? signal.reason.message : String(signal.reason);
      stopped = new OnlineGrpoStoppedError(Math.min(Math.max(1, k), o.iterations), cancelled, reason);
    }
    try {
      finishRun(db, run.id, 'interrupted');
    } catch (fe) {
      log(`could not mark run ${run.id} interrupted: ${(fe as Error).message}`); // the original error says more
    }
    throw stopped ?? e;
  } finally {
    driver?.close();
  }
}
