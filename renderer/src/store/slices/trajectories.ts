import type { StateCreator } from 'zustand';
import type { WorkbenchApi } from '../../../../core/api/api.js';
import type {
  EpisodeFacets, EpisodeFilter, EpisodeSortKey, EpisodeSummary, ExportResult, StatusCounts, StoredEpisodeStatus,
} from '../../../../core/api/types.js';
import type { AppState } from '../index.js';
import { pagesFor } from '../../views/trajectories/virtual.js';
import { createAnalysisSlice, type AnalysisSlice } from './trajectories-analysis.js';
import { createReplaySlice, type ReplaySlice } from './trajectories-replay.js';

/**
 * The Trajectories view's state: the episode table, paged lazily (only the pages the visible rows
 * fall in are fetched, and each is kept once fetched), the replay viewer (trajectories-replay.ts) and
 * failure analysis (trajectories-analysis.ts).
 */

/** Rows per listEpisodes call: one page covers a screenful several times over, so first paint is one call. */
export const EPISODE_PAGE_SIZE = 100;

/** The table's filter as the UI edits it (nulls for "any"); filterOf turns it into the API's EpisodeFilter. */
export interface EpisodeQuery {
  status: StoredEpisodeStatus[];
  templateId: string | null;
  app: string | null;
  runId: number | null;
  /** A training run's iteration (its recorded rollouts); only with runId. */
  iteration: number | null;
  policy: string | null;
  /** Started at or after (epoch ms). */
  since: number | null;
  /** Started before (epoch ms). */
  until: number | null;
  /** A substring of the instruction. */
  search: string;
  /** A failure-taxonomy cell's episodes (the Failures panel sets it): their ids, and the cell in words for the chip. */
  cell: { label: string; episodeIds: number[] } | null;
  /** The column the table is sorted by (a click on its header); null: newest first. */
  sort: { by: EpisodeSortKey; dir: 'asc' | 'desc' } | null;
}

export const EMPTY_QUERY: EpisodeQuery = {
  status: [], templateId: null, app: null, runId: null, iteration: null, policy: null, since: null, until: null, search: '', cell: null, sort: null,
};

/** The API filter for a query, with no paging and no empty keys (the input schema is strict). */
export function filterOf(q: EpisodeQuery): EpisodeFilter {
  const f: EpisodeFilter = {};
  if (q.status.length) f.status = [...q.status];
  if (q.templateId) f.templateId = q.templateId;
  if (q.app) f.app = q.app;
  if (q.runId !== null) f.runId = q.runId as EpisodeFilter['runId'];
  if (q.runId !== null && q.iteration !== null) f.iteration = q.iteration;
  if (q.policy) f.policy = q.policy;
  if (q.since !== null) f.since = q.since;
  if (q.until !== null) f.until = q.until;
  if (q.search.trim()) f.search = q.search.trim();
  if (q.cell) f.episodeIds = [...q.cell.episodeIds];
  if (q.sort) f.sort = { ...q.sort };
  return f;
}

/** Why a query cannot be asked (shown next to the filters), or null. */
export function queryProblem(q: EpisodeQuery): string | null {
  if (q.since !== null && !Number.isFinite(q.since)) return 'The "from" date is not a valid date';
  if (q.until !== null && !Number.isFinite(q.until)) return 'The "to" date is not a valid date';
  if (q.since !== null && q.until !== null && q.since >= q.until) return 'The "from" date must be before the "to" date';
  return null;
}

export class EpisodeQueryError extends Error {
  override name = 'EpisodeQueryError';
}

export class EmptySelectionError extends Error {
  override name = 'EmptySelectionError';
  constructor() {
    super('No episodes are selected: tick some rows, or export the filtered episodes');
  }
}

export interface EpisodeTableSlice {
  episodeQuery: EpisodeQuery;
  /** Why the current query was not sent (a bad date range), or null. */
  episodeQueryProblem: string | null;
  /** Bumped on every filter change or refresh: pages of an older generation are dropped. */
  episodeGen: number;
  /** Matching episodes; null until the current query's first page arrives. */
  episodeTotal: number | null;
  /** Per-status counts for the query without its status part (for the status facet). */
  episodeCounts: StatusCounts | null;
  /** Fetched pages by page number (EPISODE_PAGE_SIZE rows each). */
  episodePages: Record<number, EpisodeSummary[]>;
  facets: EpisodeFacets | null;
  episodeSelection: number[];
  exporting: boolean;
  lastExport: ExportResult | null;

  /** Changes the filter: drops the cached pages and loads the first page of the new query. */
  setEpisodeQuery(patch: Partial<EpisodeQuery>): Promise<void>;
  /** Reloads the current query (new episodes may have been recorded). */
  refreshEpisodes(): Promise<void>;
  /** Fetches whichever pages holding rows first..last are not cached yet. */
  ensureEpisodeRows(first: number, last: number): Promise<void>;
  loadFacets(): Promise<void>;
  toggleEpisodeSelected(id: number): void;
  clearEpisodeSelection(): void;
  /** Exports the ticked episodes, or every episode matching the filter. */
  exportEpisodes(which: 'selection' | 'filter'): Promise<ExportResult | undefined>;
}

