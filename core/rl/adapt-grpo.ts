import type { Device } from '../device/device.js';
import type { ScreenshotMode } from '../episode/runner.js';
import type { ScorerAdapter } from '../policy/adapter.js';
import type { AdapterChoice, HomeMode } from '../policy/adapter-policy.js';
import type { PolicyModel } from '../policy/builtin.js';
import { Adam } from '../policy/network.js';
import type { TaskInstance } from '../tasks/instance.js';
import { WorkbenchError } from '../util/errors.js';
import { createRng } from '../util/rng.js';
import { adaptAdvantageOptions, adaptLearningRate, adaptLossOptions, type AdaptGrpoConfig } from './adapt-config.js';
import type { RolloutWorkerPool } from '../rollout/rollout-workers.js';
import type { RolloutJob } from '../rollout/rollouts.js';
import { runAdaptedRollouts } from './adapt-rollouts.js';
import { iterationMetrics, METRIC, runGrpoLoop, type IterationMetrics } from './grpo-loop.js';
import { trainingBatch, updatePolicy } from './grpo-update.js';
import { scorerParameters } from './trained-scorer.js';
import type { RolloutRecording } from './rollout-recording.js';

/**
 * GRPO on an adapter (docs/adaptation.md): the GRPO loop (grpo-loop.ts) as train-grpo.ts runs it,
 * cut to what few-shot adaptation uses (AW-Gen §5.1 Q3: the same RL with the rule-based reward, no
 * curriculum) and with the base network frozen. One iteration: rollout (G episodes of each of the
 * iteration's shots, the policy scoring the app's screens with base + adapter and every other
 * screen with the base) → score (checker outcome) → advantages (group-normalised, zero-std groups
 * skipped) → update (grpo-update.ts: clipped surrogate + k3 KL to the starting policy, gradients
 * projected onto the adapter; steps scored by the base stay in the batch without gradient) → log.
 * The rollouts run in process on the devices, or on rollout workers (threads, or a Ray cluster's SimDroids) with the
 * same results (adapt-rollouts.ts); a rollout whose remote worker died runs again there.
 */

/** Adapter-specific metric: the share of rollout steps scored by the adapter (the rest were the base's). */
export const ADAPTER_STEPS_FRAC = 'adapter/steps_frac';
/** L2 norm of the adapter parameters after the update. */
export const ADAPTER_NORM = 'adapter/norm';

export class AdaptationDivergedError extends WorkbenchError {
  override name = 'AdaptationDivergedError';
  constructor(readonly iteration: number, readonly metric: string, readonly value: number) {
    super(`Adapter GRPO diverged at iteration ${iteration}: ${metric} is ${value}; the adapter was not updated in this iteration`);
  }
}

export interface AdapterGrpoOptions {
  base: PolicyModel;
  adapter: ScorerAdapter;
  /** The app the adapter scores (its package selects it). */
  target: { app: string; package: string };
  /** The shots. */
  instances: readonly TaskInstance[];
  config: AdaptGrpoConfig;
  seed: number;
  /** What scores the home screen (as at inference). */
  home: HomeMode;
  devices: readonly Device[];
  /** Roll out on these workers instead of in process on `devices` (adapt-rollouts.ts withAdaptRolloutWorkers). */
  workers?: RolloutWorkerPool;
  /** Stop after the current iteration. */
  signal?: AbortSignal;
  /** Record the rollouts (with their reward and advantage, thinned by its retention) into the adaptation's run. */
  recording?: { into: RolloutRecording; screenshots: ScreenshotMode };
  onIteration?: (m: IterationMetrics) => void;
}

export interface AdapterGrpoResult {
  iterations: number;
  stoppedBy: 'done' | 'aborted';
  history: IterationMetrics[];
}

/** The iteration's shots: every shot once per pass, passes in seeded order, `perIteration` at a time. */
export function iterationShots<T>(shots: readonly T[], perIteration: number, iteration0: number, seed: number): T[] {
  const out: T[] = [];
  for (let k = iteration0 * perIteration; out.length < Math.min(perIteration, shots.length); k++) {
    const pass = Math.floor(k / shots.length);
    out.push(createRng(`adapt/${seed}/pass/${pass}`).shuffle(shots)[k % shots.length]!);
  }
  return out;
}

