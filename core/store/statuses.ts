/**
 * An episode's status in the store: the runner's verdicts (success / failure / error) plus the two
 * states only a store has: 'running' while it is being recorded, 'interrupted' when its run stopped
 * (crash, kill) before it ended.
 */
export const STORED_EPISODE_STATUSES = ['running', 'success', 'failure', 'error', 'interrupted'] as const;
export type StoredEpisodeStatus = (typeof STORED_EPISODE_STATUSES)[number];

export type StatusCounts = Record<StoredEpisodeStatus, number>;

export function emptyStatusCounts(): StatusCounts {
  return { running: 0, success: 0, failure: 0, error: 0, interrupted: 0 };
}
