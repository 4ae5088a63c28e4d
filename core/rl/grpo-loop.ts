import type { EpisodeResult } from '../episode/record.js';
import { assertNever } from '../util/errors.js';
import { nextTurn } from '../util/next-turn.js';
import {
  episodeStepAdvantages, stepGroupAdvantages, type AdvantageMode, type AdvantageOptions, type GroupStats,
} from './grpo.js';

/**
 * The GRPO iteration loop, one for every GRPO in the workbench: local training of the builtin
 * policy (train-grpo.ts), per-app adaptation (adapt-grpo.ts) and online GRPO with a remote trainer
 * (core/remote-jobs/online.ts). One iteration:
 *
 *   rollout     G episodes per task instance with the current policy, grouped by instance
 *   score       a return per episode (NaN = unscorable) or a value per step
 *   advantages  group-relative, core/rl/grpo.ts; zero-std groups flagged
 *   update      the policy learns from the advantaged episodes
 *   log         metrics, store, checkpoint
 *
 * What differs between the three is passed in: what rolls out and on which devices, how episodes are
 * scored, where the update runs (a local minibatch Adam update, grpo-update.ts, or a job on a remote
 * trainer and a switch to its policy) and what is logged and checkpointed. Each part's seeds are its
 * own (the iteration's RNG is the caller's), so the loop draws nothing and changes no run.
 */

/** Metric names of a local GRPO iteration (namespaced as cleanrl / TRL log them). */
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
  /** Rollouts run again because their remote worker died (Ray rollouts, docs/ray.md); 0 on this machine. */
  reruns: 'rollout/reruns',
  episodeLength: 'episode/length',
  /** Environment steps the iteration's rollouts took (the charts' x axis by environment steps). */
  envSteps: 'rollout/env_steps',
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

export const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
/** Population std; 0 for none. */
export const std = (xs: readonly number[]): number => {
  const m = mean(xs);
  return xs.length ? Math.sqrt(mean(xs.map((x) => (x - m) ** 2))) : 0;
};

/** One finished rollout as the loop sees it. */
export interface GrpoEpisode {
  result: EpisodeResult;
  /** Outcome reward: 1 / 0, NaN for an episode that ended in an error (left out of the statistics). */
  reward: number;
}

/** What a rollout hands the loop: the iteration's episodes, groups[g][k] the k-th of instance g. */
export interface GrpoRollouts<E extends GrpoEpisode> {
  groups: E[][];
  /** Seconds the rollouts took (perf/rollout_s). */
  rolloutS: number;
}

/** What the advantages are taken from. */
export type GroupScores =
  /** returns[g][i] of episode i of group g, with its number of steps: advantages by the mode (trajectory or step). */
  | { kind: 'episode'; returns: readonly (readonly number[])[]; steps: readonly (readonly number[])[] }
  /** values[g][i][t] per step (reward components with step credit): one z-score over the group's steps. */
  | { kind: 'step'; values: readonly (readonly (readonly number[])[])[] };

export interface GrpoScored {
  scores: GroupScores;
}

export interface GrpoAdvantages {
  /** advantages[g][i][t]: one per step of episode i of group g. */
  advantages: number[][][];
  groups: GroupStats[];
}

/** The advantages section: core/rl/grpo.ts on the scores. */
export function scoreAdvantages(scores: GroupScores, mode: AdvantageMode, opts: AdvantageOptions): GrpoAdvantages {
  switch (scores.kind) {
    case 'episode':
      return episodeStepAdvantages(scores.returns, scores.steps, mode, opts);
    case 'step':
      return stepGroupAdvantages(scores.values, opts);
    default:
      return assertNever(scores, 'group scores');
  }
}

export interface GrpoIteration {
  /** Iterations completed before this one. */
  iter0: number;
  /** 1-based. */
  iteration: number;
  /** performance.now() at its start (perf/iteration_s counts from here). */
  t0: number;
}

/** What one iteration has produced by the time it is updated on and logged. */
export interface GrpoIterationParts<R, S> {
  rolled: R;
  scored: S;
  advantages: GrpoAdvantages;
}

/** The parts of a GRPO loop that differ between its users. */
export interface GrpoLoop<E extends GrpoEpisode, R extends GrpoRollouts<E>, S extends GrpoScored, U> {
  /** Iterations already completed (a resumed run continues after them). */
  completed: number;
  /** The iteration to stop after. */
  iterations: number;
  /** Before each iteration, with the iterations completed: true ends the loop before it starts. */
  stopBefore?: (completed: number) => boolean | Promise<boolean>;
  rollout: (it: GrpoIteration) => Promise<R>;
  score: (it: GrpoIteration, rolled: R) => S | Promise<S>;
  /** How the advantages are taken from the scores. */
  advantage: { mode: AdvantageMode; options: AdvantageOptions };
  update: (it: GrpoIteration, parts: GrpoIterationParts<R, S>) => U | Promise<U>;
  /** true ends the loop after this iteration. */
  log: (it: GrpoIteration, parts: GrpoIterationParts<R, S> & { updated: U }) => boolean | Promise<boolean>;
}

