import type { StateCreator } from 'zustand';
import type { SessionCommand, SessionStart, WorkbenchApi } from '../../../../core/api/api.js';
import type {
  Breakpoint, BreakpointSpec, DeviceSummary, FrameView, PolicyInfo, ScreenImage, SessionEvent, SessionInfo, TaskInstanceView,
  TaskSummary,
} from '../../../../core/api/types.js';
import type { AppState } from '../index.js';
import { flattenTree, hitTest, type FlatNode } from '../../views/agent/hit-test.js';
import { freshBreakpointId } from '../../views/agent/breakpoints.js';
import { formProblem, NoDeviceError, saveAgentForm, savedAgentForm, sessionStartOf, waitForFinish, type AgentForm } from '../../views/agent/session-start.js';

export type { AgentForm } from '../../views/agent/session-start.js';

/**
 * The Agent view's state: the start form (task, seed, policy, device, max steps), the *current*
 * session (settable from outside: the Trajectories view opens replay sessions with openSession;
 * the list of outside agents attaches to theirs), kept current from the server's session events,
 * and its device's screen. While the session runs, the screen is the device mirrored live; while it
 * holds at a proposal, it is a screenshot taken for that proposal: the image and the proposal's
 * bounds describe the same moment exactly, and the hit-test for a click override uses the tree of
 * that same screen. An outside agent's session goes through many episodes (each `episode` event
 * starts the steps, the screen and the tree over) and may close under the view: its last state stays.
 */
export interface TaskFilter {
  app: string;
  difficulty: '' | TaskSummary['difficulty'];
  text: string;
}

export interface SessionScreen extends ScreenImage {
  /** The device's size in pixels (what bounds are in). */
  device: { width: number; height: number };
  /** The proposal index it was taken for, or null at the end. */
  forIndex: number | null;
}

export interface SessionSlice {
  agentTasks: TaskSummary[];
  agentPolicies: PolicyInfo[];
  agentDevices: DeviceSummary[];
  agentFilter: TaskFilter;
  agentForm: AgentForm;
  /** The chosen task's instruction for the chosen seed. */
  agentTaskView: TaskInstanceView | null;
  /** The breakpoints being edited: the current session's, or the ones the next Start will use. */
  agentBreakpoints: Breakpoint[];
  sessionId: string | null;
  session: SessionInfo | null;
  /** A command or start is in flight (the buttons wait for it). */
  sessionBusy: boolean;
  sessionScreen: SessionScreen | null;
  /** The session's device mirrored live (kept while the session can still act; the last one stays after). */
  sessionFrame: FrameView | null;
  /** The held screen's tree (for hit-testing a click override), flattened as actions index it. */
  sessionTree: { flat: FlatNode[]; forIndex: number } | null;
  overrideText: string;
  /** The server's refusal of the last override (malformed action). */
  overrideError: string | null;
  /** An episode to open when the Trajectories view can (if its slice has no openEpisode). */
  pendingEpisodeId: number | null;

  loadAgent(): Promise<void>;
  setAgentFilter(patch: Partial<TaskFilter>): void;
  setAgentForm(patch: Partial<AgentForm>): void;
  startAgentSession(): Promise<void>;
  /** Makes `sessionId` the current session; `start` (how it was started) lets Reset start it again. */
  openSession(sessionId: string, start?: SessionStart): Promise<void>;
  closeSession(): void;
  controlSession(command: SessionCommand): Promise<void>;
  /** Stop the current session (if not finished) and start it again with the same task, seed, policy and breakpoints. */
  resetSession(): Promise<void>;
  overrideWith(action: unknown): Promise<boolean>;
  setOverrideText(text: string): void;
  /** Overrides with the JSON in the override box; the server's validation error is kept in overrideError. */
  overrideJson(): Promise<boolean>;
  /** A click on the held screen: click (or long-press) the element under the point. */
  overrideAt(p: { x: number; y: number }, kind?: 'click' | 'long_press'): Promise<boolean>;
  addBreakpoint(spec: BreakpointSpec): Promise<void>;
  removeBreakpoint(id: string): Promise<void>;
  toggleBreakpoint(id: string): Promise<void>;
  /** Shows the current session's recorded episode in the Trajectories view. */
  openSessionEpisode(): void;
}

const MAX_SCREENSHOT_SCALE = 0.5;

/** The session can still act: not finished, or an outside agent's between its episodes. */
export const sessionLive = (s: SessionInfo): boolean => s.state !== 'finished' || s.agent?.connected === true;

