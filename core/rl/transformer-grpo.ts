import { cpSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Device } from '../device/device.js';
import { isTransformerModelDir, TransformerModel } from '../policy/transformer/model.js';
import { WorkbenchError } from '../util/errors.js';
import type { TransformerStepRecord } from '../policy/transformer/policy.js';
import type { TrainingStep } from '../policy/transformer/records.js';
import { shortestPathRewards } from '../rewards/shortest-path.js';
import type { RolloutJob } from '../rollout/rollouts.js';
import { createRun, finishRun, openStore, putIterationMetrics, type RunId, type StoreRecorder, type WritableDB } from '../store/index.js';
import { instanceKey, type TaskInstance } from '../tasks/instance.js';
import { TASKS } from '../tasks/registry.js';
import { splitInstances } from '../tasks/splits.js';
import { createRng } from '../util/rng.js';
import { emptyFcf, emptyReplayBuffer, fcfWeight, pruneNegatives, pushReplay, sampleReplay, updateFcf } from './adagrpo.js';
import { advantageOptions, curriculumOptions, failureCurriculumOptions, lossOptions, positiveReplayOptions, shortestPathOptions, type TrainConfig } from './config.js';
import { advanceCurriculum, initialCurriculum, sampleIterationTasks } from './curriculum.js';
import { iterationMetrics, mean, METRIC, runGrpoLoop, type GroupScores, type IterationMetrics } from './grpo-loop.js';
import { learningRateAt, TrainingDivergedError, TrainingPoolError } from './train-grpo.js';
import { REWARD_METRIC, storeRewardValues, TrainingRewards } from './train-rewards.js';
import { RolloutRecording } from './rollout-recording.js';
import { runTransformerRollouts, transformerRolloutPlaces, type TransformerRollout } from './transformer-rollouts.js';
import { TransformerSession } from './transformer-session.js';
import { writeSteps } from './transformer-sft.js';

/**
 * GRPO / AdaGRPO training of the transformer policy on the one GRPO loop (grpo-loop.ts), with the builtin policy's
 * config (core/rl/config.ts: `init` is a transformer model folder): rollouts sample from the model in ONNX Runtime
 * on `devices` in-process SimDroids; scores, advantages, AdaGRPO's pruning / replay / FCF and the curriculum are the
 * builtin run's; the update is the trainer session's (the clipped surrogate + k3 KL to the starting model, in torch),
 * after which the new model folder is loaded for the next iteration's rollouts. With `recordEpisodes`, the rollouts are
 * episodes of the store run, recorded as the builtin run records them (rollout-recording.ts).
 */
export interface TransformerGrpoOptions {
  config: TrainConfig;
  /** The final model folder (and every checkpointEvery iterations). */
  outDir: string;
  /** Task instances to sample from; default the config's split part. */
  instances?: readonly TaskInstance[];
  devices?: readonly Device[];
  db?: WritableDB;
  /** A run of `db` opened by the caller (the workbench's job), which also finishes it; default a new run made here. */
  runId?: RunId;
  rewardContext?: { db?: WritableDB; dataDir?: string };
  /**
   * Also record every rollout episode in the store run, with its iteration, group, reward and advantage, thinned by
   * `config.recording`, as the builtin policy's trainGrpo does (default off).
   */
  recordEpisodes?: boolean;
  signal?: AbortSignal;
  threads?: number;
  onIteration?: (m: IterationMetrics) => void;
  /** Messages about the Ray cluster (servers started, one that died). */
  log?: (message: string) => void;
}

export interface TransformerGrpoResult {
  iterations: number;
  stoppedBy: 'done' | 'aborted';
  runId: RunId | null;
  history: IterationMetrics[];
}

export class TransformerInitError extends WorkbenchError {
  override name = 'TransformerInitError';
  constructor(readonly init: string | null) {
    super(`Transformer GRPO starts from a model folder (init: an SFT run's output), got ${JSON.stringify(init)}`);
  }
}

interface UpdateStatsPy {
  'loss/policy': number; 'loss/kl': number; 'policy/clip_frac': number; 'policy/ratio_mean': number; 'optim/grad_norm': number; 'policy/entropy': number;
}

