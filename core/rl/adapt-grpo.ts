import type { Device } from '../device/device.js';
import type { EpisodeResult } from '../episode/record.js';
import { runEpisode } from '../episode/runner.js';
import type { ScorerAdapter } from '../policy/adapter.js';
import { AdaptedPolicy, type AdapterChoice, type AdaptedStepRecord, type HomeMode } from '../policy/adapter-policy.js';
import type { PolicyModel } from '../policy/builtin.js';
import { Adam, entropy } from '../policy/network.js';
import type { TaskInstance } from '../tasks/instance.js';
import { WorkbenchError } from '../util/errors.js';
import { createRng } from '../util/rng.js';
import { adaptAdvantageOptions, adaptLearningRate, adaptLossOptions, type AdaptGrpoConfig } from './adapt-config.js';
import { batchLoss, episodeStepAdvantages, LossInputError, type StepLossInput } from './grpo.js';
import { outcomeReward, type RolloutJob } from '../rollout/rollouts.js';
import { METRIC, type IterationMetrics } from './train-grpo.js';

/**
 * GRPO on an adapter (docs/adaptation.md): the loop of core/rl/train-grpo.ts, cut to what few-shot
 * adaptation uses (AW-Gen §5.1 Q3: the same RL with the rule-based reward, no curriculum) and with
 * the base network frozen. One iteration: rollout (G episodes of each of the iteration's shots, the
 * policy scoring the app's screens with base + adapter and every other screen with the base) →
 * score (checker outcome) → advantages (group-normalised, zero-std groups skipped) → update
 * (clipped surrogate + k3 KL to the starting policy, gradients projected onto the adapter) → log.
 *
 * Steps scored by the base carry no gradient to the adapter; they stay in the batch so the loss is
 * normalised over the same steps as a full-model run (their ratio is 1 and their KL 0).
 */

/** Adapter-specific metric: the share of rollout steps scored by the adapter (the rest were the base's). */
export const ADAPTER_STEPS_FRAC = 'adapter/steps_frac';
/** L2 norm of the adapter parameters after the update. */
export const ADAPTER_NORM = 'adapter/norm';

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
}

/**
 * Runs the jobs first come first served on the devices, as core/rollout/rollouts.ts runRollouts does, but
 * with the adapted policy (which rollout.ts's BuiltinPolicy-only loop cannot take). Each job samples
 * with its own RNG, so results do not depend on which device ran it; they come back in job order.
 */
export async function runAdaptedRollouts(devices: readonly Device[], jobs: readonly RolloutJob[], opts: AdaptedRolloutOptions): Promise<AdaptedRollout[]> {
  const out: AdaptedRollout[] = new Array(jobs.length);
  let next = 0;
  const worker = async (device: Device) => {
    while (next < jobs.length) {
      const k = next++;
      const job = jobs[k]!;
      const policy = new AdaptedPolicy(opts.base, opts.adapters, { mode: 'sample', temperature: opts.temperature, rng: createRng(job.rngKey) }, { record: true, name: 'builtin-adapt', home: opts.home });
      const result = await runEpisode({ device, instance: job.instance, policy, maxSteps: opts.maxSteps, onMalformed: 'continue' });
      out[k] = { job, result, records: policy.takeRecords(), reward: outcomeReward(result) };
    }
  };
  await Promise.all(devices.map(worker));
  return out;
}

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
  /** Stop after the current iteration. */
  signal?: AbortSignal;
  onIteration?: (m: IterationMetrics) => void;
}

