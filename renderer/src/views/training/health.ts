import type { IterationMetricsRow, JobPhase, TrainerKind } from '../../../../core/api/types.js';

/** The trainers' metric names this module reads (core/rl/grpo-loop.ts METRIC, core/rl/sft.ts SFT_METRIC). */
const METRIC = { zeroStdFrac: 'adv/zero_std_frac', iterationS: 'perf/iteration_s', successRate: 'success/rate' } as const;
const SFT_METRIC = { epochS: 'perf/epoch_s' } as const;

/**
 * What the Training view tells a researcher about a run beyond its charts: whether it is learning at
 * all, and when it will end. Pure functions over the run's metric rows (the view and tests share them).
 */

/** Consecutive iterations without signal after which the view warns (a few: one dead iteration is normal early on). */
export const NO_SIGNAL_ITERATIONS = 5;

export interface NoSignalWarning {
  /** The trailing run of iterations whose every group had zero reward variance. */
  iterations: number;
  from: number;
  to: number;
}

/**
 * GRPO learns only from groups whose rewards differ (a zero-variance group has advantage 0 and is skipped): an
 * iteration where every group is flat (`adv/zero_std_frac` = 1) gives no gradient. A warning once the last `k`
 * iterations were all like that, else null.
 */
export function noSignalWarning(rows: readonly IterationMetricsRow[], k = NO_SIGNAL_ITERATIONS): NoSignalWarning | null {
  let n = 0;
  for (let i = rows.length - 1; i >= 0 && rows[i]!.metrics[METRIC.zeroStdFrac] === 1; i--) n++;
  return n >= k ? { iterations: n, from: rows[rows.length - n]!.iteration, to: rows.at(-1)!.iteration } : null;
}

/** Why the groups were flat, as the success rates over the warned iterations tell it. */
export type NoSignalCause = 'all-succeeded' | 'none-succeeded' | 'all-or-nothing';

/**
 * What the warning says and advises, in the order worth trying. A flat group is all successes or all failures: when
 * every rollout succeeded the tasks are too easy for the policy (a warm start does not help); when none did, a warm
 * start helps unless the run already has one (its `init`), which then needs more training on these tasks.
 */
export function noSignalAdvice(rows: readonly IterationMetricsRow[], w: NoSignalWarning, init: string | null): { cause: NoSignalCause; says: string; advice: string[] } {
  const rates = rows.filter((r) => r.iteration >= w.from && r.iteration <= w.to).map((r) => r.metrics[METRIC.successRate]).filter((v): v is number => v !== undefined);
  const moreRollouts = 'more rollouts per instance (group size G), so a group is less often all one outcome';
  if (rates.length && rates.every((v) => v === 1)) {
    return {
      cause: 'all-succeeded', says: 'every rollout succeeded',
      advice: ['harder tasks: another split part, a later curriculum stage, or templates this policy does not solve yet', 'evaluate this checkpoint instead of training it on tasks it solves'],
    };
  }
  if (rates.length && rates.every((v) => v === 0)) {
    return {
      cause: 'none-succeeded', says: 'no rollout succeeded',
      advice: [
        init !== null ? `train the init (${init}) longer or on these templates: it solves none of them yet` : 'start from a warm start (an SFT checkpoint as init) so some rollouts succeed',
        moreRollouts, 'an easier curriculum or split part, or more steps per episode',
      ],
    };
  }
  return {
    cause: 'all-or-nothing', says: 'each group was all successes or all failures',
    advice: [moreRollouts, 'a higher sampling temperature, so one instance\'s rollouts differ', 'more instances per iteration'],
  };
}

/** The seconds one iteration (GRPO) or epoch (SFT) took, by the trainer's own timing metric. */
function iterationSeconds(kind: TrainerKind, row: IterationMetricsRow): number | undefined {
  switch (kind) {
    case 'grpo':
    case 'transformer-grpo':
      return row.metrics[METRIC.iterationS];
    case 'sft':
    case 'transformer-sft':
      return row.metrics[SFT_METRIC.epochS];
  }
}

/**
 * Seconds left: the mean time of the last (up to) `window` iterations times the iterations to go; null before
 * the first iteration is timed.
 */
export function etaSeconds(kind: TrainerKind, rows: readonly IterationMetricsRow[], done: number, total: number, window = 5): number | null {
  const times = rows.slice(-window).map((r) => iterationSeconds(kind, r)).filter((s): s is number => s !== undefined && Number.isFinite(s));
  if (!times.length) return null;
  return (times.reduce((a, b) => a + b, 0) / times.length) * Math.max(0, total - done);
}

/**
 * Seconds left in a phase at its pace so far: the time since it was first heard of over what was done since, times
 * what is left; null before anything of it is done (or with no total).
 */
export function phaseEtaSeconds(p: JobPhase, now: number): number | null {
  const since = p.done - p.startDone;
  if (p.total === null || since <= 0) return null;
  return ((now - p.startedAt) / 1000 / since) * Math.max(0, p.total - p.done);
}

/** "1 h 05 min", "3 min 20 s", "12 s". */
export function formatEta(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** What a trainer's unit of progress is called. */
export function progressUnit(kind: TrainerKind): 'iteration' | 'epoch' {
  switch (kind) {
    case 'grpo':
    case 'transformer-grpo':
      return 'iteration';
    case 'sft':
    case 'transformer-sft':
      return 'epoch';
  }
}

/**
 * TensorBoard's smoothing: an exponential moving average with weight w, debiased by 1 − w^n so the first
 * points are not pulled towards 0 (TensorBoard scalars dashboard, "Smoothing"; Adam's bias correction, Kingma &
 * Ba 2015, Alg. 1). Gaps (null) stay gaps and do not advance the average.
 */
export function smoothSeries(values: readonly (number | null)[], w: number): Array<number | null> {
  if (w <= 0) return [...values];
  let acc = 0;
  let n = 0;
  return values.map((v) => {
    if (v === null || !Number.isFinite(v)) return null;
    acc = acc * w + (1 - w) * v;
    n++;
    return acc / (1 - w ** n);
  });
}

/** Tick steps for an iteration axis: integers only (no 0.5 tick for a one-iteration run). */
export const INTEGER_TICK_STEPS: number[] = [1, 2, 5].flatMap((m) => [1, 10, 100, 1000, 10_000, 100_000].map((p) => m * p)).sort((a, b) => a - b);

/** The iteration axis' range: the data's, widened by one either side when it is a single iteration. */
export function iterationRange(min: number | null, max: number | null): [number, number] {
  if (min === null || max === null) return [0, 1];
  return min === max ? [min - 1, max + 1] : [min, max];
}
