import type { Device } from '../device/device.js';
import { openSimDroids } from '../devices/provider.js';
import { createModel, type PolicyModel } from '../policy/builtin.js';
import { loadCheckpoint } from '../policy/checkpoint.js';
import { Adam, type AdamOptions } from '../policy/network.js';
import { createRun, finishRun, getRun, openStore, resumeRun, type RunId, type StoreRecorder, type WritableDB } from '../store/index.js';
import { deleteRolloutsAfter, putIterationMetrics } from '../store/training.js';
import { TASKS } from '../tasks/registry.js';
import { instanceKey, type TaskInstance } from '../tasks/instance.js';
import { splitInstances } from '../tasks/splits.js';
import { WorkbenchError } from '../util/errors.js';
import { createRng } from '../util/rng.js';
import { shortestPathRewards } from '../rewards/shortest-path.js';
import { emptyFcf, emptyReplayBuffer, fcfWeight, pruneNegatives, pushReplay, sampleReplay, updateFcf } from './adagrpo.js';
import {
  advantageOptions, curriculumOptions, failureCurriculumOptions, lossOptions, positiveReplayOptions, shortestPathOptions, type TrainConfig,
} from './config.js';
import { advanceCurriculum, initialCurriculum, sampleIterationTasks } from './curriculum.js';
import { loadTrainerCheckpoint, saveTrainerCheckpoint, type ReplayEpisode, type TrainerState } from './grpo-checkpoint.js';
import { iterationMetrics, mean, METRIC, runGrpoLoop, type GroupScores, type IterationMetrics } from './grpo-loop.js';
import { trainingBatch, updatePolicy, type BatchEpisode } from './grpo-update.js';
import { runRollouts, type RolloutJob, type RolloutOptions } from '../rollout/rollouts.js';
import { resolveRolloutWorkers, RolloutWorkerPool } from '../rollout/rollout-workers.js';
import { RayEnvServers } from '../rollout/ray.js';
import { rayCluster } from '../rollout/ray-settings.js';
import { REWARD_METRIC, storeRewardValues, TrainingRewards } from './train-rewards.js';
import { scorerParameters } from './trained-scorer.js';
import { RolloutRecording } from './rollout-recording.js';

/**
 * GRPO / AdaGRPO training of the builtin policy (docs/rl.md), on the GRPO loop (grpo-loop.ts). One
 * iteration: rollout (G episodes per sampled task instance on N devices) → score (checker outcome,
 * or the composed reward components of `config.rewards` with their credit (train-rewards.ts); SPA) →
 * advantages (group-normalised, trajectory or step level; zero-std groups skipped) → update
 * (negatives pruned, positive replay mixed in, then the local update of grpo-update.ts: epochs ×
 * minibatches of the clipped surrogate + k3 KL, Adam) → log (metrics to the callback and the store,
 * checkpoint every `checkpointEvery` iterations). With `config.ray.address`, the rollouts run on SimDroids of a Ray
 * cluster (core/rollout/ray.ts, docs/ray.md) with the same results; a rollout whose actor died runs again there.
 */

