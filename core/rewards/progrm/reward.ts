import { WorkbenchError } from '../../util/errors.js';
import { checkRewardValues, type RewardComponent, type RewardEpisode, type StepRewardValue } from '../component.js';
import type { DetailedRewardValues, ProgRmDetail } from '../details.js';
import { DEFAULT_ANNOTATE, discoverKeySteps, progActions, taskKeyOf, type AnnotateOptions, type KeyStepAlignment, type Recipe } from './annotate.js';
import type { ProgAction } from './lcs.js';
import { formatProgAction } from './lcs.js';
import { predictProgress, type ProgressModel } from './model.js';

export interface ProgRmRewardOptions {
  /** Progress history length k (paper: 1 in the main runs, 3 in the ablation). */
  k: number;
  /**
   * A recipe library (from buildRecipeLibrary) to name each step's key-step match in its
   * explanation; the reward itself comes from the model only.
   */
  library?: ReadonlyMap<string, readonly Recipe[]>;
  annotate?: AnnotateOptions;
}

export class ProgRmOptionError extends WorkbenchError {
  override name = 'ProgRmOptionError';
  constructor(message: string, readonly got: unknown) {
    super(`ProgRM reward: ${message} (got ${JSON.stringify(got)})`);
  }
}

/**
 * Progress reward (ProgRM Eq. 2): r_t = Prog(s_t) − Prog(s_{t−k}), the progress gained over the
 * last k steps. Credited to the action that produced s_t: for step t (0-based), with P_{−1} the
 * initial state's progress and P_t the progress after step t,
 *   r_t = P_t − P_{max(t−k, −1)}
 * (t − k before the start is clamped to the initial state, digest §2.1). It can be negative: a step
 * that undoes progress loses it.
 */
export function progressGains(progress: readonly number[], k: number): number[] {
  if (!Number.isInteger(k) || k < 1) throw new ProgRmOptionError('k must be a positive integer', k);
  const out: number[] = [];
  for (let t = 0; t + 1 < progress.length; t++) out.push(progress[t + 1]! - progress[Math.max(0, t + 1 - k)]!);
  return out;
}

const pct = (x: number) => x.toFixed(2);
const signed = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(2)}`;

/** The 'progrm' reward component: a trained progress model's per-step gains, with the curve in each explanation. */
export class ProgRmReward implements RewardComponent {
  readonly kind = 'progrm' as const;
  constructor(readonly model: ProgressModel, readonly opts: ProgRmRewardOptions = { k: 1 }) {
    if (!Number.isInteger(opts.k) || opts.k < 1) throw new ProgRmOptionError('k must be a positive integer', opts.k);
  }

  compute(episode: RewardEpisode): Promise<StepRewardValue[]> {
    const progress = predictProgress(this.model, episode);
    const gains = progressGains(progress, this.opts.k);
    const keyAt = this.keyStepNotes(episode);
    const values = gains.map((value, t) => {
      const from = Math.max(0, t + 1 - this.opts.k);
      const span = this.opts.k === 1 ? '' : ` over ${t + 1 - from} step${t + 1 - from === 1 ? '' : 's'}`;
      const note = keyAt.get(t);
      return {
        step: t,
        value,
        explanation: `progress ${pct(progress[from]!)} → ${pct(progress[t + 1]!)} (${signed(value)}${span})${note ? `; ${note}` : ''}`,
      };
    });
    checkRewardValues(this.kind, episode, values);
    return Promise.resolve(values);
  }

  /** The values and the progress curve with the key-step alignment (core/rewards/details.ts). */
  async computeDetailed(episode: RewardEpisode): Promise<DetailedRewardValues> {
    const values = await this.compute(episode);
    const { progress, actions, alignment } = this.trace(episode);
    const detail: ProgRmDetail = {
      kind: 'progrm', k: this.opts.k, progress, actions: actions.map(formatProgAction),
      recipe: alignment
        ? { index: alignment.recipeIndex, support: alignment.recipe.support, keySteps: alignment.recipe.actions.map(formatProgAction), completion: alignment.completion }
        : null,
      alignment: (alignment?.keySteps ?? []).map(([step, keyStep]) => ({ step, keyStep })).sort((a, b) => a.step - b.step),
    };
    return { values, detail };
  }

  /**
   * What the replay viewer draws: the progress curve (initial state first, then after each step),
   * the episode's actions as triples, and their alignment to the best recipe of the library (null
   * without a library or a recipe for the task).
   */
  trace(episode: RewardEpisode): { progress: number[]; actions: ProgAction[]; alignment: KeyStepAlignment | null } {
    return { progress: predictProgress(this.model, episode), actions: progActions(episode), alignment: this.align(episode) };
  }

  private align(episode: RewardEpisode): KeyStepAlignment | null {
    const recipes = this.opts.library?.get(taskKeyOf(episode, (this.opts.annotate ?? DEFAULT_ANNOTATE).taskKey));
    if (!recipes || recipes.length === 0) return null;
    return discoverKeySteps(progActions(episode), recipes, { ...DEFAULT_ANNOTATE, encoder: this.model.encoder, ...this.opts.annotate });
  }

  private keyStepNotes(episode: RewardEpisode): Map<number, string> {
    const notes = new Map<number, string>();
    const align = this.align(episode);
    if (!align) return notes;
    const n = align.recipe.actions.length;
    for (const [t, pos] of align.keySteps) notes.set(t, `key step ${pos + 1}/${n} of recipe ${align.recipeIndex + 1}: ${formatProgAction(align.recipe.actions[pos]!)}`);
    return notes;
  }
}
