import type { RewardEpisode, RewardKind, StepRewardValue } from '../rewards/component.js';
import { prepareRewards, type RewardSet } from '../rewards/compose.js';
import { rewardEpisodeFromResult } from '../rewards/episode.js';
import type { RewardContext } from '../rewards/registry.js';
import { AdmireReward } from '../rewards/admire/reward.js';
import { inTransaction, type WritableDB } from '../store/db.js';
import type { EpisodeId } from '../store/index.js';
import { putRewardValues } from '../store/reward-annotations.js';
import { shortestPathRewards, type ShortestPathOptions } from '../rewards/shortest-path.js';
import type { TrainConfig } from './config.js';
import { creditSteps, type RewardCredit } from './credit.js';
import type { Rollout, RolloutJob } from '../rollout/rollouts.js';
import type { EpisodeRecorder } from '../episode/record.js';

/**
 * GRPO on composed rewards (issue 7): after each iteration's rollouts, every episode is scored by the
 * run's reward components (TrainConfig.rewards), and each step gets its credited value (credit.ts).
 *
 * Per iteration, as ADMIRE's Alg. 1: Phase 1 first — the batch's successes distil or refine each
 * template's milestones (AdmireReward.observe) — then Phase 2 scores every episode with the epoch
 * E = iteration in λ0·γ^E. The components are built once per run, so learned state (the milestone
 * memory; in the run's store when it has one) carries across iterations.
 *
 * An episode with any unscored step (a judge endpoint down, no checker verdict) is unscorable as a
 * whole: its values are NaN, which the advantage step leaves out of its group's statistics — a step
 * never silently reads as 0.
 */

export const REWARD_METRIC = {
  total: 'reward/total',
  unscored: 'reward/unscored_episodes',
  seconds: 'perf/reward_s',
  share: 'perf/reward_share',
  /** Mean over scored episodes of Σ_t of one component's values (weight not applied). */
  kind: (kind: RewardKind) => `reward/${kind}`,
} as const;

/** What scoring reads of a rollout (the builtin policy's Rollout, or the transformer policy's). */
export type ScorableRollout = Pick<Rollout, 'job' | 'result' | 'trees'> & { records: readonly unknown[] };

export interface ScoredRollouts {
  /** [group][episode] Σ_t of the composed reward (SPA applied), NaN when unscorable. */
  returns: number[][];
  /** [group][episode][record] the credited value of each policy step, NaN when unscorable. */
  stepValues: number[][][];
  /** [group][episode] each component's per-step values and explanations (what the store keeps by kind). */
  byKind: Partial<Record<RewardKind, StepRewardValue[]>>[][];
  metrics: Record<string, number>;
}

export interface ScoreOptions {
  /** MobileRL's shortest-path adjustment, applied to the last step of each success (adagrpo.shortestPath). */
  shortestPath?: ShortestPathOptions;
  signal?: AbortSignal;
}

export class TrainingRewards {
  private constructor(private readonly set: RewardSet, private readonly credit: RewardCredit, private readonly gamma: number) {}

  /** The run's components (null when the config has none: the trainer keeps the checker outcome). */
  static async start(rewards: TrainConfig['rewards'], ctx: RewardContext): Promise<TrainingRewards | null> {
    if (rewards.components === null) return null;
    const prepared = await prepareRewards({ components: rewards.components });
    return new TrainingRewards(await prepared.instantiate(ctx), rewards.credit, rewards.gamma);
  }

  get kinds(): RewardKind[] {
    return this.set.components.map((c) => c.kind);
  }