/** Trains `opts.adapter` in place; the base is read, never written. */
export async function trainAdapterGrpo(opts: AdapterGrpoOptions): Promise<AdapterGrpoResult> {
  const { base, adapter, config: c, seed } = opts;
  const adam = new Adam(adapter.params.length, { lr: c.learningRate, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0, maxGradNorm: c.maxGradNorm ?? 0 });
  const lossOpts = adaptLossOptions(c);
  const scorer = scorerParameters({ kind: 'adapter', base: base.net, adapter });
  // The KL reference is the policy GRPO starts from (the base, or base + an SFT'd adapter), frozen,
  // as train-grpo.ts keeps its starting checkpoint.
  const reference = adapter.merge(base.net);
  const history: IterationMetrics[] = [];
  const end = await runGrpoLoop({
    completed: 0, iterations: c.iterations,
    stopBefore: () => opts.signal?.aborted === true,

    // rollout: G episodes of each of this iteration's shots, app screens scored by base + adapter
    rollout: async ({ iter0, iteration }) => {
      const rng = createRng(`adapt/${seed}/iteration/${iter0}`);
      const tasks = iterationShots(opts.instances, c.instancesPerIteration, iter0, seed);
      const jobs: RolloutJob[] = tasks.flatMap((instance, g) => Array.from({ length: c.rolloutsPerInstance }, (_, k) => ({
        group: g, rollout: k, instance, rngKey: `adapt/${seed}/rollout/${iter0}/${g}/${k}`,
      })));
      const tRollout = performance.now();
      const rerunsBefore = opts.workers?.reruns ?? 0;
      const choice: AdapterChoice = { app: opts.target.app, package: opts.target.package, adapter };
      const rec = opts.recording;
      const rollouts = await runAdaptedRollouts(opts.workers ?? opts.devices, jobs, {
        base, adapters: [choice], temperature: c.temperature, maxSteps: c.maxSteps, home: opts.home,
        ...(rec ? { recorder: (job: RolloutJob) => rec.into.recorder(iteration, job), screenshots: rec.screenshots } : {}),
      });
      const rolloutS = (performance.now() - tRollout) / 1000;
      const reruns = (opts.workers?.reruns ?? 0) - rerunsBefore;
      return { rng, groups: tasks.map((_, g) => rollouts.filter((r) => r.job.group === g)), rolloutS, reruns };
    },

    // score: the checker's outcome (NaN = unscorable episode)
    score: (_, { groups }) => ({
      scores: { kind: 'episode', returns: groups.map((g) => g.map((r) => r.reward)), steps: groups.map((g) => g.map((r) => r.records.length)) },
    }),
    advantage: { mode: c.advantage.mode, options: adaptAdvantageOptions(c) },

    // update: the local update, log π of adapter steps recomputed under base + adapter, gradients projected onto the adapter
    update: ({ iter0, iteration }, { rolled: { rng, groups }, advantages }) => {
      const batch = trainingBatch(groups, advantages);
      const lr = adaptLearningRate(c, iter0);
      const stats = updatePolicy(batch, {
        scorer, trains: (r) => Boolean(r.adapter), reference, adam, lr, epochs: c.epochs, minibatchSize: c.minibatchSize, loss: lossOpts, rng, replayed: 0,
        diverged: (metric, value) => {
          throw new AdaptationDivergedError(iteration, metric, value);
        },
      });
      return { stats, lr, freshAdvantages: batch.flatMap((e) => e.advantages), batchSteps: batch.reduce((n, e) => n + e.records.length, 0) };
    },

    // log
    log: ({ iteration, t0 }, { rolled: { groups, rolloutS, reruns }, advantages, updated: u }) => {
      opts.recording?.into.finish(iteration, groups.map((g) => g.map((r) => r.job)), groups.map((g) => g.map((r) => r.reward)), advantages.advantages);
      const allRecords = groups.flat().flatMap((r) => r.records);
      const metrics: Record<string, number> = {
        ...iterationMetrics({ groups, stats: advantages.groups, freshAdvantages: u.freshAdvantages, update: u.stats, rolloutS, t0, batchSteps: u.batchSteps, lr: u.lr }),
        [ADAPTER_STEPS_FRAC]: allRecords.length ? allRecords.filter((r) => r.adapter).length / allRecords.length : 0,
        [ADAPTER_NORM]: Math.sqrt(adapter.params.reduce((s, v) => s + v * v, 0)),
        [METRIC.reruns]: reruns,
      };
      const m: IterationMetrics = { iteration, metrics };
      history.push(m);
      opts.onIteration?.(m);
      return false;
    },
  });
  return { iterations: history.length, stoppedBy: end.stoppedBy, history };
}