export interface TrainGrpoOptions {
  config: TrainConfig;
  /** Checkpoint directory (trainer.json + policy.json). */
  outDir: string;
  /** Continue from outDir's last checkpoint (its config is used; `config.iterations` may extend the run). */
  resume?: boolean;
  /** The task instances to sample from; default: the config's split part of every template. */
  instances?: readonly TaskInstance[];
  /**
   * Devices for rollouts, run in-process; default: SimDroids of our own, in `config.rolloutWorkers`
   * worker threads, or `config.devices` in-process ones when that resolves to 0 (closed at the end),
   * or `config.ray.envs` on a Ray cluster when `config.ray.address` is set (the caller's devices then are refused).
   */
  devices?: readonly Device[];
  /** Messages about the Ray cluster (servers started, one that died). */
  log?: (message: string) => void;
  /** Trajectory store: a 'training' run gets the per-iteration metrics. */
  db?: WritableDB;
  /**
   * For `config.rewards` components: the store their state lives in (ADMIRE's milestone memory;
   * default `db`, else an in-memory store for this run) and the data folder relative checkpoint paths
   * resolve under.
   */
  rewardContext?: { db?: WritableDB; dataDir?: string };
  /**
   * Also record every rollout episode in the store, with its iteration, group, reward and advantage, thinned by
   * `config.recording` (default off).
   */
  recordEpisodes?: boolean;
  /** The store run to write into (the workbench's job opened it); default: the checkpoint's run, else a new one. */
  runId?: RunId;
  /** Stop after the current iteration (a checkpoint is written). */
  signal?: AbortSignal;
  /** Called with the store run once it is created or resumed (the CLI marks it if it must end the process). */
  onRun?: (runId: RunId) => void;
  onIteration?: (m: IterationMetrics, model: PolicyModel) => void;
  /**
   * Awaited before each iteration with the iterations completed so far (the workbench's training
   * job pauses here). When given, an abort seen after it ends the run before the iteration starts
   * (checkpoint written), so a stop while paused does no more work.
   */
  beforeIteration?: (completed: number) => Promise<void>;
}

export interface TrainGrpoResult {
  /** Iterations completed in total (including those before a resume). */
  iterations: number;
  stoppedBy: 'done' | 'aborted';
  runId: RunId | null;
  history: IterationMetrics[];
  model: PolicyModel;
}

export class TrainingDivergedError extends WorkbenchError {
  override name = 'TrainingDivergedError';
  constructor(readonly iteration: number, readonly metric: string, readonly value: number, readonly lastCheckpoint: number | null, dir: string) {
    super(`GRPO training diverged at iteration ${iteration}: ${metric} is ${value}. Stopped; ${lastCheckpoint === null
      ? 'no checkpoint was written yet' : `the last good checkpoint (iteration ${lastCheckpoint}) is kept in ${dir}`}.`);
  }
}

export class TrainingDevicesError extends WorkbenchError {
  override name = 'TrainingDevicesError';
  constructor(readonly address: string) {
    super(`The config runs rollouts on the Ray cluster ${address} (ray.address), and devices were given too: one or the other`);
  }
}

export class TrainingPoolError extends WorkbenchError {
  override name = 'TrainingPoolError';
  constructor(readonly iteration: number, readonly poolSize: number) {
    super(`GRPO iteration ${iteration}: no task instance can be sampled (pool of ${poolSize}; failure curriculum may have removed every task)`);
  }
}

function adamFor(size: number, c: TrainConfig): Adam {
  const opts: AdamOptions = { lr: c.optimizer.learningRate, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, maxGradNorm: c.optimizer.maxGradNorm ?? 0 };
  return new Adam(size, opts);
}

function freshState(config: TrainConfig): TrainerState {
  const model = config.init ? loadCheckpoint(config.init).model : createModel(createRng(`grpo/${config.seed}/init`));
  return {
    iteration: 0, config, runId: null, model, reference: model.net.clone(), adam: adamFor(model.net.params.length, config),
    replay: emptyReplayBuffer<ReplayEpisode>(), fcf: emptyFcf(), curriculum: initialCurriculum(curriculumOptions(config)), lastSuccessRate: null,
  };
}

/** Linear warmup over ⌈warmupFraction · iterations⌉ iterations, then constant (AW-Gen App. J). */
export function learningRateAt(c: TrainConfig, iteration0: number): number {
  const warm = Math.ceil(c.optimizer.warmupFraction * c.iterations);
  return c.optimizer.learningRate * (warm > 0 ? Math.min(1, (iteration0 + 1) / warm) : 1);
}