  /** Scores one iteration's groups of rollouts (1-based `iteration` is ADMIRE's epoch E). */
  async score(groups: readonly (readonly ScorableRollout[])[], iteration: number, opts: ScoreOptions = {}): Promise<ScoredRollouts> {
    const t0 = performance.now();
    const episodes = groups.map((g) => g.map((r) => rewardEpisodeFromResult(r.job.instance, r.result, r.trees)));
    for (const c of this.set.components) {
      if (!(c.component instanceof AdmireReward)) continue;
      c.component.epoch = iteration;
      await c.component.observe(episodes.flat(), opts.signal);
    }
    const sums: Partial<Record<RewardKind, number[]>> = {};
    let unscored = 0;
    const stepRewards: number[][][] = [];
    const byKind: Partial<Record<RewardKind, StepRewardValue[]>>[][] = [];
    for (const group of episodes) {
      const rows: number[][] = [];
      const kinds: Partial<Record<RewardKind, StepRewardValue[]>>[] = [];
      byKind.push(kinds);
      for (const ep of group) {
        const b = await this.set.compute(ep, opts.signal);
        kinds.push(b.byKind);
        const totals = b.steps.map((s) => s.total);
        if (totals.some((t) => t === null)) {
          unscored++;
          rows.push(totals.map(() => Number.NaN));
          continue;
        }
        rows.push(totals as number[]);
        for (const [kind, values] of Object.entries(b.byKind) as [RewardKind, { value: number | null }[]][]) {
          (sums[kind] ??= []).push(values.reduce((a, v) => a + (v.value ?? 0), 0));
        }
      }
      stepRewards.push(rows);
    }
    if (opts.shortestPath) applyShortestPath(stepRewards, episodes, opts.shortestPath);
    const returns = stepRewards.map((g) => g.map((r) => r.reduce((a, b) => a + b, 0)));
    const stepValues = stepRewards.map((g, gi) => g.map((r, i) => {
      const n = groups[gi]![i]!.records.length;
      // One value per policy step; a mismatch (a step without a policy record) cannot be credited safely.
      if (r.length !== n) return new Array<number>(n).fill(Number.NaN);
      return creditSteps(r, this.credit, this.gamma);
    }));
    const scoredReturns = returns.flat().filter(Number.isFinite);
    const metrics: Record<string, number> = {
      [REWARD_METRIC.total]: mean(scoredReturns),
      [REWARD_METRIC.unscored]: unscored,
      [REWARD_METRIC.seconds]: (performance.now() - t0) / 1000,
    };
    for (const kind of this.kinds) metrics[REWARD_METRIC.kind(kind)] = mean(sums[kind] ?? []);
    return { returns, stepValues, byKind, metrics };
  }
}

/** Writes each recorded rollout's component values under their kinds (unscored steps keep their reasons), in one transaction. */
export function storeRewardValues(
  db: WritableDB, groups: readonly (readonly Pick<Rollout, 'job'>[])[], byKind: ScoredRollouts['byKind'], recorders: ReadonlyMap<RolloutJob, EpisodeRecorder & { readonly episodeId: EpisodeId | null }>,
): void {
  inTransaction(db, () => {
    groups.forEach((g, gi) => g.forEach((r, i) => {
      const id = recorders.get(r.job)?.episodeId;
      if (id === undefined || id === null) return;
      for (const [kind, values] of Object.entries(byKind[gi]![i]!)) putRewardValues(db, id, kind, values);
    }));
  });
}

const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/**
 * MobileRL's SPA on composed rewards: the adjustment r̃ − r = −α(T − T_min)/(2T) of a success
 * (core/rewards/shortest-path.ts shortestPathRewards, T_min = shortest success in the group, judged episodes only) is
 * added to its last step's reward, as the shortest-path component does.
 */
function applyShortestPath(stepRewards: number[][][], episodes: readonly (readonly RewardEpisode[])[], o: ShortestPathOptions): void {
  stepRewards.forEach((group, gi) => {
    const eps = episodes[gi]!;
    const judged = eps.map((e, i) => i).filter((i) => eps[i]!.success !== null);
    const outcome = judged.map((i) => (eps[i]!.success ? 1 : 0));
    const adjusted = shortestPathRewards(outcome, judged.map((i) => eps[i]!.steps.length), { ...o, successReward: 1 });
    judged.forEach((i, k) => {
      const row = group[i]!;
      const delta = adjusted[k]! - outcome[k]!;
      if (delta !== 0 && row.length) row[row.length - 1]! += delta;
    });
  });
}
