import type { Device } from '../device/device.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { createModel, type PolicyModel } from '../policy/builtin.js';
import { loadCheckpoint } from '../policy/checkpoint.js';
import { Adam, entropy, type AdamOptions } from '../policy/network.js';
import { createRun, finishRun, getRun, openStore, resumeRun, StoreRecorder, type RunId, type WritableDB } from '../store/index.js';
import { putIterationMetrics } from '../store/training.js';
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
import { batchLoss, episodeStepAdvantages, LossInputError, stepGroupAdvantages, type StepLossInput } from './grpo.js';
import { loadTrainerCheckpoint, saveTrainerCheckpoint, type ReplayEpisode, type TrainerState } from './grpo-checkpoint.js';
import { runRollouts, type RolloutJob, type RolloutOptions } from './rollout.js';
import { resolveRolloutWorkers, RolloutWorkerPool } from './rollout-workers.js';
import { REWARD_METRIC, storeRewardValues, TrainingRewards } from './train-rewards.js';

/**
 * The GRPO / AdaGRPO training loop for the builtin policy (docs/rl.md). One iteration:
 * rollout (G episodes per sampled task instance on N devices) → score (checker outcome, or the
 * composed reward components of `config.rewards` with their credit (train-rewards.ts); SPA) →
 * advantages (group-normalised, trajectory or step level; zero-std groups skipped, negatives pruned,
 * positive replay mixed in) → update (epochs × minibatches of the clipped surrogate + k3 KL, Adam) →
 * log (metrics to the callback and the store, checkpoint every `checkpointEvery` iterations).
 */

/** Metric names (namespaced as cleanrl / TRL log them). */
export const METRIC = {
  rewardMean: 'reward/mean',
  successRate: 'success/rate',
  advMean: 'adv/mean',
  advStd: 'adv/std',
  zeroStdFrac: 'adv/zero_std_frac',
  lossPolicy: 'loss/policy',
  lossKl: 'loss/kl',
  entropy: 'policy/entropy',
  clipFrac: 'policy/clip_frac',
  stepsPerS: 'perf/steps_per_s',
  iterationS: 'perf/iteration_s',
  rolloutS: 'perf/rollout_s',
  /** Rollouts that ended in an environment error (a device or worker failure): reward NaN, not trained on. */
  envErrors: 'rollout/env_errors',
  episodeLength: 'episode/length',
  batchSteps: 'batch/steps',
  batchReplayed: 'batch/replayed',
  curriculumStage: 'curriculum/stage',
  lr: 'optim/lr',
  gradNorm: 'optim/grad_norm',
} as const;

export interface IterationMetrics {
  /** 1-based. */
  iteration: number;
  metrics: Record<string, number>;
}

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
   * worker threads, or `config.devices` in-process ones when that resolves to 0 (closed at the end).
   */
  devices?: readonly Device[];
  /** Trajectory store: a 'training' run gets the per-iteration metrics. */
  db?: WritableDB;
  /**
   * For `config.rewards` components: the store their state lives in (ADMIRE's milestone memory;
   * default `db`, else an in-memory store for this run) and the data folder relative checkpoint paths
   * resolve under.
   */
  rewardContext?: { db?: WritableDB; dataDir?: string };
  /** Also record every rollout episode in the store (slow; default off). */
  recordEpisodes?: boolean;
  /** Stop after the current iteration (a checkpoint is written). */
  signal?: AbortSignal;
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

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const std = (xs: readonly number[]) => {
  const m = mean(xs);
  return xs.length ? Math.sqrt(mean(xs.map((x) => (x - m) ** 2))) : 0;
};

/** One episode in the update batch: its step records and one advantage per step. */
interface BatchEpisode {
  records: ReplayEpisode['records'];
  advantages: number[];
}