/** Runs (or resumes) a GRPO / AdaGRPO training run; see the module comment. */
export async function trainGrpo(opts: TrainGrpoOptions): Promise<TrainGrpoResult> {
  const s: TrainerState = opts.resume ? loadTrainerCheckpoint(opts.outDir, adamFor) : freshState(opts.config);
  if (opts.resume) s.config = { ...s.config, iterations: Math.max(s.config.iterations, opts.config.iterations) };
  const c = s.config;
  const pool = opts.instances ?? splitInstances(TASKS, c.split, c.part);
  const candidates = pool.map((instance) => ({ key: instanceKey(instance), difficulty: instance.template.difficulty, instance }));
  // Rollout devices: the caller's (in-process), else a Ray cluster's, else worker threads with a SimDroid each, else in-process SimDroids.
  const cluster = rayCluster(c.ray);
  if (cluster && opts.devices) throw new TrainingDevicesError(cluster.address);
  const workerCount = opts.devices ? 0 : cluster ? cluster.envs : resolveRolloutWorkers(c.rolloutWorkers, c.devices);
  const ownDevices = opts.devices || workerCount > 0 ? null : openSimDroids(c.devices, 'simdroid-grpo-');
  const devices = opts.devices ?? ownDevices ?? [];
  let workers: RolloutWorkerPool | null = null;
  let ray: RayEnvServers | null = null;
  const db = opts.db;
  let runId: RunId | null = null;
  // The cluster before the store's run: one that cannot give us its servers is an error with nothing started.
  if (cluster) {
    ray = await RayEnvServers.start({ ...cluster, ...(opts.log ? { log: opts.log } : {}) });
    opts.log?.(ray.summary);
  }
  try {
    if (db) {
      const given = opts.runId !== undefined ? getRun(db, opts.runId) : null;
      const existing = given ?? (s.runId !== null && (() => { try { return getRun(db, s.runId as RunId); } catch { return null; } })()); // a checkpoint from another store: start a new run
      runId = given ? given.id : existing ? resumeRun(db, existing.id).run.id : createRun(db, { kind: 'training', name: `grpo ${c.split}/${c.part} seed ${c.seed}`, config: c }).id;
      // The iterations after the checkpoint run again: their recorded rollouts go, as their metrics are replaced.
      if (existing) deleteRolloutsAfter(db, runId, s.iteration);
    }
  } catch (e) {
    await ray?.close();
    throw e;
  }
  s.runId = runId;
  if (runId !== null) opts.onRun?.(runId);
  const advOpts = advantageOptions(c);
  const lossOpts = lossOptions(c);
  const replayOpts = positiveReplayOptions(c);
  const { shortestPath: spa, positiveReplay: adapr, failureCurriculum: fcfOn } = c.adagrpo;
  const history: IterationMetrics[] = [];
  let stoppedBy: TrainGrpoResult['stoppedBy'] = 'done';
  let lastCheckpoint: number | null = opts.resume ? s.iteration : null;
  const checkpoint = () => {
    saveTrainerCheckpoint(opts.outDir, s);
    lastCheckpoint = s.iteration;
  };
  const diverged = (iteration: number, metric: string, value: number): never => {
    if (db && runId !== null) finishRun(db, runId, 'interrupted');
    throw new TrainingDivergedError(iteration, metric, value, lastCheckpoint, opts.outDir);
  };

  // Reward components keep state in a store (ADMIRE's milestone memory): the run's, else one in memory for this run.
  let rewardStore: WritableDB | null = null;
  try {
    let rewards: TrainingRewards | null = null;
    if (c.rewards.components !== null) {
      const given = opts.rewardContext?.db ?? db;
      if (!given) rewardStore = openStore(':memory:');
      const dataDir = opts.rewardContext?.dataDir;
      rewards = await TrainingRewards.start(c.rewards, { db: given ?? rewardStore!, ...(dataDir ? { dataDir } : {}) });
    }
    // Started once per run, stopped in `finally` (end, abort, error); each iteration sends it the current parameters.
    const recording = opts.recordEpisodes === true && db && runId !== null ? new RolloutRecording(db, runId, c.recording, c.iterations) : null;
    const screenshots = recording ? c.recording.screenshots : 'none';
    if (workerCount > 0) workers = await RolloutWorkerPool.start({ workers: workerCount, screenshots, ...(ray ? { remote: ray.remote } : {}) });
    const end = await runGrpoLoop({
      completed: s.iteration, iterations: c.iterations,
      ...(opts.beforeIteration ? { stopBefore: async (completed: number) => {
        await opts.beforeIteration!(completed);
        if (!opts.signal?.aborted) return false;
        if (lastCheckpoint !== s.iteration) checkpoint();
        return true;
      } } : {}),

      // rollout: curriculum stage, FCF-weighted task sampling, G episodes per instance on the devices
      rollout: async ({ iter0, iteration }) => {
        const rng = createRng(`grpo/${c.seed}/iteration/${iter0}`);
        const curriculum = advanceCurriculum(s.curriculum, curriculumOptions(c), iter0, c.iterations, s.lastSuccessRate);
        const weight = fcfOn.enabled ? (key: string) => fcfWeight(s.fcf, key) : undefined;
        const tasks = sampleIterationTasks(candidates, curriculum.stage, c.instancesPerIteration, rng.fork('tasks'), weight);
        if (!tasks.length) throw new TrainingPoolError(iteration, pool.length);
        const jobs: RolloutJob[] = tasks.flatMap((t, g) => Array.from({ length: c.rolloutsPerInstance }, (_, k) => ({
          group: g, rollout: k, instance: t.instance, rngKey: `grpo/${c.seed}/rollout/${iter0}/${g}/${k}`,
        })));
        const tRollout = performance.now();
        const rerunsBefore = workers?.reruns ?? 0;
        // Recorded rollouts (recordEpisodes) also get each reward component's values, as `awb rewards compute --write` stores them.
        const recorded = new Map<RolloutJob, StoreRecorder>();
        const rolloutOpts: RolloutOptions = {
          model: s.model, temperature: c.temperature, maxSteps: c.maxSteps, captureTrees: rewards !== null, screenshots,
          ...(recording ? { recorder: (job: RolloutJob) => {
            const r = recording.recorder(iteration, job);
            recorded.set(job, r);
            return r;
          } } : {}),
        };
        const rollouts = await (workers ? workers.run(jobs, rolloutOpts) : runRollouts(devices, jobs, rolloutOpts));
        const rolloutS = (performance.now() - tRollout) / 1000;
        const groups = tasks.map((_, g) => rollouts.filter((r) => r.job.group === g));
        const reruns = (workers?.reruns ?? 0) - rerunsBefore;
        return { rng, curriculum, tasks, recorded, groups, rolloutS, reruns };
      },

      // score: outcome reward from the checker (NaN = unscorable), or the composed components; SPA on successes if on
      score: async ({ iteration }, { groups, recorded }) => {
        const outcome = groups.map((g) => g.map((r) => r.reward));
        const composed = rewards ? await rewards.score(groups, iteration, { ...(spa.enabled ? { shortestPath: shortestPathOptions(c) } : {}), ...(opts.signal ? { signal: opts.signal } : {}) }) : null;
        if (composed && db && recorded.size) storeRewardValues(db, groups, composed.byKind, recorded);
        const shaped = composed ? composed.returns : spa.enabled
          ? outcome.map((g, i) => shortestPathRewards(g, groups[i]!.map((r) => r.result.steps.length), shortestPathOptions(c)))
          : outcome;
        // Trajectory (broadcast) or step level; the components' step credit gives step values.
        const scores: GroupScores = composed && c.rewards.credit !== 'episode-sum'
          ? { kind: 'step', values: composed.stepValues }
          : { kind: 'episode', returns: shaped, steps: groups.map((g) => g.map((r) => r.records.length)) };
        return { scores, outcome, composed, shaped };
      },
      advantage: { mode: c.advantage.mode, options: advOpts },

      // update: prune negatives, mix in replay, then epochs × minibatches of the clipped surrogate + k3 KL (Adam)
      update: ({ iter0, iteration }, { rolled: { rng, tasks, groups }, scored: { outcome }, advantages }) => {
        const keep = adapr.enabled && adapr.negativeRatio !== null
          ? pruneNegatives(outcome, rng.fork('prune'), adapr.negativeRatio)
          : outcome.map((g) => g.map(() => true));
        const batch: BatchEpisode[] = trainingBatch(groups, advantages, keep);
        const freshAdvantages = batch.flatMap((e) => e.advantages);
        let replayed = 0;
        if (adapr.enabled) {
          for (const e of sampleReplay(s.replay, batch.length, rng.fork('replay'), replayOpts)) {
            batch.push({ records: e.episode.records, advantages: e.episode.records.map(() => e.advantage) });
            replayed++;
          }
          s.replay = pushReplay(s.replay, groups.flatMap((g, gi) => g.map((r, i) => ({
            id: `${iter0}/${gi}/${i}`, taskKey: tasks[gi]!.key, episode: { records: r.records }, reward: r.reward,
            advantage: advantages.advantages[gi]![i]![0] ?? 0, groupSuccessRate: mean(outcome[gi]!.map((x) => (x > 0 ? 1 : 0))),
          }))), replayOpts);
        }
        const lr = learningRateAt(c, iter0);
        const stats = updatePolicy(batch, {
          scorer: scorerParameters({ kind: 'network', net: s.model.net }), trains: () => true, reference: lossOpts.klBeta > 0 ? s.reference : null,
          adam: s.adam, lr, epochs: c.optimizer.epochs, minibatchSize: c.optimizer.minibatchSize, loss: lossOpts, rng, replayed,
          diverged: (metric, value) => diverged(iteration, metric, value),
        });
        return { stats, lr, replayed, freshAdvantages, batchSteps: batch.reduce((n, e) => n + e.records.length, 0) };
      },

      // log: metrics, FCF / curriculum state, store, checkpoint, callback
      log: ({ iteration, t0 }, { rolled: { tasks, groups, curriculum, rolloutS, recorded, reruns }, scored: { outcome, composed, shaped }, advantages, updated: u }) => {
        // What each recorded rollout was learned from (its shaped return and advantage), then the iteration thinned by c.recording.
        if (recording && recorded.size) recording.finish(iteration, groups.map((g) => g.map((r) => r.job)), shaped, advantages.advantages);
        const metrics: Record<string, number> = {
          ...iterationMetrics({
            groups, stats: advantages.groups, freshAdvantages: u.freshAdvantages, update: u.stats, rolloutS, t0, batchSteps: u.batchSteps, lr: u.lr,
            adagrpo: { replayed: u.replayed, curriculumStage: curriculum.stage },
          }),
          ...composed?.metrics,
          [METRIC.reruns]: reruns,
        };
        if (composed) metrics[REWARD_METRIC.share] = composed.metrics[REWARD_METRIC.seconds]! / metrics[METRIC.iterationS]!;
        s.curriculum = curriculum;
        s.lastSuccessRate = metrics[METRIC.successRate]!;
        if (fcfOn.enabled) s.fcf = updateFcf(s.fcf, tasks.map((t, g) => ({ taskKey: t.key, rewards: outcome[g]! })), failureCurriculumOptions(c));
        s.iteration = iteration;
        const m: IterationMetrics = { iteration, metrics };
        history.push(m);
        if (db && runId !== null) putIterationMetrics(db, runId, iteration, metrics);
        const aborted = opts.signal?.aborted === true;
        if (iteration % c.checkpointEvery === 0 || iteration === c.iterations || aborted) checkpoint();
        opts.onIteration?.(m, s.model);
        if (!aborted && !opts.signal?.aborted) return false;
        if (lastCheckpoint !== iteration) checkpoint();
        return true;
      },
    });
    stoppedBy = end.stoppedBy;
    if (db && runId !== null) finishRun(db, runId, stoppedBy === 'done' ? 'finished' : 'interrupted');
  } catch (e) {
    // Any other failure (a worker that cannot start, a recorder or store error) must not leave the run 'running'.
    if (db && runId !== null && !(e instanceof TrainingDivergedError)) {
      try {
        finishRun(db, runId, 'interrupted');
      } catch {
        // the store itself failed: the original error says more
      }
    }
    throw e;
  } finally {
    await workers?.close();
    await ray?.close();
    for (const d of ownDevices ?? []) d.close();
    rewardStore?.close();
  }
  return { iterations: s.iteration, stoppedBy, runId, history, model: s.model };
}