export const createSessionSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], SessionSlice> => (set, get, store) => {
  // Not state: the live subscription and how the current session was started (for Reset).
  let unsubscribe: (() => void) | null = null;
  let startedWith: SessionStart | null = null;
  let screenSeq = 0;
  let describeSeq = 0;
  // An outside agent's episodes restart the proposal indices: screens and trees are keyed by episode too.
  let epoch = 0;
  let shotFor: string | null = null;
  let mirror: { serial: string; off: () => void } | null = null;

  /** Mirrors the session's device (null stops; the last frame stays on screen until another session is opened). */
  const mirrorOn = (serial: string | null) => {
    if (mirror?.serial === serial) return;
    mirror?.off();
    mirror = null;
    if (!serial) return;
    const m = { serial, off: () => {} };
    // Set before subscribing: an API object may deliver the first frame synchronously.
    mirror = m;
    const settings = get().settings;
    m.off = api.onFrame(settings ? { serial, scale: settings.mirrorScale, maxFps: settings.mirrorFps } : { serial }, (f) => {
      if (mirror === m) set({ sessionFrame: f });
    });
  };

  const current = (id: string) => get().sessionId === id;

  /** Screenshot of the session's device for the proposal it is at (the latest request wins). */
  const refreshScreen = async (s: SessionInfo) => {
    const seq = ++screenSeq;
    const forIndex = s.proposal?.index ?? null;
    const shot = await get().attempt('Screenshot', () => api.screenshot({ serial: s.serial, scale: MAX_SCREENSHOT_SCALE }));
    if (!shot || seq !== screenSeq || !current(s.id)) return;
    const device = { width: Math.round(shot.width / MAX_SCREENSHOT_SCALE), height: Math.round(shot.height / MAX_SCREENSHOT_SCALE) };
    set({ sessionScreen: { ...shot, device, forIndex } });
  };

  /** The held screen's tree, read once per proposal (the device does not change while it holds). */
  let treeLoad: { id: string; epoch: number; index: number; promise: Promise<FlatNode[] | null> } | null = null;
  const loadTree = (s: SessionInfo): Promise<FlatNode[] | null> => {
    const index = s.proposal?.index;
    if (index === undefined) return Promise.resolve(null);
    const have = get().sessionTree;
    if (have && have.forIndex === index) return Promise.resolve(have.flat);
    if (treeLoad && treeLoad.id === s.id && treeLoad.epoch === epoch && treeLoad.index === index) return treeLoad.promise;
    const at = epoch;
    const promise = (async () => {
      const state = await get().attempt('Read the screen', () => api.screenState({ serial: s.serial }));
      if (!state || !current(s.id) || at !== epoch) return null;
      const flat = flattenTree(state.tree);
      if (get().session?.proposal?.index === index) set({ sessionTree: { flat, forIndex: index } });
      return flat;
    })();
    treeLoad = { id: s.id, epoch, index, promise };
    return promise;
  };

  /** Held at a proposal: its screenshot (once per proposal) and its tree. */
  const showHeld = (s: SessionInfo) => {
    const key = `${s.id}:${epoch}:${s.proposal?.index ?? 'none'}`;
    if (key !== shotFor) {
      shotFor = key;
      void refreshScreen(s);
    }
    void loadTree(s);
  };

  /** The device list shows which device is in a session, so it is re-read when one starts or ends. */
  const refreshDevices = async () => {
    const list = await get().attempt('List devices', () => api.listDevices());
    if (list) set({ agentDevices: list.devices });
  };

  const onEvent = (id: string, e: SessionEvent) => {
    if (!current(id)) return;
    const s = e.session;
    if (e.kind === 'episode') {
      // An outside agent's next episode: its steps, held screen and tree start over.
      epoch++;
      screenSeq++;
      shotFor = null;
      treeLoad = null;
      set({ sessionScreen: null, sessionTree: null, overrideError: null, overrideText: '' });
    }
    set({ session: s, agentBreakpoints: s.breakpoints });
    mirrorOn(sessionLive(s) ? s.serial : null);
    if (s.state === 'paused') showHeld(s);
    if (e.kind === 'finished') {
      set({ overrideError: null });
      // A closed agent's device is no longer the session's: the last frame mirrored is its last screen.
      if (!(s.agent && !s.agent.connected)) void refreshScreen(s);
      void refreshDevices();
    }
  };

  const withBusy = async (fn: () => Promise<unknown>) => {
    set({ sessionBusy: true });
    try {
      await fn();
    } finally {
      set({ sessionBusy: false });
    }
  };

  /** Sends the edited breakpoints to the current session, if it can still use them. */
  const pushBreakpoints = async (list: Breakpoint[]) => {
    set({ agentBreakpoints: list });
    const s = get().session;
    if (!s || !sessionLive(s)) return;
    // The session's event brings the stored list back.
    await get().attempt('Set breakpoints', () => api.setBreakpoints({ sessionId: s.id, breakpoints: list }));
  };

  const describe = async () => {
    const { agentForm: f } = get();
    const seq = ++describeSeq;
    if (!f.templateId || f.instruction.trim() || formProblem(f, ['seed'])) return set({ agentTaskView: null });
    const view = await get().attempt('Describe task', () => api.describeTask({ templateId: f.templateId, seed: Number(f.seed) }));
    if (seq === describeSeq) set({ agentTaskView: view ?? null });
  };

  return {
    agentTasks: [],
    agentPolicies: [],
    agentDevices: [],
    agentFilter: { app: '', difficulty: '', text: '' },
    // A reload keeps the form as it was last edited (checked against the tasks and policies on load).
    agentForm: { templateId: '', seed: '1', instruction: '', policy: 'oracle', maxSteps: '', repliesFormat: 'androidworld', repliesText: '', ...savedAgentForm() },
    agentTaskView: null,
    agentBreakpoints: [],
    sessionId: null,
    session: null,
    sessionBusy: false,
    sessionScreen: null,
    sessionFrame: null,
    sessionTree: null,
    overrideText: '',
    overrideError: null,
    pendingEpisodeId: null,

    loadAgent: async () => {
      const { attempt } = get();
      const [tasks, policies, devices, sessions] = await Promise.all([
        attempt('List tasks', () => api.listTasks()),
        attempt('List policies', () => api.listPolicies()),
        attempt('List devices', () => api.listDevices()),
        attempt('List sessions', () => api.listSessions()),
      ]);
      set({ agentTasks: tasks ?? [], agentPolicies: policies ?? [], agentDevices: devices?.devices ?? [] });
      const form = get().agentForm;
      // A saved task or policy that is gone (a removed endpoint, a deleted checkpoint) falls back to the first / the oracle.
      if (tasks?.length && !tasks.some((t) => t.id === form.templateId)) set({ agentForm: { ...get().agentForm, templateId: tasks[0]!.id } });
      if (policies?.length && form.policy !== 'vlm-replay' && !policies.some((p) => p.name === form.policy)) set({ agentForm: { ...get().agentForm, policy: 'oracle' } });
      void describe();
      // After a reload, pick up the workbench's own session still running on the chosen device (or any); outside
      // agents' sessions are listed for the person to attach to.
      if (!get().sessionId && sessions?.length) {
        const live = sessions.filter((s) => s.state !== 'finished' && s.agent === null);
        const mine = live.find((s) => s.serial === get().selectedSerial) ?? live[0];
        if (mine) await get().openSession(mine.id);
      }
    },

    setAgentFilter: (patch) => set((s) => ({ agentFilter: { ...s.agentFilter, ...patch } })),

    setAgentForm: (patch) => {
      set((s) => ({ agentForm: { ...s.agentForm, ...patch } }));
      saveAgentForm(get().agentForm);
      if ('templateId' in patch || 'seed' in patch || 'instruction' in patch) void describe();
    },

    startAgentSession: () => withBusy(async () => {
      const { agentForm: form, attempt } = get();
      await attempt('Start session', async () => {
        const problem = formProblem(form);
        if (problem) throw problem;
        let serial = get().selectedSerial;
        if (!serial) {
          const list = await api.listDevices();
          set({ agentDevices: list.devices });
          serial = list.devices.find((d) => d.online)?.serial ?? null;
          if (!serial) throw new NoDeviceError();
        }
        const start = sessionStartOf(form, serial, get().agentBreakpoints);
        const info = await api.startSession(start);
        await get().openSession(info.id, start);
        void refreshDevices();
      });
    }),

    openSession: async (sessionId, start) => {
      unsubscribe?.();
      mirrorOn(null);
      startedWith = start ?? null;
      epoch++;
      shotFor = null;
      treeLoad = null;
      set({ sessionId, session: null, sessionScreen: null, sessionFrame: null, sessionTree: null, overrideError: null, overrideText: '' });
      let events = 0;
      unsubscribe = api.onSession({ sessionId }, (e) => {
        events++;
        onEvent(sessionId, e);
      });
      // Events carry whole snapshots; this fills in the state before the first one (and is ignored if one came first).
      const info = await get().attempt('Open session', () => api.getSession({ sessionId }));
      if (!info || !current(sessionId)) return;
      if (events === 0) {
        set({ session: info, agentBreakpoints: info.breakpoints });
        mirrorOn(sessionLive(info) ? info.serial : null);
        if (info.state === 'paused') showHeld(info);
        else void refreshScreen(info);
      }
      // The device's size (for the live mirror's overlays): an outside agent's device may be new to this page.
      if (!get().agentDevices.some((d) => d.serial === info.serial)) void refreshDevices();
      if (!startedWith && info.agent === null) startedWith = sessionStartOf(null, info.serial, info.breakpoints, info);
    },

    closeSession: () => {
      unsubscribe?.();
      unsubscribe = null;
      mirrorOn(null);
      startedWith = null;
      set({ sessionId: null, session: null, sessionScreen: null, sessionFrame: null, sessionTree: null, overrideError: null });
    },

    controlSession: (command) => withBusy(async () => {
      const s = get().session;
      if (!s) return;
      // The session's events bring the new state (the reply may already be older than them).
      await get().attempt(`Session ${command}`, () => api.controlSession({ sessionId: s.id, command }));
    }),

    resetSession: () => withBusy(async () => {
      const s = get().session;
      // An outside agent's session is the agent's to reset.
      if (!s || s.agent !== null) return;
      const again: SessionStart = { ...(startedWith ?? sessionStartOf(null, s.serial, s.breakpoints, s)), breakpoints: get().agentBreakpoints };
      await get().attempt('Reset session', async () => {
        if (s.state !== 'finished') {
          await api.controlSession({ sessionId: s.id, command: 'stop' });
          await waitForFinish(store, s.id);
        }
        const info = await api.startSession(again);
        await get().openSession(info.id, again);
      });
    }),

    overrideWith: async (action) => {
      const s = get().session;
      if (!s) return false;
      try {
        await api.overrideAction({ sessionId: s.id, action });
        if (current(s.id)) set({ overrideError: null });
        return true;
      } catch (e) {
        const err = e instanceof Error ? e : new Error(String(e));
        // A malformed action is the person's to fix, next to the box; anything else is a failed call.
        if (err.name === 'ActionParseError' || err.name === 'ApiInputError') set({ overrideError: `${err.name}: ${err.message}` });
        else await get().attempt('Override', () => Promise.reject(err));
        return false;
      }
    },

    setOverrideText: (overrideText) => set({ overrideText, overrideError: null }),

    overrideJson: async () => {
      const text = get().overrideText.trim();
      if (!text) {
        set({ overrideError: 'Type an action as JSON, e.g. {"action_type":"navigate_back"}' });
        return false;
      }
      // The server parses the text, so its validation error is the one shown.
      return get().overrideWith(text);
    },

    overrideAt: async (p, kind = 'click') => {
      const s = get().session;
      if (!s || s.state !== 'paused') return false;
      const flat = await loadTree(s);
      const hit = flat ? hitTest(flat, p) : null;
      if (!hit) {
        set({ overrideError: `No element at (${p.x}, ${p.y})` });
        return false;
      }
      const action = { action_type: kind, index: hit.ordinal };
      set({ overrideText: JSON.stringify(action) });
      return get().overrideWith(action);
    },

    addBreakpoint: (spec) => pushBreakpoints([...get().agentBreakpoints, { id: freshBreakpointId(get().agentBreakpoints), enabled: true, spec }]),
    removeBreakpoint: (id) => pushBreakpoints(get().agentBreakpoints.filter((b) => b.id !== id)),
    toggleBreakpoint: (id) => pushBreakpoints(get().agentBreakpoints.map((b) => (b.id === id ? { ...b, enabled: !b.enabled } : b))),

    openSessionEpisode: () => {
      const id = get().session?.episodeId;
      if (id === null || id === undefined) return;
      // The Trajectories slice opens it if it can; otherwise it finds it here when it mounts.
      const open = (get() as unknown as { openEpisode?: (episodeId: number) => unknown }).openEpisode;
      set({ pendingEpisodeId: typeof open === 'function' ? null : id });
      get().setView('trajectories');
      if (typeof open === 'function') void open(id);
    },
  };
};
