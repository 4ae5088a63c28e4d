import type { StateCreator } from 'zustand';
import type { SessionStart, WorkbenchApi } from '../../../../core/api/api.js';
import type { EpisodeSummary, PolicyInfo, SessionInfo, SessionPolicy, StoredStep, Trajectory } from '../../../../core/api/types.js';
import { treeFromUi, type ParsedTree } from '../../views/trajectories/tree-model.js';
import type { AppState } from '../index.js';

/**
 * The replay viewer's state: the open episode, the step being looked at, stored screenshots and
 * trees (fetched by hash as the user scrubs, cached), a successful episode to compare with, and
 * "replay on device from step k".
 */

export interface ReplayState {
  episodeId: number;
  /** Null while loading (or when loading failed: see error). */
  trajectory: Trajectory | null;
  error: string | null;
}

export interface CompareState {
  episodeId: number;
  trajectory: Trajectory | null;
  error: string | null;
}

export interface ReplayOnDeviceOptions {
  /** Recorded steps to re-execute (0..steps). */
  steps: number;
  /** Who acts after them: a policy, or 'manual' for the user. */
  then: SessionPolicy;
  /** Default: the selected device, else the first online one. */
  serial?: string;
}

export interface ReplaySlice {
  replay: ReplayState | null;
  /** The timeline position: 0..steps.length, where steps.length is the screen after the last step. */
  replayStep: number;
  /** Stored screenshots (PNG) and trees (as core parsed them) by SHA-256, as fetched. */
  screenshots: Record<string, Uint8Array>;
  trees: Record<string, ParsedTree>;
  /** Why a screenshot or tree could not be fetched, by hash. */
  contentErrors: Record<string, string>;
  /** Successful episodes of the open episode's template; null until asked. */
  compareCandidates: EpisodeSummary[] | null;
  compare: CompareState | null;
  sessionPolicies: PolicyInfo[] | null;
  replayStarting: boolean;
  /** The session last started by "replay on device" (also made the Agent view's current session). */
  pendingSessionId: string | null;

  /** Opens an episode in the replay viewer (switching to the Trajectories view); other views call it. */
  openEpisode(id: number): Promise<void>;
  /** Fetches an episode again (its stored rewards changed); the open one is replaced in place, on the same step. */
  refreshTrajectory(id: number): Promise<void>;
  closeEpisode(): void;
  /** Moves the timeline; resolves once this position's screenshots and tree are fetched. */
  setReplayStep(step: number): Promise<void>;
  loadScreenshot(hash: string): Promise<void>;
  loadTree(hash: string): Promise<void>;
  loadCompareCandidates(): Promise<void>;
  selectCompare(id: number | null): Promise<void>;
  loadSessionPolicies(): Promise<void>;
  /** Starts a step-through session re-executing the first k steps, then switches to the Agent view. */
  replayOnDevice(opts: ReplayOnDeviceOptions): Promise<SessionInfo | undefined>;
}

export class ReplayStepsError extends Error {
  override name = 'ReplayStepsError';
  constructor(readonly steps: unknown, readonly max: number) {
    super(`Replay from step must be a whole number from 0 to ${max}, got ${JSON.stringify(steps)}`);
  }
}

export class NoOnlineDeviceError extends Error {
  override name = 'NoOnlineDeviceError';
  constructor() {
    super('No device is online: start a SimDroid (or connect one) in the Devices view');
  }
}

export class NothingOpenError extends Error {
  override name = 'NothingOpenError';
  constructor() {
    super('No episode is loaded in the replay viewer');
  }
}

/** What the timeline shows at a position: a step's observation, or (past the last step) the final screen. */
export function positionOf(t: Trajectory, i: number): { step: StoredStep | null; screenshot: string | null; tree: string | null } {
  const step = t.steps[i];
  if (step) return { step, screenshot: step.screenshot, tree: step.tree };
  return { step: null, screenshot: t.final.screenshot, tree: t.final.tree };
}

