import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { inTransaction, prepare, type WritableDB } from '../store/db.js';
import { getScreenshot, getTree } from '../store/content.js';
import type { EpisodeId } from '../store/ids.js';
import { putRewardValues } from '../store/reward-annotations.js';
import { loadTrajectory, type Trajectory } from '../store/trajectory.js';
import type { RewardEpisode } from './component.js';
import type { PreparedRewards, RewardBreakdown } from './compose.js';
import { rewardEpisodeFromTrajectory } from './episode.js';

/**
 * Scoring an episode that is in the store, with its group (the episodes of its run on the same task instance, as
 * GRPO's group: shortest-path compares within it), as the replay view's recomputation and the environment server's end
 * of episode both do.
 */

/** How many episodes of the same run and instance form the group (GRPO groups are a handful). */
export const MAX_GROUP = 64;

/** The episode's group: the episodes of its run on the same task instance (itself included), oldest first. */
export function groupOf(db: WritableDB, id: EpisodeId): EpisodeId[] {
  const ids = prepare<[number, number, number], number>(db, `
    SELECT e.id FROM episodes e JOIN episodes me ON me.id = ?
    WHERE e.run_id = me.run_id AND e.instance_id = me.instance_id
    ORDER BY e.id = ? DESC, e.id LIMIT ?`).pluck().all(id, id, MAX_GROUP) as EpisodeId[];
  return ids.sort((a, b) => a - b);
}

export interface StoredScore {
  breakdown: RewardBreakdown;
  group: EpisodeId[];
}

/**
 * The components of `prepared` computed on a stored episode (its group read from the store, the event loop given a
 * turn between episodes so a long scoring never holds other work up for more than one), and with `write` stored under
 * their kinds in one transaction.
 */
export async function scoreStoredEpisode(
  db: WritableDB, t: Trajectory, prepared: PreparedRewards, opts: { dataDir?: string; write: boolean; details: boolean },
): Promise<StoredScore> {
  const id = t.episode.id;
  const build = (traj: Trajectory) => rewardEpisodeFromTrajectory(traj, (h) => getTree(db, h), (h) => getScreenshot(db, h));
  const episode = build(t);
  const groupIds = groupOf(db, id);
  const group: RewardEpisode[] = [];
  // Only shortest-path reads the group: without it, the other episodes are not loaded (a whole group per episode end).
  const needsGroup = prepared.config.components.some((c) => c.kind === 'shortest-path');
  for (const other of needsGroup ? groupIds : [id]) {
    group.push(other === id ? episode : build(loadTrajectory(db, other)));
    await yieldToLoop();
  }
  const set = await prepared.instantiate({ group, db, ...(opts.dataDir !== undefined ? { dataDir: opts.dataDir } : {}) });
  await yieldToLoop();
  const breakdown = await set.compute(episode, undefined, { details: opts.details });
  if (opts.write) {
    inTransaction(db, () => {
      for (const [kind, values] of Object.entries(breakdown.byKind)) putRewardValues(db, id, kind, values);
    });
  }
  return { breakdown, group: groupIds };
}
