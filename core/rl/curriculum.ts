import type { Difficulty } from '../tasks/task.js';
import { assertNever } from '../util/errors.js';
import type { Rng } from '../util/rng.js';

/**
 * The easy → medium → hard curriculum of AndroidWorld-Generalization (digest 004 §5.1, following
 * ARPO): stage 1 samples Easy templates, stage 2 Easy + Medium, stage 3 All. The paper gives the
 * stage lengths and switching criteria only as coloured regions of its Fig. 3 (digest 004 §11.5), so
 * both readings are implemented and chosen in the config:
 *
 * - 'iterations': stage boundaries at fixed fractions of the run (default ⅓ and ⅔): reproducible,
 *   independent of how the policy does; the default.
 * - 'success': advance when the mean training success rate of the last `window` iterations of the
 *   current stage reaches `threshold` (and at least `window` iterations were spent in it).
 * - 'none': every difficulty from the start (AW-Gen's "w/o curriculum learning" row, Table 4).
 *
 * A stage with no eligible template (a split without easy templates) falls through to the next stage
 * that has some, so an iteration never samples from an empty pool.
 */
export type CurriculumStage = 1 | 2 | 3;

export type CurriculumOptions =
  | { mode: 'none' }
  | { mode: 'iterations'; stageAt: readonly [number, number] }
  | { mode: 'success'; threshold: number; window: number };

export interface CurriculumState {
  stage: CurriculumStage;
  /** Success rates of the iterations spent in the current stage ('success' mode). */
  recent: number[];
}

export class CurriculumError extends Error {
  override name = 'CurriculumError';
  constructor(message: string, readonly value: unknown) {
    super(`${message}, got ${JSON.stringify(value)}`);
  }
}

/** The difficulties a stage samples from. */
export function stageDifficulties(stage: CurriculumStage): Difficulty[] {
  switch (stage) {
    case 1: return ['easy'];
    case 2: return ['easy', 'medium'];
    case 3: return ['easy', 'medium', 'hard'];
    default: return assertNever(stage, 'curriculum stage');
  }
}

export function initialCurriculum(opts: CurriculumOptions): CurriculumState {
  return { stage: opts.mode === 'none' ? 3 : 1, recent: [] };
}

/**
 * The stage for iteration `iteration` (0-based) of `iterations`, after the previous iteration's
 * training success rate was `lastSuccessRate` (null before the first). Pure: returns a new state.
 *
 *   'iterations': stage = 1 + [iteration ≥ stageAt₀·iterations] + [iteration ≥ stageAt₁·iterations]
 *   'success':    stage += 1 when |recent| ≥ window and mean(last window of recent) ≥ threshold
 */
export function advanceCurriculum(
  state: CurriculumState, opts: CurriculumOptions, iteration: number, iterations: number, lastSuccessRate: number | null,
): CurriculumState {
  switch (opts.mode) {
    case 'none':
      return { stage: 3, recent: [] };
    case 'iterations': {
      const [a, b] = opts.stageAt;
      const stage = (1 + (iteration >= a * iterations ? 1 : 0) + (iteration >= b * iterations ? 1 : 0)) as CurriculumStage;
      return { stage, recent: [] };
    }
    case 'success': {
      const recent = lastSuccessRate === null ? state.recent : [...state.recent, lastSuccessRate].slice(-opts.window);
      if (state.stage < 3 && recent.length >= opts.window) {
        const mean = recent.reduce((s, x) => s + x, 0) / recent.length;
        if (mean >= opts.threshold) return { stage: (state.stage + 1) as CurriculumStage, recent: [] };
      }
      return { stage: state.stage, recent };
    }
    default:
      return assertNever(opts, 'curriculum mode');
  }
}

/** The items eligible at a stage; falls through to later stages when a stage has none. */
export function eligibleAtStage<T extends { difficulty: Difficulty }>(items: readonly T[], stage: CurriculumStage): T[] {
  for (let s = stage; s <= 3; s++) {
    const allowed = new Set(stageDifficulties(s as CurriculumStage));
    const eligible = items.filter((t) => allowed.has(t.difficulty));
    if (eligible.length) return eligible;
  }
  return [];
}

/**
 * `count` distinct items drawn without replacement with probability ∝ weight (successive draws,
 * renormalising over what is left). Items of weight 0 are never drawn; if fewer than `count` items
 * have positive weight, all of them are returned. Seeded through `rng`.
 */
export function weightedSample<T>(items: readonly T[], weights: readonly number[], count: number, rng: Rng): T[] {
  if (items.length !== weights.length) throw new CurriculumError(`need one weight per item (${items.length})`, weights.length);
  if (!Number.isInteger(count) || count < 0) throw new CurriculumError('count must be a non-negative integer', count);
  for (const w of weights) if (!(w >= 0) || !Number.isFinite(w)) throw new CurriculumError('weights must be finite and ≥ 0', w);
  const pool = items.map((item, i) => ({ item, w: weights[i]! })).filter((p) => p.w > 0);
  const out: T[] = [];
  while (out.length < count && pool.length) {
    const total = pool.reduce((s, p) => s + p.w, 0);
    let x = rng.next() * total;
    let k = 0;
    while (k < pool.length - 1 && x >= pool[k]!.w) x -= pool[k++]!.w;
    out.push(pool[k]!.item);
    pool.splice(k, 1);
  }
  return out;
}

/** A task instance the trainer may sample: its key (instance key), template difficulty and an optional weight (FCF). */
export interface CurriculumCandidate {
  key: string;
  difficulty: Difficulty;
}

/**
 * The task instances one GRPO iteration rolls out: `count` distinct candidates eligible at the stage,
 * drawn with probability ∝ weight(key) (1 when no weight function is given; FCF supplies one).
 */
export function sampleIterationTasks<T extends CurriculumCandidate>(
  candidates: readonly T[], stage: CurriculumStage, count: number, rng: Rng, weight: (key: string) => number = () => 1,
): T[] {
  const eligible = eligibleAtStage(candidates, stage);
  return weightedSample(eligible, eligible.map((c) => weight(c.key)), count, rng);
}
