import { expect } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import type { EpisodeSummary } from '../../core/api/types.js';
import type { RunId } from '../../core/store/ids.js';

/**
 * A run's episodes as the Trajectories view lists them (listEpisodes by run), each checked whole: ended with an
 * outcome (not 'running' or 'interrupted'), its end time recorded, and as many stored steps as its row counts.
 */
export async function wholeEpisodesOf(api: Pick<WorkbenchApi, 'listEpisodes' | 'getTrajectory'>, runId: number): Promise<EpisodeSummary[]> {
  const page = await api.listEpisodes({ runId: runId as RunId, limit: 1000, order: 'oldest' });
  for (const row of page.rows) {
    expect(['success', 'failure', 'error'], `episode ${row.id} of run ${runId}`).toContain(row.status);
    expect(row.durationMs, `episode ${row.id} of run ${runId} has its end`).not.toBeNull();
    expect((await api.getTrajectory({ episodeId: row.id })).steps.length, `episode ${row.id}'s stored steps`).toBe(row.steps);
  }
  expect(page.total).toBe(page.rows.length);
  return page.rows;
}
