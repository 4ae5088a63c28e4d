import type { AppState, AppStore } from './store/index.js';
import { VIEWS, type ViewName } from './store/slices/ui.js';

/**
 * Deep links: the place in the workbench as a URL hash, so a reload (or a link shared with a
 * colleague) lands where one was instead of on Devices. A hash works alike in the browser served by
 * `awb serve` and in Electron's file:// page.
 *
 *   #/<view>                                  any view
 *   #/trajectories/episode/<id>[/step/<k>]    an episode open in the replay viewer, at step k
 *   #/training/run/<id>                       a training run's charts
 */
export type Route =
  | { kind: 'view'; view: ViewName }
  | { kind: 'episode'; episodeId: number; step: number }
  | { kind: 'run'; runId: number };

const isView = (v: string): v is ViewName => (VIEWS as readonly string[]).includes(v);
const id = (s: string | undefined) => (s !== undefined && /^\d+$/.test(s) ? Number(s) : null);

export function formatRoute(r: Route): string {
  switch (r.kind) {
    case 'view':
      return `#/${r.view}`;
    case 'episode':
      return `#/trajectories/episode/${r.episodeId}${r.step > 0 ? `/step/${r.step}` : ''}`;
    case 'run':
      return `#/training/run/${r.runId}`;
  }
}

/** The route of a hash; null for anything else (an old or mistyped link leaves the place as it is). */
export function parseRoute(hash: string): Route | null {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const [view, what, n, stepWord, k] = parts;
  if (view === undefined || !isView(view)) return null;
  if (parts.length === 1) return { kind: 'view', view };
  if (view === 'trajectories' && what === 'episode' && id(n) !== null && (parts.length === 3 || (parts.length === 5 && stepWord === 'step' && id(k) !== null))) {
    return { kind: 'episode', episodeId: id(n)!, step: parts.length === 5 ? id(k)! : 0 };
  }
  if (view === 'training' && what === 'run' && parts.length === 3 && id(n) !== null) return { kind: 'run', runId: id(n)! };
  return null;
}

/** Where the app is now. */
export function routeOf(s: AppState): Route {
  if (s.view === 'trajectories' && s.replay) return { kind: 'episode', episodeId: s.replay.episodeId, step: s.replayStep };
  if (s.view === 'training' && s.chartRunId !== null) return { kind: 'run', runId: s.chartRunId };
  return { kind: 'view', view: s.view };
}

/** Goes to a route: the view, and the episode (at its step) or the run it names. */
export async function applyRoute(store: AppStore, r: Route): Promise<void> {
  const s = store.getState();
  switch (r.kind) {
    case 'view':
      s.setView(r.view);
      return;
    case 'episode':
      if (s.replay?.episodeId !== r.episodeId) await s.openEpisode(r.episodeId);
      store.getState().setView('trajectories');
      await store.getState().setReplayStep(r.step);
      return;
    case 'run':
      s.setView('training');
      await s.showRun(r.runId);
      return;
  }
}

/**
 * Keeps the URL and the app in step: the hash is applied once at start and on every hashchange
 * (Back, an edited URL); each change of place writes the hash — a new history entry for a new
 * view, episode or run, a replaced one for moving through an episode's steps (Back skips them).
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
    const hash = formatRoute(routeOf(store.getState()));
    if (hash === win.location.hash) return;
    const before = parseRoute(win.location.hash);
    const now = routeOf(store.getState());
    const sameEpisode = before?.kind === 'episode' && now.kind === 'episode' && before.episodeId === now.episodeId;
    if (sameEpisode) win.history.replaceState(null, '', hash);
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