export interface GrpoLoopEnd {
  /** Iterations completed in total. */
  completed: number;
  stoppedBy: 'done' | 'aborted';
}

/** Runs the iterations; see the module comment. Errors from any part end the loop and propagate. */
export async function runGrpoLoop<E extends GrpoEpisode, R extends GrpoRollouts<E>, S extends GrpoScored, U>(
  loop: GrpoLoop<E, R, S, U>,
): Promise<GrpoLoopEnd> {
  for (let iter0 = loop.completed; iter0 < loop.iterations; iter0++) {
    // A turn of the event loop per iteration: a stop signal's handler runs here even when nothing in the iteration waits.
    await nextTurn();
    if (loop.stopBefore && (await loop.stopBefore(iter0))) return { completed: iter0, stoppedBy: 'aborted' };
    const it: GrpoIteration = { iter0, iteration: iter0 + 1, t0: performance.now() };

    // rollout: G episodes per task instance with the current policy
    const rolled = await loop.rollout(it);

    // score: a return per episode or a value per step
    const scored = await loop.score(it, rolled);

    // advantages: group-relative; zero-std groups flagged (skipped or kept, by the options)
    const advantages = scoreAdvantages(scored.scores, loop.advantage.mode, loop.advantage.options);

    // update: local minibatch Adam, or a remote job and a switch to its policy
    const updated = await loop.update(it, { rolled, scored, advantages });

    // log: metrics, store, checkpoint
    if (await loop.log(it, { rolled, scored, advantages, updated })) return { completed: it.iteration, stoppedBy: 'aborted' };
  }
  return { completed: Math.max(loop.completed, loop.iterations), stoppedBy: 'done' };
}

/** A local update's statistics, means over its minibatches (entropy: over the fresh steps it trains; null when none). */
export interface UpdateStats {
  policyLoss: number;
  kl: number;
  entropy: number | null;
  clipFraction: number;
  gradNorm: number;
}

export interface IterationFacts {
  groups: readonly (readonly GrpoEpisode[])[];
  stats: readonly GroupStats[];
  /** The fresh episodes' step advantages (replayed ones left out). */
  freshAdvantages: readonly number[];
  update: UpdateStats;
  rolloutS: number;
  /** The iteration's start (GrpoIteration.t0). */
  t0: number;
  /** Steps in the update's batch, replayed ones included. */
  batchSteps: number;
  lr: number;
  /** AdaGRPO's replay and the curriculum stage: training of the builtin policy only. */
  adagrpo?: { replayed: number; curriculumStage: number };
}

/** The metrics block of a GRPO iteration with a local update (METRIC names; perf/iteration_s up to now). */
export function iterationMetrics(f: IterationFacts): Record<string, number> {
  const episodes = f.groups.flat();
  const outcome = episodes.map((e) => e.reward);
  const envSteps = episodes.reduce((n, e) => n + e.result.steps.length, 0);
  return {
    [METRIC.rewardMean]: mean(outcome.filter((r) => Number.isFinite(r))),
    [METRIC.successRate]: mean(outcome.map((r) => (r > 0 ? 1 : 0))),
    [METRIC.advMean]: mean(f.freshAdvantages),
    [METRIC.advStd]: std(f.freshAdvantages),
    [METRIC.zeroStdFrac]: mean(f.stats.map((g) => (g.groupStd === 0 ? 1 : 0))),
    [METRIC.lossPolicy]: f.update.policyLoss,
    [METRIC.lossKl]: f.update.kl,
    // Left out, not 0, when no step was trained: the chart and tables show 'n/a' there.
    ...(f.update.entropy !== null ? { [METRIC.entropy]: f.update.entropy } : {}),
    [METRIC.clipFrac]: f.update.clipFraction,
    [METRIC.stepsPerS]: f.rolloutS > 0 ? envSteps / f.rolloutS : 0,
    [METRIC.iterationS]: (performance.now() - f.t0) / 1000,
    [METRIC.rolloutS]: f.rolloutS,
    // Their reward is NaN (outcomeReward), so they are scored out of their group, not trained on.
    [METRIC.envErrors]: episodes.filter((e) => e.result.status === 'error').length,
    [METRIC.episodeLength]: envSteps / Math.max(1, episodes.length),
    [METRIC.envSteps]: envSteps,
    [METRIC.batchSteps]: f.batchSteps,
    ...(f.adagrpo ? { [METRIC.batchReplayed]: f.adagrpo.replayed, [METRIC.curriculumStage]: f.adagrpo.curriculumStage } : {}),
    [METRIC.lr]: f.lr,
    [METRIC.gradNorm]: f.update.gradNorm,
  };
}
