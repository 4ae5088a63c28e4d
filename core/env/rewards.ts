import type { StepRecord } from '../episode/record.js';
import type { RewardEpisode, RewardKind, RewardStep } from '../rewards/component.js';
import { prepareRewards, RewardSet, type PreparedRewards } from '../rewards/compose.js';
import { scoreStoredEpisode } from '../rewards/stored.js';
import { loadTrajectory, type EpisodeId, type WritableDB } from '../store/index.js';
import type { TaskInstance } from '../tasks/instance.js';

/**
 * Rewards as an outside agent receives them, step by step (docs/env-protocol.md, "Rewards"). Each step's reward is
 * the weighted sum of the components' values for it, every component scoring the episode so far as if it had ended
 * there without success — except the end-only components (`outcome`, `shortest-path`), which give nothing before the
 * end. When the episode ends, the components score it as stored (with its group, written under their kinds), and the
 * final step's reward is the stored return minus what the earlier steps gave: the rewards a client received always
 * sum to the episode's return.
 */

/** Components whose values exist only once the outcome is known. */
const END_ONLY: ReadonlySet<RewardKind> = new Set(['outcome', 'shortest-path']);

export const DEFAULT_ENV_REWARDS = { components: [{ kind: 'outcome', weight: 1 }] };

export interface StepValues {
  /** The weighted total of the steps (0 for a component that could not score a step: its reason is in `unscored`). */
  total: number;
  /** The last step's value per component (null: unscored). */
  byKind: Record<string, number | null>;
  unscored: Record<string, string>;
}

export interface Settled {
  /** Σ over the episode's steps of the weighted totals, as stored (an unscored step counts 0). */
  episodeReturn: number;
  /** Every step's value per component, as stored. */
  byKind: Record<string, Array<number | null>>;
  unscored: Record<string, string>;
}

function stepOf(s: StepRecord, tree: string | undefined): RewardStep {
  const r: RewardStep = { index: s.index, foreground: s.foreground };
  if (s.action) r.action = s.action;
  if (s.description !== undefined) r.description = s.description;
  if (s.error) r.error = s.error;
  if (tree) r.tree = tree;
  if (s.target) r.target = { label: s.target.label };
  return r;
}

export class EpisodeRewardStream {
  private dense: RewardSet | null | undefined;

  private constructor(private readonly prepared: PreparedRewards, private readonly ctx: { db: WritableDB; dataDir?: string }) {}

  /** Validates the config (RewardConfigError lists every problem; default: outcome only). */
  static async create(config: unknown, ctx: { db: WritableDB; dataDir?: string }): Promise<EpisodeRewardStream> {
    return new EpisodeRewardStream(await prepareRewards(config ?? DEFAULT_ENV_REWARDS), ctx);
  }

  get kinds(): RewardKind[] {
    return this.prepared.config.components.map((c) => c.kind);
  }

  /** The components that score steps before the end, built once per episode (ADMIRE reads its memory from the store). */
  private async denseSet(): Promise<RewardSet | null> {
    if (this.dense === undefined) {
      const set = await this.prepared.instantiate({ db: this.ctx.db, ...(this.ctx.dataDir !== undefined ? { dataDir: this.ctx.dataDir } : {}) });
      const kept = set.components.filter((c) => !END_ONLY.has(c.kind));
      this.dense = kept.length ? new RewardSet(kept) : null;
    }
    return this.dense;
  }

  /** A new episode: the dense components are built afresh (a memory may have learned from the last one). */
  reset(): void {
    this.dense = undefined;
  }

  /** The values of steps `from`…`steps.length-1`, each scored on the episode up to it, as if it ended there unsuccessfully. */
  async provisional(instance: TaskInstance, steps: readonly StepRecord[], trees: readonly string[], from: number): Promise<StepValues> {
    const byKind: Record<string, number | null> = Object.fromEntries(this.kinds.map((k) => [k, END_ONLY.has(k) ? 0 : null]));
    const unscored: Record<string, string> = {};
    const set = await this.denseSet();
    let total = 0;
    if (set) {
      for (let t = from; t < steps.length; t++) {
        const episode: RewardEpisode = {
          templateId: instance.template.id, seed: instance.seed, instruction: instance.instruction,
          params: instance.params as Record<string, unknown>, success: false,
          steps: steps.slice(0, t + 1).map((s, i) => stepOf(s, trees[i])),
        };
        const row = (await set.compute(episode)).steps[t]!;
        for (const [kind, v] of Object.entries(row.values)) {
          byKind[kind] = v.value;
          if (v.value === null) unscored[kind] = v.explanation;
        }
        total += row.total ?? 0;
      }
    }
    return { total, byKind, unscored };
  }

  /** Scores the stored episode with every component (and its group), writes the values, and gives its return. */
  async settle(episodeId: EpisodeId): Promise<Settled> {
    const db = this.ctx.db;
    const { breakdown } = await scoreStoredEpisode(db, loadTrajectory(db, episodeId), this.prepared, {
      write: true, details: false, ...(this.ctx.dataDir !== undefined ? { dataDir: this.ctx.dataDir } : {}),
    });
    const byKind: Record<string, Array<number | null>> = {};
    const unscored: Record<string, string> = {};
    for (const [kind, values] of Object.entries(breakdown.byKind)) {
      byKind[kind] = values.map((v) => v.value);
      const why = values.find((v) => v.value === null);
      if (why) unscored[kind] = why.explanation;
    }
    return { episodeReturn: breakdown.steps.reduce((sum, s) => sum + (s.total ?? 0), 0), byKind, unscored };
  }
}
