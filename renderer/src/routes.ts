import type { EpisodeSortKey, StoredEpisodeStatus } from '../../core/api/types.js';
import type { AppState, AppStore } from './store/index.js';
import { EMPTY_QUERY, type EpisodeQuery } from './store/slices/trajectories.js';
import { VIEWS, type ViewName } from './store/slices/ui.js';

/**
 * Deep links: the place in the workbench as a URL hash, so a reload (or a link shared with a
 * colleague) lands where one was instead of on Devices. A hash works alike in the browser served by
 * `awb serve` and in Electron's file:// page.
 *
 *   #/<view>                                         any view
 *   #/trajectories?run=3&iteration=2&status=failure  the episode list with its filters (run, iteration, status, app,
 *                                                    task, policy) and sort (`sort=reward.desc`)
 *   #/trajectories/episode/<id>[/step/<k> | /end]    an episode open in the replay viewer, at step k as the viewer
 *                                                    numbers it (from 1), or at its final screen
 *   #/training/run/<id>                              a training run's charts
 */
export type Route =
  | { kind: 'view'; view: ViewName }
  | { kind: 'episodes'; query: ListQuery }
  /** `step`: the timeline position (0-based: step k of the viewer is position k − 1), or the final screen. */
  | { kind: 'episode'; episodeId: number; step: number | 'end' }
  | { kind: 'run'; runId: number };

/** The part of the episode list's query a link carries. */
export type ListQuery = Pick<EpisodeQuery, 'status' | 'app' | 'templateId' | 'runId' | 'iteration' | 'policy' | 'sort'>;

const LIST_KEYS = ['status', 'app', 'templateId', 'runId', 'iteration', 'policy', 'sort'] as const satisfies ReadonlyArray<keyof ListQuery>;
const STATUSES: readonly StoredEpisodeStatus[] = ['success', 'failure', 'error', 'interrupted', 'running'];
// Every sort key once (a Record, so a key added to core's list is a compile error here until it is added).
const SORT_KEYS = Object.keys({
  id: 1, template: 1, app: 1, seed: 1, policy: 1, status: 1, steps: 1, started: 1, duration: 1, iteration: 1, group: 1, reward: 1, advantage: 1,
} satisfies Record<EpisodeSortKey, 1>);

const isView = (v: string): v is ViewName => (VIEWS as readonly string[]).includes(v);
const id = (s: string | undefined | null) => (s !== undefined && s !== null && /^\d+$/.test(s) && Number(s) > 0 ? Number(s) : null);

export function listQueryOf(q: EpisodeQuery): ListQuery {
  return { status: q.status, app: q.app, templateId: q.templateId, runId: q.runId, iteration: q.iteration, policy: q.policy, sort: q.sort };
}

