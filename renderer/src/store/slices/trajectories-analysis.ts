import type { StateCreator } from 'zustand';
import type { RunFailuresView, WorkbenchApi } from '../../../../core/api/api.js';
import type { EpisodeExplanation, FailureCell, ScreenRefView, Trajectory } from '../../../../core/api/types.js';
import type { AppState } from '../index.js';
import { positionOf } from './trajectories-replay.js';

/**
 * Failure analysis in the Trajectories view (docs/failure-analysis.md): the open failed episode's
 * explanation (its class, the first divergence from the successful paths, the tree diff there) and
 * the selected run's failure taxonomy, optionally against a second run.
 */

export interface ExplainState {
  episodeId: number;
  /** Null while loading (or when it failed: see error). */
  explanation: EpisodeExplanation | null;
  error: string | null;
}

export interface FailuresState {
  runId: number;
  vsRunId: number | null;
  /** The newest failed episodes classified at most (the bound the panel shows). */
  limit: number;
  view: RunFailuresView | null;
  error: string | null;
}

export interface AnalysisSlice {
  explain: ExplainState | null;
  /** Stored reference episodes the Explain panel shows a screen of, by id. */
  referenceTrajectories: Record<number, Trajectory>;
  failures: FailuresState | null;

  /** Explains a failed episode, then fetches the reference's trajectory and both divergence screenshots. */
  explainEpisode(episodeId: number): Promise<void>;
  /** A run's failure taxonomy on its newest `limit` failed episodes (asked for by the user: it runs in a worker); with vsRunId, the flips. */
  loadRunFailures(runId: number, vsRunId: number | null, limit: number): Promise<void>;
  /** Filters the episode list to one taxonomy cell's episodes. */
  showFailureCell(cell: FailureCell): Promise<void>;
}

/** The stored screenshot at one side's screen of a divergence, once that side's trajectory is known. */
export function screenshotAt(t: Trajectory | undefined, ref: ScreenRefView | null): string | null {
  if (!t || !ref) return null;
  return positionOf(t, ref.final || ref.step === null ? t.steps.length : ref.step).screenshot;
}

/** The stored tree at one side's screen (a wireframe where no screenshot was kept). */
export function treeAt(t: Trajectory | undefined, ref: ScreenRefView | null): string | null {
  if (!t || !ref) return null;
  return positionOf(t, ref.final || ref.step === null ? t.steps.length : ref.step).tree;
}

/** A cell in words, for the list's filter chip. */
export const cellLabel = (c: FailureCell) => `${c.class.replace(/_/g, ' ')} · ${c.templateId}${c.difficulty ? ` (${c.difficulty})` : ''}`;

const describe = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

export const createAnalysisSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], AnalysisSlice> => (set, get) => ({
  explain: null,
  referenceTrajectories: {},
  failures: null,

  explainEpisode: async (episodeId) => {
    set({ explain: { episodeId, explanation: null, error: null } });
    let explanation: EpisodeExplanation | undefined;
    let error: string | null = null;
    try {
      explanation = await api.explainEpisode({ episodeId });
    } catch (e) {
      error = describe(e);
    }
    // Another episode was opened meanwhile: its explanation is the one to keep.
    if (get().explain?.episodeId !== episodeId) return;
    set({ explain: { episodeId, explanation: explanation ?? null, error } });
    const dv = explanation?.alignment?.divergence;
    if (!dv) return;
    const refId = dv.referenceScreen?.episodeId ?? null;
    if (refId !== null && !(refId in get().referenceTrajectories)) {
      const t = await get().attempt(`Open the reference episode ${refId}`, () => api.getTrajectory({ episodeId: refId }));
      if (t) set((s) => ({ referenceTrajectories: { ...s.referenceTrajectories, [refId]: t } }));
    }
    const mine = get().replay?.episodeId === episodeId ? get().replay?.trajectory ?? undefined : undefined;
    const ref = refId === null ? undefined : get().referenceTrajectories[refId];
    const hashes = [screenshotAt(mine, dv.failedScreen), screenshotAt(ref, dv.referenceScreen)];
    // Without a screenshot, the side is drawn from its tree.
    const trees = [hashes[0] ? null : treeAt(mine, dv.failedScreen), hashes[1] ? null : treeAt(ref, dv.referenceScreen)];
    await Promise.all([
      ...hashes.filter((h): h is string => h !== null).map((h) => get().loadScreenshot(h)),
      ...trees.filter((h): h is string => h !== null).map((h) => get().loadTree(h)),
    ]);
  },

  loadRunFailures: async (runId, vsRunId, limit) => {
    set({ failures: { runId, vsRunId, limit, view: null, error: null } });
    let view: RunFailuresView | undefined;
    let error: string | null = null;
    try {
      view = await api.runFailures(vsRunId === null ? { runId, limit } : { runId, vsRunId, limit });
    } catch (e) {
      error = describe(e);
    }
    const cur = get().failures;
    if (cur?.runId !== runId || cur.vsRunId !== vsRunId || cur.limit !== limit) return;
    set({ failures: { runId, vsRunId, limit, view: view ?? null, error } });
  },

  showFailureCell: (cell) => get().setEpisodeQuery({ status: [], cell: { label: cellLabel(cell), episodeIds: [...cell.episodeIds] } }),
});
