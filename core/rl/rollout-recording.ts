import {
  keepsIteration, pruneIterationRollouts, putRolloutScores, StoreRecorder, type EpisodeId, type RolloutRetention, type RolloutScore, type RunId,
  type WritableDB,
} from '../store/index.js';
import { mean } from './grpo-loop.js';

/**
 * How a GRPO loop records its rollouts in its store run (docs/rl.md, "Recorded rollouts"): one implementation for
 * every GRPO of the workbench, offline (train-grpo.ts), per-app adaptation (adapt-grpo.ts) and online
 * (core/remote-jobs/online.ts). Each rollout is an episode of the run tagged with its iteration, group and index
 * (training_rollouts); once the iteration's advantages are computed, each gets the return its group was normalised
 * over and its advantage; then the iteration is thinned by the run's retention setting (`recording`).
 */

/** Where a rollout sits in its iteration: its group (task instance) and index in the group. */
export interface RolloutPosition {
  group: number;
  rollout: number;
}

const key = (iteration: number, at: RolloutPosition) => `${iteration}/${at.group}/${at.rollout}`;

export class RolloutRecording {
  /** The recorders of the iterations not yet thinned, by iteration/group/rollout. */
  private readonly recorders = new Map<string, StoreRecorder>();

  /** `lastIteration`: the run's last (kept whole, as every k-th is). */
  constructor(readonly db: WritableDB, readonly runId: RunId, private readonly retention: RolloutRetention, private readonly lastIteration: number) {}

  /** The recorder of one rollout's episode, tagged with its place. */
  recorder(iteration: number, at: RolloutPosition): StoreRecorder {
    const r = new StoreRecorder(this.db, this.runId, { rollout: { iteration, group: at.group, rollout: at.rollout } });
    this.recorders.set(key(iteration, at), r);
    return r;
  }

  /** The episode a rollout was recorded as (null when it was not, or its recorder never began). */
  episodeId(iteration: number, at: RolloutPosition): EpisodeId | null {
    return this.recorders.get(key(iteration, at))?.episodeId ?? null;
  }

  /**
   * Writes what each recorded rollout of an iteration was learned from: `returns[g][i]` (NaN = unscorable: stored as
   * unknown) and its advantage, the trajectory advantage or the mean of its step advantages `advantages[g][i]`.
   * `groups[g][i]` is the rollout's place (groups may list rollouts in any order).
   */
  score(
    iteration: number, groups: readonly (readonly RolloutPosition[])[], returns: readonly (readonly number[])[],
    advantages: readonly (readonly (readonly number[])[])[],
  ): void {
    const scores: RolloutScore[] = [];
    groups.forEach((g, gi) => g.forEach((at, i) => {
      const episodeId = this.episodeId(iteration, at);
      if (episodeId === null) return;
      const steps = advantages[gi]?.[i] ?? [];
      scores.push({ episodeId, reward: returns[gi]?.[i] ?? Number.NaN, advantage: steps.length ? mean(steps) : Number.NaN });
    }));
    putRolloutScores(this.db, scores);
  }

  /** Drops what the retention setting does not keep of an iteration and forgets its recorders; returns the episodes dropped. */
  thin(iteration: number): number {
    for (const k of [...this.recorders.keys()]) if (k.startsWith(`${iteration}/`)) this.recorders.delete(k);
    if (keepsIteration(this.retention, iteration, this.lastIteration)) return 0;
    return pruneIterationRollouts(this.db, this.runId, iteration, this.retention.keepSuccesses);
  }

  /** score, then thin: a local GRPO loop's log step. */
  finish(
    iteration: number, groups: readonly (readonly RolloutPosition[])[], returns: readonly (readonly number[])[],
    advantages: readonly (readonly (readonly number[])[])[],
  ): void {
    this.score(iteration, groups, returns, advantages);
    this.thin(iteration);
  }
}