export interface AdapterGrpoResult {
  iterations: number;
  stoppedBy: 'done' | 'aborted';
  history: IterationMetrics[];
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const std = (xs: readonly number[]) => {
  const m = mean(xs);
  return Math.sqrt(mean(xs.map((x) => (x - m) ** 2)));
};

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
  const advOpts = adaptAdvantageOptions(c);
  const lossOpts = adaptLossOptions(c);
  const merged = adapter.merge(base.net);
  // The KL reference is the policy GRPO starts from (the base, or base + an SFT'd adapter), frozen,
  // as train-grpo.ts keeps its starting checkpoint.
  const reference = adapter.merge(base.net);
  const history: IterationMetrics[] = [];
  let stoppedBy: AdapterGrpoResult['stoppedBy'] = 'done';
  for (let iter0 = 0; iter0 < c.iterations; iter0++) {
    if (opts.signal?.aborted) {
      stoppedBy = 'aborted';
      break;
    }
    const iteration = iter0 + 1;
    const rng = createRng(`adapt/${seed}/iteration/${iter0}`);
    const t0 = performance.now();

    // rollout: G episodes of each of this iteration's shots, app screens scored by base + adapter
    const tasks = iterationShots(opts.instances, c.instancesPerIteration, iter0, seed);
    const jobs: RolloutJob[] = tasks.flatMap((instance, g) => Array.from({ length: c.rolloutsPerInstance }, (_, k) => ({
      group: g, rollout: k, instance, rngKey: `adapt/${seed}/rollout/${iter0}/${g}/${k}`,
    })));
    const tRollout = performance.now();
    const choice: AdapterChoice = { app: opts.target.app, package: opts.target.package, adapter };
    const rollouts = await runAdaptedRollouts(opts.devices, jobs, { base, adapters: [choice], temperature: c.temperature, maxSteps: c.maxSteps, home: opts.home });
    const rolloutS = (performance.now() - tRollout) / 1000;
    const groups = tasks.map((_, g) => rollouts.filter((r) => r.job.group === g));

    // score: the checker's outcome (NaN = unscorable episode)
    const outcome = groups.map((g) => g.map((r) => r.reward));

    // advantages: trajectory (broadcast) or step level; zero-std groups skipped or kept
    const { advantages: stepAdv, groups: stats } = episodeStepAdvantages(outcome, groups.map((g) => g.map((r) => r.records.length)), c.advantage.mode, advOpts);
    const batch = groups.flatMap((g, gi) => (stats[gi]!.skipped ? [] : g.flatMap((r, i) => (r.records.length ? [{ records: r.records, advantages: stepAdv[gi]![i]! }] : []))));

    // update: epochs × minibatches of whole episodes; log π of adapter steps recomputed under base + adapter
    const lr = adaptLearningRate(c, iter0);
    adam.opts.lr = lr;
    const logpRef = batch.map((e) => e.records.map((r) => (r.adapter ? reference.logProbs(r.features, r.n, r.temperature)[r.chosen]! : r.logProb)));
    adapter.merge(base.net, merged);
    const adapted = batch.flatMap((e) => e.records.filter((r) => r.adapter));
    const ent = mean(adapted.map((r) => entropy(merged.logProbs(r.features, r.n, r.temperature))));
    const policyLosses: number[] = [];
    const kls: number[] = [];
    const clips: number[] = [];
    const gradNorms: number[] = [];
    for (let epoch = 0; epoch < c.epochs; epoch++) {
      const order = rng.fork(`epoch/${epoch}`).shuffle(batch.map((_, i) => i));
      for (let start = 0; start < order.length;) {
        const mbIdx: number[] = [];
        let mbSteps = 0;
        while (start < order.length && (mbSteps < c.minibatchSize || mbIdx.length === 0)) {
          const i = order[start++]!;
          mbIdx.push(i);
          mbSteps += batch[i]!.records.length;
        }
        adapter.merge(base.net, merged);
        const mbInputs: StepLossInput[][] = mbIdx.map((i) => batch[i]!.records.map((r, t) => ({
          logpNew: r.adapter ? merged.logProbs(r.features, r.n, r.temperature)[r.chosen]! : r.logProb,
          logpOld: r.logProb,
          logpRef: logpRef[i]![t]!,
          advantage: batch[i]!.advantages[t]!,
        })));
        let mbLoss;
        try {
          mbLoss = batchLoss(mbInputs, lossOpts);
        } catch (e) {
          if (e instanceof LossInputError) throw new AdaptationDivergedError(iteration, METRIC.lossPolicy, Number(e.value));
          throw e;
        }
        if (!Number.isFinite(mbLoss.loss)) throw new AdaptationDivergedError(iteration, METRIC.lossPolicy, mbLoss.loss);
        merged.zeroGrad();
        mbIdx.forEach((i, k) => batch[i]!.records.forEach((r, t) => {
          if (r.adapter) merged.accumulateLogProb(r.features, r.n, r.chosen, mbLoss.dLogp[k]![t]!, r.temperature);
        }));
        adapter.zeroGrad();
        adapter.accumulateFromMerged(merged.grads);
        let sq = 0;
        for (const g of adapter.grads) sq += g * g;
        if (!Number.isFinite(sq)) throw new AdaptationDivergedError(iteration, METRIC.gradNorm, Math.sqrt(sq));
        gradNorms.push(adam.step(adapter.params, adapter.grads));
        policyLosses.push(mbLoss.stats.meanPolicyLoss);
        kls.push(mbLoss.stats.meanKl);
        clips.push(mbLoss.stats.clipFraction);
      }
    }
    const bad = adapter.params.findIndex((x) => !Number.isFinite(x));
    if (bad >= 0) throw new AdaptationDivergedError(iteration, `adapter[${bad}]`, adapter.params[bad]!);

    // log
    const scored = outcome.flat().filter((r) => Number.isFinite(r));
    const envSteps = rollouts.reduce((n, r) => n + r.result.steps.length, 0);
    const allRecords = rollouts.flatMap((r) => r.records);
    const freshAdv = batch.flatMap((e) => e.advantages);
    const metrics: Record<string, number> = {
      [METRIC.rewardMean]: mean(scored),
      [METRIC.successRate]: mean(outcome.flat().map((r) => (r > 0 ? 1 : 0))),
      [METRIC.advMean]: mean(freshAdv),
      [METRIC.advStd]: std(freshAdv),
      [METRIC.zeroStdFrac]: mean(stats.map((g) => (g.groupStd === 0 ? 1 : 0))),
      [METRIC.lossPolicy]: mean(policyLosses),
      [METRIC.lossKl]: mean(kls),
      [METRIC.entropy]: ent,
      [METRIC.clipFrac]: mean(clips),
      [METRIC.stepsPerS]: rolloutS > 0 ? envSteps / rolloutS : 0,
      [METRIC.iterationS]: (performance.now() - t0) / 1000,
      [METRIC.rolloutS]: rolloutS,
      // Their reward is NaN (outcomeReward), so they are scored out of their group, not trained on.
      [METRIC.envErrors]: rollouts.filter((r) => r.result.status === 'error').length,
      [METRIC.episodeLength]: envSteps / Math.max(1, rollouts.length),
      [METRIC.batchSteps]: batch.reduce((n, e) => n + e.records.length, 0),
      [METRIC.lr]: lr,
      [METRIC.gradNorm]: mean(gradNorms),
      [ADAPTER_STEPS_FRAC]: allRecords.length ? allRecords.filter((r) => r.adapter).length / allRecords.length : 0,
      [ADAPTER_NORM]: Math.sqrt(adapter.params.reduce((s, v) => s + v * v, 0)),
    };
    const m: IterationMetrics = { iteration, metrics };
    history.push(m);
    opts.onIteration?.(m);
  }
  return { iterations: history.length, stoppedBy, history };
}