export async function trainTransformerGrpo(opts: TransformerGrpoOptions): Promise<TransformerGrpoResult> {
  const c = opts.config;
  if (!c.init || !isTransformerModelDir(c.init)) throw new TransformerInitError(c.init ?? null);
  const pool = opts.instances ?? splitInstances(TASKS, c.split, c.part);
  const candidates = pool.map((instance) => ({ key: instanceKey(instance), difficulty: instance.template.difficulty, instance }));
  const recordsRollouts = opts.recordEpisodes === true && opts.db !== undefined;
  const screenshots = recordsRollouts ? c.recording.screenshots : 'none';
  // The cluster (or threads) before the store's run and the trainer: one that cannot start is an error with nothing started.
  const places = await transformerRolloutPlaces({
    ray: c.ray, rolloutWorkers: c.rolloutWorkers, devices: c.devices, serialPrefix: 'simdroid-tgrpo-', modelDir: c.init, screenshots,
    ...(opts.devices ? { callerDevices: opts.devices } : {}), ...(opts.log ? { log: opts.log } : {}),
  });
  const work = mkdtempSync(join(tmpdir(), 'awb-tgrpo-'));
  const session = TransformerSession.start({ threads: opts.threads ?? 1 });
  const db = opts.db;
  const ownRun = db !== undefined && opts.runId === undefined;
  const runId: RunId | null = opts.runId ?? (db ? createRun(db, { kind: 'training', name: `transformer grpo ${c.split}/${c.part} seed ${c.seed}`, config: { ...c, policy: 'transformer' } }).id : null);
  const recording = recordsRollouts && db && runId !== null ? new RolloutRecording(db, runId, c.recording, c.iterations) : null;
  let rewardStore: WritableDB | null = null;
  let model: TransformerModel | null = null;
  const history: IterationMetrics[] = [];
  let stoppedBy: TransformerGrpoResult['stoppedBy'] = 'done';
  try {
    await session.request('load', { dir: c.init });
    await session.request('grpo_begin', {});
    model = await TransformerModel.load(c.init);
    let rewards: TrainingRewards | null = null;
    if (c.rewards.components !== null) {
      const given = opts.rewardContext?.db ?? db;
      if (!given) rewardStore = openStore(':memory:');
      rewards = await TrainingRewards.start(c.rewards, { db: given ?? rewardStore!, ...(opts.rewardContext?.dataDir ? { dataDir: opts.rewardContext.dataDir } : {}) });
    }
    const loss = lossOptions(c);
    const { shortestPath: spa, positiveReplay: adapr, failureCurriculum: fcfOn } = c.adagrpo;
    const replayOpts = positiveReplayOptions(c);
    let replay = emptyReplayBuffer<{ records: TransformerStepRecord[] }>();
    let fcf = emptyFcf();
    let curriculumState = initialCurriculum(curriculumOptions(c));
    let lastSuccessRate: number | null = null;
    let completed = 0;
    // Copied whole beside the folder, then swapped in: a reader sees the old model or the new one, never a mix.
    // Its meta names this run and the iterations done, also when no iteration has updated the model yet (a copy of init).
    const save = (dir: string, iteration: number) => {
      const staging = join(dirname(dir), `.${basename(dir)}.saving`);
      rmSync(staging, { recursive: true, force: true });
      mkdirSync(dirname(dir), { recursive: true });
      cpSync(model!.dir, staging, { recursive: true });
      rmSync(join(staging, 'awb-job.json'), { force: true }); // init's workbench job file, if it had one
      const file = join(staging, 'config.json');
      const raw = JSON.parse(readFileSync(file, 'utf8')) as { meta?: Record<string, unknown> };
      writeFileSync(file, JSON.stringify({ ...raw, meta: { ...raw.meta, trainer: 'transformer-grpo', iteration, init: c.init, split: c.split, part: c.part } }, null, 2));
      rmSync(dir, { recursive: true, force: true });
      renameSync(staging, dir);
    };

    const end = await runGrpoLoop({
      completed: 0, iterations: c.iterations,

      // rollout: curriculum stage, FCF-weighted task sampling, G sampled episodes per instance
      rollout: async ({ iter0, iteration }) => {
        const rng = createRng(`grpo/${c.seed}/iteration/${iter0}`);
        const curriculum = advanceCurriculum(curriculumState, curriculumOptions(c), iter0, c.iterations, lastSuccessRate);
        const weight = fcfOn.enabled ? (key: string) => fcfWeight(fcf, key) : undefined;
        const tasks = sampleIterationTasks(candidates, curriculum.stage, c.instancesPerIteration, rng.fork('tasks'), weight);
        if (!tasks.length) throw new TrainingPoolError(iteration, pool.length);
        const jobs: RolloutJob[] = tasks.flatMap((t, g) => Array.from({ length: c.rolloutsPerInstance }, (_, k) => ({
          group: g, rollout: k, instance: t.instance, rngKey: `grpo/${c.seed}/rollout/${iter0}/${g}/${k}`,
        })));
        const t0 = performance.now();
        const current = model!;
        // Recorded rollouts (recordEpisodes) also get each reward component's values, as trainGrpo stores them.
        const recorded = new Map<RolloutJob, StoreRecorder>();
        const rollouts = await runTransformerRollouts(places.on, jobs, {
          model: current, temperature: c.temperature, maxSteps: c.maxSteps, captureTrees: rewards !== null, screenshots,
          ...(recording ? { recorder: (job: RolloutJob) => {
            const r = recording.recorder(iteration, job);
            recorded.set(job, r);
            return r;
          } } : {}),
        });
        const groups = tasks.map((_, g) => rollouts.filter((r) => r.job.group === g));
        return { rng, curriculum, tasks, groups, recorded, rolloutS: (performance.now() - t0) / 1000 };
      },

      // score: the checker's outcome (NaN = unscorable) or the composed components; SPA on successes if on
      score: async ({ iteration }, { groups, recorded }) => {
        const outcome = groups.map((g) => g.map((r) => r.reward));
        const composed = rewards ? await rewards.score(groups, iteration, { ...(spa.enabled ? { shortestPath: shortestPathOptions(c) } : {}), ...(opts.signal ? { signal: opts.signal } : {}) }) : null;
        if (composed && db && recorded.size) storeRewardValues(db, groups, composed.byKind, recorded);
        const shaped = composed ? composed.returns : spa.enabled
          ? outcome.map((g, i) => shortestPathRewards(g, groups[i]!.map((r) => r.result.steps.length), shortestPathOptions(c)))
          : outcome;
        const scores: GroupScores = composed && c.rewards.credit !== 'episode-sum'
          ? { kind: 'step', values: composed.stepValues }
          : { kind: 'episode', returns: shaped, steps: groups.map((g) => g.map((r) => r.records.length)) };
        return { scores, outcome, composed, shaped };
      },
      advantage: { mode: c.advantage.mode, options: advantageOptions(c) },

      // update: prune negatives, mix in replay, then the trainer's update; the new model for the next rollouts
      update: async ({ iter0, iteration }, { rolled: { rng, tasks, groups }, scored: { outcome }, advantages }) => {
        const keep = adapr.enabled && adapr.negativeRatio !== null ? pruneNegatives(outcome, rng.fork('prune'), adapr.negativeRatio) : outcome.map((g) => g.map(() => true));
        const batch: { records: readonly TransformerStepRecord[]; advantages: readonly number[]; replayed: boolean }[] = [];
        groups.forEach((g, gi) => {
          if (advantages.groups[gi]!.skipped) return;
          g.forEach((r, i) => {
            if (keep[gi]![i] && r.records.length) batch.push({ records: r.records, advantages: advantages.advantages[gi]![i]!, replayed: false });
          });
        });
        const freshAdvantages = batch.flatMap((e) => e.advantages);
        let replayed = 0;
        if (adapr.enabled) {
          for (const e of sampleReplay(replay, batch.length, rng.fork('replay'), replayOpts)) {
            batch.push({ records: e.episode.records, advantages: e.episode.records.map(() => e.advantage), replayed: true });
            replayed++;
          }
          replay = pushReplay(replay, groups.flatMap((g, gi) => g.map((r, i) => ({
            id: `${iter0}/${gi}/${i}`, taskKey: tasks[gi]!.key, episode: { records: r.records }, reward: r.reward,
            advantage: advantages.advantages[gi]![i]![0] ?? 0, groupSuccessRate: mean(outcome[gi]!.map((x) => (x > 0 ? 1 : 0))),
          }))), replayOpts);
        }
        const lr = learningRateAt(c, iter0);
        const steps: (TrainingStep & { replayed?: boolean })[] = batch.flatMap((e, ei) => e.records.map((r, t) => ({
          inputs: r.inputs, choice: r.choice, episode: ei, step: t, logProb: r.logProb, temperature: r.temperature, advantage: e.advantages[t]!, ...(e.replayed ? { replayed: true } : {}),
        })));
        const batchSteps = steps.length;
        let stats: UpdateStatsPy | null = null;
        if (steps.length) {
          const file = writeSteps(work, steps, `steps-${iteration}.jsonl`);
          stats = await session.request<UpdateStatsPy>('grpo_update', {
            steps: file, options: { lr, epochs: c.optimizer.epochs, minibatch_size: c.optimizer.minibatchSize, max_grad_norm: c.optimizer.maxGradNorm ?? 0, seed: c.seed * 100_003 + iter0 },
            loss: { clipEps: loss.clipEps, clipEpsHigh: loss.clipEpsHigh ?? null, klBeta: loss.klBeta, maxLogRatio: loss.maxLogRatio, aggregation: loss.aggregation, maxSteps: c.maxSteps },
          });
          rmSync(file, { force: true });
          for (const [k, v] of Object.entries(stats)) if (!Number.isFinite(v)) throw new TrainingDivergedError(iteration, k, v, completed || null, opts.outDir);
          // A new folder per model: rollout workers know a model by its folder's path.
          const next = join(work, `model-${iteration}`);
          await session.request('save', { out: next, meta: { trainer: 'transformer-grpo', iteration } });
          const old = model!;
          model = await TransformerModel.load(next);
          await old.close();
          if (old.dir.startsWith(work)) rmSync(old.dir, { recursive: true, force: true });
        }
        return { stats, lr, replayed, freshAdvantages, batchSteps };
      },

      // log: metrics, FCF / curriculum state, store, checkpoint
      log: ({ iteration, t0 }, { rolled: { tasks, groups, curriculum, rolloutS, recorded }, scored: { outcome, composed, shaped }, advantages, updated: u }) => {
        // What each recorded rollout was learned from (its shaped return and advantage), then the iteration thinned by c.recording.
        if (recording && recorded.size) recording.finish(iteration, groups.map((g) => g.map((r) => r.job)), shaped, advantages.advantages);
        const s = u.stats;
        const metrics: Record<string, number> = {
          ...iterationMetrics({
            groups, stats: advantages.groups, freshAdvantages: u.freshAdvantages, rolloutS, t0, batchSteps: u.batchSteps, lr: u.lr,
            update: { policyLoss: s?.['loss/policy'] ?? 0, kl: s?.['loss/kl'] ?? 0, entropy: s ? s['policy/entropy'] : null, clipFraction: s?.['policy/clip_frac'] ?? 0, gradNorm: s?.['optim/grad_norm'] ?? 0 },
            adagrpo: { replayed: u.replayed, curriculumStage: curriculum.stage },
          }),
          ...composed?.metrics,
        };
        if (composed) metrics[REWARD_METRIC.share] = composed.metrics[REWARD_METRIC.seconds]! / metrics[METRIC.iterationS]!;
        curriculumState = curriculum;
        lastSuccessRate = metrics[METRIC.successRate]!;
        if (fcfOn.enabled) fcf = updateFcf(fcf, tasks.map((t, g) => ({ taskKey: t.key, rewards: outcome[g]! })), failureCurriculumOptions(c));
        completed = iteration;
        const m: IterationMetrics = { iteration, metrics };
        history.push(m);
        if (db && runId !== null) putIterationMetrics(db, runId, iteration, metrics);
        if (iteration % c.checkpointEvery === 0 || iteration === c.iterations) save(opts.outDir, iteration);
        opts.onIteration?.(m);
        if (opts.signal?.aborted) {
          save(opts.outDir, iteration);
          return true;
        }
        return false;
      },
    });
    stoppedBy = end.stoppedBy;
    if (db && runId !== null && ownRun) finishRun(db, runId, stoppedBy === 'done' ? 'finished' : 'interrupted');
  } catch (e) {
    if (db && runId !== null && ownRun) {
      try {
        finishRun(db, runId, 'interrupted');
      } catch {
        // the store itself failed: the original error says more
      }
    }
    throw e;
  } finally {
    await model?.close();
    await session.close();
    await places.close();
    rewardStore?.close();
    rmSync(work, { recursive: true, force: true });
  }
  return { iterations: history.at(-1)?.iteration ?? 0, stoppedBy, runId, history };
}

export type { TransformerRollout };