export type TrajectoriesSlice = EpisodeTableSlice & ReplaySlice & AnalysisSlice;

/** The row at an index, if its page has been fetched. */
export function episodeAt(pages: Record<number, EpisodeSummary[]>, index: number): EpisodeSummary | undefined {
  return pages[Math.floor(index / EPISODE_PAGE_SIZE)]?.[index % EPISODE_PAGE_SIZE];
}

const createEpisodeTableSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], EpisodeTableSlice> => (set, get) => {
  // In flight and failed page loads, keyed by generation and page: a page is asked once per query
  // (a failed one stays failed until a refresh, instead of re-failing on every scroll).
  const inflight = new Map<string, Promise<void>>();
  const failed = new Set<string>();

  const loadPage = (gen: number, page: number): Promise<void> => {
    const key = `${gen}:${page}`;
    const running = inflight.get(key);
    if (running) return running;
    if (failed.has(key)) return Promise.resolve();
    const filter = { ...filterOf(get().episodeQuery), limit: EPISODE_PAGE_SIZE, offset: page * EPISODE_PAGE_SIZE };
    const p = get().attempt('Load episodes', () => api.listEpisodes(filter)).then((result) => {
      if (get().episodeGen !== gen) return;
      if (!result) {
        failed.add(key);
        return;
      }
      set((s) => ({ episodePages: { ...s.episodePages, [page]: result.rows }, episodeTotal: result.total, episodeCounts: result.counts }));
    }).finally(() => inflight.delete(key));
    inflight.set(key, p);
    return p;
  };

  const restart = (query: EpisodeQuery): Promise<void> => {
    const problem = queryProblem(query);
    const gen = get().episodeGen + 1;
    // Counts stay until the new ones arrive, so the status buttons do not flicker to zero.
    set({ episodeQuery: query, episodeQueryProblem: problem, episodeGen: gen, episodePages: {}, episodeTotal: problem ? 0 : null });
    return problem ? Promise.resolve() : loadPage(gen, 0);
  };

  return {
    episodeQuery: EMPTY_QUERY,
    episodeQueryProblem: null,
    episodeGen: 0,
    episodeTotal: null,
    episodeCounts: null,
    episodePages: {},
    facets: null,
    episodeSelection: [],
    exporting: false,
    lastExport: null,

    // Another run's iterations and failure cells are not this one's: changing the run clears them.
    setEpisodeQuery: (patch) => restart({
      ...get().episodeQuery,
      ...(patch.runId !== undefined && !('iteration' in patch) ? { iteration: null } : {}),
      ...(patch.runId !== undefined && !('cell' in patch) ? { cell: null } : {}),
      ...patch,
    }),
    refreshEpisodes: async () => {
      await Promise.all([restart(get().episodeQuery), get().loadFacets()]);
    },
    ensureEpisodeRows: async (first, last) => {
      const s = get();
      if (s.episodeQueryProblem) return;
      // Until the first page tells the total, only page 0 is worth asking for.
      const known = s.episodeTotal;
      const pages = pagesFor(Math.max(0, first), last, EPISODE_PAGE_SIZE)
        .filter((p) => (known === null ? p === 0 : p * EPISODE_PAGE_SIZE < known) && !(p in s.episodePages));
      await Promise.all(pages.map((p) => loadPage(s.episodeGen, p)));
    },
    loadFacets: async () => {
      const facets = await get().attempt('Load filter options', () => api.episodeFacets({}));
      if (facets) set({ facets });
    },
    toggleEpisodeSelected: (id) => set((s) => ({
      episodeSelection: s.episodeSelection.includes(id) ? s.episodeSelection.filter((x) => x !== id) : [...s.episodeSelection, id],
    })),
    clearEpisodeSelection: () => set({ episodeSelection: [] }),
    exportEpisodes: async (which) => {
      const s = get();
      const input = which === 'selection' ? { episodeIds: [...s.episodeSelection] } : { filter: filterOf(s.episodeQuery) };
      set({ exporting: true });
      const result = await s.attempt('Export episodes', async () => {
        if (which === 'selection' && s.episodeSelection.length === 0) throw new EmptySelectionError();
        if (which === 'filter' && s.episodeQueryProblem) throw new EpisodeQueryError(s.episodeQueryProblem);
        return api.exportEpisodes(input);
      });
      set((cur) => ({ exporting: false, lastExport: result ?? cur.lastExport }));
      return result;
    },
  };
};

export const createTrajectoriesSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], TrajectoriesSlice> => (...a) => ({
  ...createEpisodeTableSlice(api)(...a),
  ...createReplaySlice(api)(...a),
  ...createAnalysisSlice(api)(...a),
});