/** Runs (or resumes) a GRPO / AdaGRPO training run; see the module comment. */
export async function trainGrpo(opts: TrainGrpoOptions): Promise<TrainGrpoResult> {
  const s: TrainerState = opts.resume ? loadTrainerCheckpoint(opts.outDir, adamFor) : freshState(opts.config);
  if (opts.resume) s.config = { ...s.config, iterations: Math.max(s.config.iterations, opts.config.iterations) };
  const c = s.config;
  const pool = opts.instances ?? splitInstances(TASKS, c.split, c.part);
  const candidates = pool.map((instance) => ({ key: instanceKey(instance), difficulty: instance.template.difficulty, instance }));
  // Rollout devices: the caller's (in-process), else worker threads with a SimDroid each, else in-process SimDroids.
  const workerCount = opts.devices ? 0 : resolveRolloutWorkers(c.rolloutWorkers, c.devices);
  const ownDevices = opts.devices || workerCount > 0 ? null : Array.from({ length: c.devices }, (_, i) => new SimDroid({ serial: `simdroid-grpo-${i}` }));
  const devices = opts.devices ?? ownDevices ?? [];
  let workers: RolloutWorkerPool | null = null;
  const db = opts.db;
  let runId: RunId | null = null;
  if (db) {
    const existing = s.runId !== null && (() => { try { return getRun(db, s.runId as RunId); } catch { return null; } })(); // a checkpoint from another store: start a new run
    runId = existing ? resumeRun(db, existing.id).run.id : createRun(db, { kind: 'training', name: `grpo ${c.split}/${c.part} seed ${c.seed}`, config: c }).id;
  }
  s.runId = runId;
  const advOpts = advantageOptions(c);
  const lossOpts = lossOptions(c);
  const replayOpts = positiveReplayOptions(c);
  const { shortestPath: spa, positiveReplay: adapr, failureCurriculum: fcfOn } = c.adagrpo;
  const history: IterationMetrics[] = [];
  let lastCheckpoint: number | null = opts.resume ? s.iteration : null;
  const checkpoint = () => {
    saveTrainerCheckpoint(opts.outDir, s);
    lastCheckpoint = s.iteration;
  };
  const diverged = (iteration: number, metric: string, value: number): never => {
    if (db && runId !== null) finishRun(db, runId, 'interrupted');
    throw new TrainingDivergedError(iteration, metric, value, lastCheckpoint, opts.outDir);
  };
  let stoppedBy: TrainGrpoResult['stoppedBy'] = 'done';

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
    if (workerCount > 0) workers = await RolloutWorkerPool.start({ workers: workerCount });
    while (s.iteration < c.iterations) {
      if (opts.beforeIteration) {
        await opts.beforeIteration(s.iteration);
        if (opts.signal?.aborted) {
          if (lastCheckpoint !== s.iteration) checkpoint();
          stoppedBy = 'aborted';
          break;
        }
      }
      const iter0 = s.iteration;
      const iteration = iter0 + 1;
      const rng = createRng(`grpo/${c.seed}/iteration/${iter0}`);
      const t0 = performance.now();

      // rollout: curriculum stage, FCF-weighted task sampling, G episodes per instance on the devices
      const curriculum = advanceCurriculum(s.curriculum, curriculumOptions(c), iter0, c.iterations, s.lastSuccessRate);
      const weight = fcfOn.enabled ? (key: string) => fcfWeight(s.fcf, key) : undefined;
      const tasks = sampleIterationTasks(candidates, curriculum.stage, c.instancesPerIteration, rng.fork('tasks'), weight);
      if (!tasks.length) throw new TrainingPoolError(iteration, pool.length);
      const jobs: RolloutJob[] = tasks.flatMap((t, g) => Array.from({ length: c.rolloutsPerInstance }, (_, k) => ({
        group: g, rollout: k, instance: t.instance, rngKey: `grpo/${c.seed}/rollout/${iter0}/${g}/${k}`,
      })));
      const tRollout = performance.now();
      // Recorded rollouts (recordEpisodes) also get each reward component's values, as `awb rewards compute --write` stores them.
      const recorded = new Map<RolloutJob, StoreRecorder>();
      const rolloutOpts: RolloutOptions = {
        model: s.model, temperature: c.temperature, maxSteps: c.maxSteps, captureTrees: rewards !== null,
        ...(opts.recordEpisodes && db && runId !== null ? { recorder: (job: RolloutJob) => {
          const r = new StoreRecorder(db, runId!);
          recorded.set(job, r);
          return r;
        } } : {}),
      };
      const rollouts = await (workers ? workers.run(jobs, rolloutOpts) : runRollouts(devices, jobs, rolloutOpts));
      const rolloutS = (performance.now() - tRollout) / 1000;
      const groups = tasks.map((_, g) => rollouts.filter((r) => r.job.group === g));

      // score: outcome reward from the checker (NaN = unscorable), or the composed components; SPA on successes if on
      const outcome = groups.map((g) => g.map((r) => r.reward));
      const composed = rewards ? await rewards.score(groups, iteration, { ...(spa.enabled ? { shortestPath: shortestPathOptions(c) } : {}), ...(opts.signal ? { signal: opts.signal } : {}) }) : null;
      if (composed && db && recorded.size) storeRewardValues(db, groups, composed.byKind, recorded);
      const shaped = composed ? composed.returns : spa.enabled
        ? outcome.map((g, i) => shortestPathRewards(g, groups[i]!.map((r) => r.result.steps.length), shortestPathOptions(c)))
        : outcome;

      // advantages: trajectory (broadcast) or step level; skip zero-std groups; prune negatives; mix in replay
      const { advantages: stepAdv, groups: stats } = composed && c.rewards.credit !== 'episode-sum'
        ? stepGroupAdvantages(composed.stepValues, advOpts)
        : episodeStepAdvantages(shaped, groups.map((g) => g.map((r) => r.records.length)), c.advantage.mode, advOpts);
      const keep = adapr.enabled && adapr.negativeRatio !== null
        ? pruneNegatives(outcome, rng.fork('prune'), adapr.negativeRatio)
        : outcome.map((g) => g.map(() => true));
      const batch: BatchEpisode[] = [];
      groups.forEach((g, gi) => {
        if (stats[gi]!.skipped) return;
        g.forEach((r, i) => {
          if (keep[gi]![i] && r.records.length) batch.push({ records: r.records, advantages: stepAdv[gi]![i]! });
        });
      });
      const freshSteps = batch.flatMap((e) => e.advantages);
      let replayed = 0;
      if (adapr.enabled) {
        for (const e of sampleReplay(s.replay, batch.length, rng.fork('replay'), replayOpts)) {
          batch.push({ records: e.episode.records, advantages: e.episode.records.map(() => e.advantage) });
          replayed++;
        }
        s.replay = pushReplay(s.replay, groups.flatMap((g, gi) => g.map((r, i) => ({
          id: `${iter0}/${gi}/${i}`, taskKey: tasks[gi]!.key, episode: { records: r.records }, reward: r.reward,
          advantage: stepAdv[gi]![i]![0] ?? 0, groupSuccessRate: mean(outcome[gi]!.map((x) => (x > 0 ? 1 : 0))),
        }))), replayOpts);
      }

      // update: epochs × minibatches of whole episodes (≈ minibatchSize steps each), log π recomputed at the recorded temperature
      const net = s.model.net;
      const lr = learningRateAt(c, iter0);
      s.adam.opts.lr = lr;
      const logpRef = lossOpts.klBeta > 0 ? batch.map((e) => e.records.map((r) => s.reference.logProbs(r.features, r.n, r.temperature)[r.chosen]!)) : null;
      const ent = mean(batch.slice(0, batch.length - replayed).flatMap((e) => e.records.map((r) => entropy(net.logProbs(r.features, r.n, r.temperature)))));
      const policyLosses: number[] = [];
      const kls: number[] = [];
      const clips: number[] = [];
      const gradNorms: number[] = [];
      for (let epoch = 0; epoch < c.optimizer.epochs; epoch++) {
        const order = rng.fork(`epoch/${epoch}`).shuffle(batch.map((_, i) => i));
        for (let start = 0; start < order.length;) {
          const mbIdx: number[] = [];
          let mbSteps = 0;
          while (start < order.length && (mbSteps < c.optimizer.minibatchSize || mbIdx.length === 0)) {
            const i = order[start++]!;
            mbIdx.push(i);
            mbSteps += batch[i]!.records.length;
          }
          const mbInputs: StepLossInput[][] = mbIdx.map((i) => batch[i]!.records.map((r, t) => ({
            logpNew: net.logProbs(r.features, r.n, r.temperature)[r.chosen]!,
            logpOld: r.logProb,
            ...(logpRef ? { logpRef: logpRef[i]![t]! } : {}),
            advantage: batch[i]!.advantages[t]!,
          })));
          let mbLoss;
          try {
            mbLoss = batchLoss(mbInputs, lossOpts);
          } catch (e) {
            if (e instanceof LossInputError) return diverged(iteration, METRIC.lossPolicy, Number(e.value));
            throw e;
          }
          if (!Number.isFinite(mbLoss.loss)) return diverged(iteration, METRIC.lossPolicy, mbLoss.loss);
          net.zeroGrad();
          mbIdx.forEach((i, k) => batch[i]!.records.forEach((r, t) => net.accumulateLogProb(r.features, r.n, r.chosen, mbLoss.dLogp[k]![t]!, r.temperature)));
          let sq = 0;
          for (const g of net.grads) sq += g * g;
          if (!Number.isFinite(sq)) return diverged(iteration, METRIC.gradNorm, Math.sqrt(sq));
          gradNorms.push(s.adam.step(net.params, net.grads));
          policyLosses.push(mbLoss.stats.meanPolicyLoss);
          kls.push(mbLoss.stats.meanKl);
          clips.push(mbLoss.stats.clipFraction);
        }
      }
      const badWeight = net.params.findIndex((x) => !Number.isFinite(x));
      if (badWeight >= 0) return diverged(iteration, `weights[${badWeight}]`, net.params[badWeight]!);

      // log: metrics, FCF / curriculum state, store, checkpoint, callback
      const scored = outcome.flat().filter((r) => Number.isFinite(r));
      const successRate = mean(outcome.flat().map((r) => (r > 0 ? 1 : 0)));
      const envSteps = rollouts.reduce((n, r) => n + r.result.steps.length, 0);
      const metrics: Record<string, number> = {
        [METRIC.rewardMean]: mean(scored),
        [METRIC.successRate]: successRate,
        [METRIC.advMean]: mean(freshSteps),
        [METRIC.advStd]: std(freshSteps),
        [METRIC.zeroStdFrac]: mean(stats.map((g) => (g.groupStd === 0 ? 1 : 0))),
        [METRIC.lossPolicy]: mean(policyLosses),
        [METRIC.lossKl]: mean(kls),
        [METRIC.entropy]: ent,
        [METRIC.clipFrac]: mean(clips),
        [METRIC.stepsPerS]: rolloutS > 0 ? envSteps / rolloutS : 0,
        [METRIC.iterationS]: (performance.now() - t0) / 1000,
        [METRIC.rolloutS]: rolloutS,
        [METRIC.envErrors]: rollouts.filter((r) => r.result.status === 'error').length,
        [METRIC.episodeLength]: envSteps / Math.max(1, rollouts.length),
        [METRIC.batchSteps]: batch.reduce((n, e) => n + e.records.length, 0),
        [METRIC.batchReplayed]: replayed,
        [METRIC.curriculumStage]: curriculum.stage,
        [METRIC.lr]: lr,
        [METRIC.gradNorm]: mean(gradNorms),
        ...composed?.metrics,
      };
      if (composed) metrics[REWARD_METRIC.share] = composed.metrics[REWARD_METRIC.seconds]! / metrics[METRIC.iterationS]!;
      s.curriculum = curriculum;
      s.lastSuccessRate = successRate;
      if (fcfOn.enabled) s.fcf = updateFcf(s.fcf, tasks.map((t, g) => ({ taskKey: t.key, rewards: outcome[g]! })), failureCurriculumOptions(c));
      s.iteration = iteration;
      const m: IterationMetrics = { iteration, metrics };
      history.push(m);
      if (db && runId !== null) putIterationMetrics(db, runId, iteration, metrics);
      const aborted = opts.signal?.aborted === true;
      if (iteration % c.checkpointEvery === 0 || iteration === c.iterations || aborted) checkpoint();
      opts.onIteration?.(m, s.model);
      if (aborted || opts.signal?.aborted) {
        if (lastCheckpoint !== iteration) checkpoint();
        stoppedBy = 'aborted';
        break;
      }
    }
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
    for (const d of ownDevices ?? []) d.close();
    rewardStore?.close();
  }
  return { iterations: s.iteration, stoppedBy, runId, history, model: s.model };
}