export function sameListQuery(a: ListQuery, b: ListQuery): boolean {
  return LIST_KEYS.every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

function listParams(q: ListQuery): string {
  const p = new URLSearchParams();
  if (q.runId !== null) p.set('run', String(q.runId));
  if (q.runId !== null && q.iteration !== null) p.set('iteration', String(q.iteration));
  if (q.status.length) p.set('status', q.status.join(','));
  if (q.app) p.set('app', q.app);
  if (q.templateId) p.set('task', q.templateId);
  if (q.policy) p.set('policy', q.policy);
  if (q.sort) p.set('sort', `${q.sort.by}.${q.sort.dir}`);
  const s = p.toString();
  return s ? `?${s}` : '';
}

/** The list query of a link's parameters; a value that is not one (an unknown status) is left out. */
function parseList(search: string): ListQuery {
  const p = new URLSearchParams(search);
  const runId = id(p.get('run'));
  const [by, dir] = (p.get('sort') ?? '').split('.');
  return {
    runId,
    iteration: runId === null ? null : id(p.get('iteration')),
    status: (p.get('status') ?? '').split(',').filter((s): s is StoredEpisodeStatus => (STATUSES as readonly string[]).includes(s)),
    app: p.get('app') || null,
    templateId: p.get('task') || null,
    policy: p.get('policy') || null,
    sort: (SORT_KEYS as readonly string[]).includes(by ?? '') && (dir === 'asc' || dir === 'desc') ? { by: by as EpisodeSortKey, dir } : null,
  };
}

export function formatRoute(r: Route): string {
  switch (r.kind) {
    case 'view':
      return `#/${r.view}`;
    case 'episodes':
      return `#/trajectories${listParams(r.query)}`;
    case 'episode':
      return `#/trajectories/episode/${r.episodeId}${r.step === 'end' ? '/end' : r.step > 0 ? `/step/${r.step + 1}` : ''}`;
    case 'run':
      return `#/training/run/${r.runId}`;
  }
}

/** The route of a hash; null for anything else (an old or mistyped link leaves the place as it is). */
export function parseRoute(hash: string): Route | null {
  const [path = '', search = ''] = hash.replace(/^#\/?/, '').split('?', 2);
  const parts = path.split('/').filter(Boolean);
  const [view, what, n, stepWord, k] = parts;
  if (view === undefined || !isView(view)) return null;
  if (parts.length === 1) return view === 'trajectories' && search ? { kind: 'episodes', query: parseList(search) } : { kind: 'view', view };
  if (view === 'trajectories' && what === 'episode' && id(n) !== null) {
    if (parts.length === 3) return { kind: 'episode', episodeId: id(n)!, step: 0 };
    if (parts.length === 4 && stepWord === 'end') return { kind: 'episode', episodeId: id(n)!, step: 'end' };
    if (parts.length === 5 && stepWord === 'step' && id(k) !== null) return { kind: 'episode', episodeId: id(n)!, step: id(k)! - 1 };
  }
  if (view === 'training' && what === 'run' && parts.length === 3 && id(n) !== null) return { kind: 'run', runId: id(n)! };
  return null;
}

/** Where the app is now. */
export function routeOf(s: AppState): Route {
  if (s.view === 'trajectories' && s.replay) {
    const n = s.replay.trajectory?.steps.length ?? null;
    return { kind: 'episode', episodeId: s.replay.episodeId, step: n !== null && n > 0 && s.replayStep >= n ? 'end' : s.replayStep };
  }
  if (s.view === 'trajectories') return { kind: 'episodes', query: listQueryOf(s.episodeQuery) };
  if (s.view === 'training' && s.chartRunId !== null) return { kind: 'run', runId: s.chartRunId };
  return { kind: 'view', view: s.view };
}

/** Goes to a route: the view, and the list's filters, the episode (at its step) or the run it names. */
export async function applyRoute(store: AppStore, r: Route): Promise<void> {
  const s = store.getState();
  switch (r.kind) {
    case 'view':
      s.setView(r.view);
      return;
    case 'episodes':
      if (s.replay) s.closeEpisode();
      s.setView('trajectories');
      // A link names the whole list: the filters it does not carry (dates, search) are cleared.
      if (!sameListQuery(listQueryOf(s.episodeQuery), r.query)) await s.setEpisodeQuery({ ...EMPTY_QUERY, ...r.query });
      return;
    case 'episode': {
      if (s.replay?.episodeId !== r.episodeId) await s.openEpisode(r.episodeId);
      store.getState().setView('trajectories');
      const n = store.getState().replay?.trajectory?.steps.length ?? 0;
      await store.getState().setReplayStep(r.step === 'end' ? n : r.step);
      return;
    }
    case 'run':
      s.setView('training');
      await s.showRun(r.runId);
      return;
  }
}

/**
 * Keeps the URL and the app in step: the hash is applied once at start and on every hashchange
 * (Back, an edited URL); each change of place writes the hash — a new history entry for a new
 * view, episode or run, a replaced one for moving through an episode's steps or changing the list's
 * filters (Back skips them).
 */
export function installRouting(store: AppStore, win: Pick<Window, 'location' | 'history' | 'addEventListener' | 'removeEventListener'> = window): () => void {
  let applying = false;
  const apply = async () => {
    const r = parseRoute(win.location.hash);
    if (!r) return;
    applying = true;
    try {
      await applyRoute(store, r);
    } finally {
      applying = false;
      write();
    }
  };
  const write = () => {
    if (applying) return;
    const now = routeOf(store.getState());
    const hash = formatRoute(now);
    if (hash === win.location.hash) return;
    const before = parseRoute(win.location.hash);
    const sameEpisode = before?.kind === 'episode' && now.kind === 'episode' && before.episodeId === now.episodeId;
    const sameList = (before?.kind === 'episodes' || (before?.kind === 'view' && before.view === 'trajectories')) && now.kind === 'episodes';
    if (sameEpisode || sameList) win.history.replaceState(null, '', hash);
    else win.history.pushState(null, '', hash);
  };
  const onHash = () => void apply();
  win.addEventListener('hashchange', onHash);
  const unsubscribe = store.subscribe(write);
  if (parseRoute(win.location.hash)) void apply();
  else write();
  return () => {
    unsubscribe();
    win.removeEventListener('hashchange', onHash);
  };
}