/** How many screenshots stay cached (half-size PNGs are ~50 KB; this bounds memory to tens of MB). */
const SCREENSHOT_CACHE = 400;
const TRAJECTORY_CACHE = 20;

const describe = (e: unknown) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

export const createReplaySlice = (api: WorkbenchApi): StateCreator<AppState, [], [], ReplaySlice> => (set, get) => {
  const inflight = new Map<string, Promise<void>>();
  const trajectories = new Map<number, Trajectory>();
  // Opening another episode while one loads must not show the first one's result.
  let openSeq = 0;

  const trajectory = async (id: number): Promise<Trajectory> => {
    const cached = trajectories.get(id);
    if (cached) return cached;
    const t = await api.getTrajectory({ episodeId: id });
    trajectories.set(id, t);
    if (trajectories.size > TRAJECTORY_CACHE) trajectories.delete(trajectories.keys().next().value!);
    return t;
  };

  const once = (key: string, work: () => Promise<void>): Promise<void> => {
    const running = inflight.get(key);
    if (running) return running;
    const p = work().finally(() => inflight.delete(key));
    inflight.set(key, p);
    return p;
  };

  const firstOnlineSerial = async (): Promise<string> => {
    const { devices } = await api.listDevices({});
    const d = devices.find((x) => x.online && !x.sessionId) ?? devices.find((x) => x.online);
    if (!d) throw new NoOnlineDeviceError();
    return d.serial;
  };

  return {
    replay: null,
    replayStep: 0,
    screenshots: {},
    trees: {},
    contentErrors: {},
    compareCandidates: null,
    compare: null,
    sessionPolicies: null,
    replayStarting: false,
    pendingSessionId: null,

    openEpisode: async (id) => {
      const seq = ++openSeq;
      set({ view: 'trajectories', replay: { episodeId: id, trajectory: null, error: null }, replayStep: 0, compare: null, compareCandidates: null });
      let t: Trajectory | undefined;
      let error: string | null = null;
      try {
        t = await trajectory(id);
      } catch (e) {
        error = describe(e);
        await get().attempt(`Open episode ${id}`, () => Promise.reject(e));
      }
      if (seq !== openSeq) return;
      set({ replay: { episodeId: id, trajectory: t ?? null, error } });
      if (!t) return;
      void get().loadCompareCandidates();
      await get().setReplayStep(0);
    },
    refreshTrajectory: async (id) => {
      trajectories.delete(id);
      const t = await get().attempt(`Reload episode ${id}`, () => trajectory(id));
      if (t && get().replay?.episodeId === id) set({ replay: { episodeId: id, trajectory: t, error: null } });
      if (t && get().compare?.episodeId === id) set({ compare: { episodeId: id, trajectory: t, error: null } });
    },
    closeEpisode: () => {
      openSeq++;
      set({ replay: null, compare: null, compareCandidates: null, replayStep: 0 });
    },
    setReplayStep: async (step) => {
      const t = get().replay?.trajectory;
      if (!t) return;
      const i = Math.max(0, Math.min(t.steps.length, Math.round(Number.isFinite(step) ? step : 0)));
      set({ replayStep: i });
      const here = positionOf(t, i);
      const next = i < t.steps.length ? positionOf(t, i + 1) : null;
      const needed: Array<Promise<void>> = [];
      if (here.screenshot) needed.push(get().loadScreenshot(here.screenshot));
      if (here.tree) needed.push(get().loadTree(here.tree));
      if (next?.screenshot) needed.push(get().loadScreenshot(next.screenshot));
      // Without a screenshot the After pane draws the next screen's tree (a wireframe).
      if (next?.tree && !next.screenshot) needed.push(get().loadTree(next.tree));
      const other = get().compare?.trajectory;
      if (other) {
        const there = positionOf(other, Math.min(i, other.steps.length));
        if (there.screenshot) needed.push(get().loadScreenshot(there.screenshot));
      }
      // The neighbours too, so scrubbing with the arrow keys finds them cached.
      for (const j of [i - 1, i + 2]) {
        const h = j >= 0 && j <= t.steps.length ? positionOf(t, j).screenshot : null;
        if (h) void get().loadScreenshot(h);
      }
      await Promise.all(needed);
    },
    loadScreenshot: (hash) => {
      if (hash in get().screenshots) return Promise.resolve();
      return once(`png:${hash}`, async () => {
        try {
          const png = await api.getScreenshot({ hash });
          set((s) => {
            const screenshots = { ...s.screenshots, [hash]: png };
            const keys = Object.keys(screenshots);
            for (const k of keys.slice(0, Math.max(0, keys.length - SCREENSHOT_CACHE))) delete screenshots[k];
            return { screenshots };
          });
        } catch (e) {
          set((s) => ({ contentErrors: { ...s.contentErrors, [hash]: describe(e) } }));
        }
      });
    },
    loadTree: (hash) => {
      if (hash in get().trees) return Promise.resolve();
      return once(`xml:${hash}`, async () => {
        try {
          const stored = await api.getTree({ hash });
          set((s) => ({ trees: { ...s.trees, [hash]: treeFromUi(stored.tree) } }));
        } catch (e) {
          set((s) => ({ contentErrors: { ...s.contentErrors, [hash]: describe(e) } }));
        }
      });
    },
    loadCompareCandidates: async () => {
      const t = get().replay?.trajectory;
      if (!t) return;
      const list = await get().attempt('Find successful episodes', () =>
        api.successfulEpisodes({ templateId: t.instance.templateId, excludeEpisode: t.episode.id }));
      if (list && get().replay?.episodeId === t.episode.id) set({ compareCandidates: list });
    },
    selectCompare: async (id) => {
      if (id === null) {
        set({ compare: null });
        return;
      }
      set({ compare: { episodeId: id, trajectory: null, error: null } });
      let other: Trajectory | undefined;
      let error: string | null = null;
      try {
        other = await trajectory(id);
      } catch (e) {
        error = describe(e);
        await get().attempt(`Open episode ${id} to compare`, () => Promise.reject(e));
      }
      if (get().compare?.episodeId !== id) return;
      set({ compare: { episodeId: id, trajectory: other ?? null, error } });
      await get().setReplayStep(get().replayStep);
    },
    loadSessionPolicies: async () => {
      if (get().sessionPolicies) return;
      const list = await get().attempt('List policies', () => api.listPolicies({}));
      if (list) set({ sessionPolicies: list });
    },
    replayOnDevice: async ({ steps, then, serial }) => {
      const t = get().replay?.trajectory ?? null;
      set({ replayStarting: true });
      const started = await get().attempt('Replay on device', async () => {
        if (!t) throw new NothingOpenError();
        if (typeof steps !== 'number' || !Number.isInteger(steps) || steps < 0 || steps > t.steps.length) {
          throw new ReplayStepsError(steps, t.steps.length);
        }
        const input: SessionStart = {
          serial: serial ?? get().selectedSerial ?? (await firstOnlineSerial()),
          templateId: t.instance.templateId, seed: t.instance.seed, policy: then,
          from: { episodeId: t.episode.id, steps },
        };
        // Re-execute the recorded steps at once; the session holds at step k by itself (a handover,
        // not a breakpoint: one would be carried into later, unrelated sessions).
        if (steps > 0) input.run = true;
        return { input, info: await api.startSession(input) };
      });
      set({ replayStarting: false });
      if (!started) return undefined;
      const { input, info } = started;
      set({ pendingSessionId: info.id, view: 'agent' });
      get().selectDevice(info.serial);
      // The Agent view takes it from here; given how it was started, its Reset starts the same replay again.
      await get().openSession(info.id, input);
      return info;
    },
  };
};
