import type { StateCreator } from 'zustand';
import type { WorkbenchApi } from '../../../../core/api/api.js';
import type { FrameView, InputEvent, Rotation, ScreenState } from '../../../../core/api/types.js';
import { flattenTree, nodeIdentity, type FlatNode } from '../../views/live/tree-model.js';
import { describeInput } from '../../views/live/gestures.js';
import type { AppState } from '../index.js';

export interface LiveSlice {
  /** The device being mirrored (null when the Live view is closed). */
  liveSerial: string | null;
  frame: FrameView | null;
  /** Frames received in the last second. */
  liveFps: number;
  /** A recent frame's capture latency, at - changedAt (it and liveFps follow the frames at most every 250 ms). */
  frameLatencyMs: number | null;
  /** From sending the last input to the first frame showing a change after it. */
  inputLatencyMs: number | null;
  lastInput: string | null;
  screenState: ScreenState | null;
  /** screenState's tree flattened in pre-order (index = ordinal). */
  liveNodes: FlatNode[];
  treeLoading: boolean;
  hoveredOrdinal: number | null;
  selectedOrdinal: number | null;
  /** When on, a click on the screen selects a node instead of tapping. */
  inspectMode: boolean;
  /** How big the screen is drawn: 'fit' the window's height, or a scale of the device's pixels (0.5 = half size). */
  liveZoom: 'fit' | number;
  setLiveZoom(zoom: 'fit' | number): void;
  /** Turns the device's display (rotateDevice; RotationUnsupportedError for SimDroid). */
  rotateDevice(serial: string, rotation: Rotation): Promise<boolean>;
  /** A full-size screenshot of the device (the Live view's screenshot button saves it). */
  screenshotDevice(serial: string): Promise<Uint8Array>;
  /** Moves streamed in the current (or last) drag: a drag streams down, its moves as the device takes them, up. */
  touchMoves: number;
  /** A drag begins on a device that takes streamed touches (DeviceSummary.touch): the finger goes down there. */
  beginTouch(p: { x: number; y: number }): void;
  /** The finger moved: the newest position goes when the device has taken the previous one (moves in between are dropped). */
  moveTouch(p: { x: number; y: number }): void;
  /** The finger lifts; resolves once the device has it. */
  endTouch(p: { x: number; y: number }): Promise<boolean>;
  /** Mirrors a device (settings' mirrorScale/mirrorFps); returns the function that stops it. */
  startMirror(serial: string): () => void;
  /** Sends one input to the mirrored (else the selected) device, in order after earlier ones; the tree refreshes after it. */
  sendInput(event: InputEvent): Promise<boolean>;
  /**
   * Types text into the focused field: 'no-field' (nothing sent) when the tree shows none. A tap or key sent just
   * before may have moved the focus, so the check waits for it and reads the tree again first.
   */
  typeText(text: string): Promise<'sent' | 'no-field' | 'failed'>;
  refreshTree(): Promise<void>;
  hoverNode(ordinal: number | null): void;
  selectNode(ordinal: number | null): void;
  setInspectMode(on: boolean): void;
}

/** How often the fps and frame-latency figures follow the frames. */
const STATS_EVERY_MS = 250;

/** How long to wait for a frame after an input before refreshing the tree anyway (no visible change). */
const REFRESH_FALLBACK_MS = 400;

export const createLiveSlice = (api: WorkbenchApi): StateCreator<AppState, [], [], LiveSlice> => (set, get) => {
  let mirror: { serial: string; off: () => void; timer: ReturnType<typeof setInterval> } | null = null;
  let arrivals: number[] = [];
  let statsAt = 0;
  // Inputs go one after another: typing fast must not reorder characters.
  let inputChain: Promise<unknown> = Promise.resolve();
  let inputStartedAt: number | null = null;
  let refreshOnFrame = false;
  let fallback: ReturnType<typeof setTimeout> | null = null;
  let treeSeq = 0;
  let treeInFlight: Promise<void> | null = null;
  let treeAgain = false;
  // Inputs that can move the focus (all but text), and how many of them the shown tree was read after.
  let focusInputs = 0;
  let treeAfterInputs = 0;
  let textChain: Promise<unknown> = Promise.resolve();

  const target = () => get().liveSerial ?? get().selectedSerial;

  // The drag being streamed: the newest position not sent yet, and whether a move is with the device now.
  let touch: { serial: string; latest: { x: number; y: number } | null; busy: boolean } | null = null;
  /** One touch event, in order with every other input; false when it failed (the banner says why). */
  const sendTouch = (serial: string, action: 'down' | 'move' | 'up', p: { x: number; y: number }): Promise<boolean> => {
    focusInputs++;
    const run = async () => get().attempt(`Touch ${serial}`, async () => (await api.sendTouch({ serial, action, x: Math.round(p.x), y: Math.round(p.y) }), true));
    const done = inputChain.then(run, run);
    inputChain = done;
    return done.then((ok) => ok === true);
  };
  const pumpMoves = () => {
    const t = touch;
    if (!t || t.busy || !t.latest) return;
    const p = t.latest;
    t.latest = null;
    t.busy = true;
    set((s) => ({ touchMoves: s.touchMoves + 1 }));
    void sendTouch(t.serial, 'move', p).finally(() => {
      t.busy = false;
      pumpMoves();
    });
  };

  const measureFps = (now: number) => {
    arrivals = arrivals.filter((t) => now - t < 1000);
    return arrivals.length;
  };

  const onFrame = (f: FrameView) => {
    if (!mirror || f.serial !== mirror.serial) return;
    const now = Date.now();
    arrivals.push(now);
    const update: Partial<LiveSlice> = { frame: f };
    // The stats line is read by a person: a few updates a second are plenty, and each one costs
    // the page a render and a layout of the header at every frame otherwise.
    if (now - statsAt >= STATS_EVERY_MS) {
      statsAt = now;
      update.liveFps = measureFps(now);
      update.frameLatencyMs = f.changedAt === null ? null : Math.max(0, f.at - f.changedAt);
    }
    // The first frame showing a change made after the input started measures input → frame.
    if (inputStartedAt !== null && (f.changedAt === null || f.changedAt >= inputStartedAt)) {
      update.inputLatencyMs = now - inputStartedAt;
      inputStartedAt = null;
    }
    set(update);
    if (refreshOnFrame) {
      refreshOnFrame = false;
      if (fallback) clearTimeout(fallback);
      fallback = null;
      void get().refreshTree();
    }
  };

  const stopMirror = () => {
    if (!mirror) return;
    mirror.off();
    clearInterval(mirror.timer);
    mirror = null;
  };

  const doRefresh = async (): Promise<void> => {
    const serial = target();
    if (!serial) return;
    const seq = ++treeSeq;
    const after = focusInputs;
    set({ treeLoading: true });
    const state = await get().attempt(`Read the screen of ${serial}`, () => api.screenState({ serial }));
    if (seq !== treeSeq) return;
    if (!state || state.serial !== target()) {
      set({ treeLoading: false });
      return;
    }
    const nodes = flattenTree(state.tree);
    const { liveNodes, selectedOrdinal, hoveredOrdinal } = get();
    // Keep the selection if the same element is still at that ordinal (a refresh of a similar screen).
    const keep = (o: number | null) => (o !== null && liveNodes[o] && nodes[o] && nodeIdentity(liveNodes[o]) === nodeIdentity(nodes[o]) ? o : null);
    treeAfterInputs = after;
    set({ screenState: state, liveNodes: nodes, treeLoading: false, selectedOrdinal: keep(selectedOrdinal), hoveredOrdinal: keep(hoveredOrdinal) });
  };

  return {
    liveSerial: null,
    frame: null,
    liveFps: 0,
    frameLatencyMs: null,
    inputLatencyMs: null,
    lastInput: null,
    screenState: null,
    liveNodes: [],
    treeLoading: false,
    hoveredOrdinal: null,
    selectedOrdinal: null,
    inspectMode: false,
    liveZoom: 'fit',
    setLiveZoom: (zoom) => set({ liveZoom: zoom }),
    rotateDevice: async (serial, rotation) => {
      await api.rotateDevice({ serial, rotation });
      void get().refreshTree();
      return true;
    },
    screenshotDevice: async (serial) => (await api.screenshot({ serial, scale: 1 })).png,
    touchMoves: 0,
    beginTouch: (p) => {
      const serial = target();
      if (!serial) return;
      touch = { serial, latest: null, busy: false };
      inputStartedAt = Date.now();
      set({ touchMoves: 0, lastInput: `drag from (${Math.round(p.x)}, ${Math.round(p.y)})` });
      void sendTouch(serial, 'down', p);
    },
    moveTouch: (p) => {
      if (!touch) return;
      touch.latest = p;
      pumpMoves();
    },
    endTouch: async (p) => {
      const t = touch;
      touch = null;
      if (!t) return false;
      // Lifting carries the last position: moves not sent yet are superseded by it.
      t.latest = null;
      const ok = await sendTouch(t.serial, 'up', p);
      set((s) => ({ lastInput: `drag to (${Math.round(p.x)}, ${Math.round(p.y)}), ${s.touchMoves} moves streamed` }));
      void get().refreshTree();
      return ok;
    },

    startMirror: (serial) => {
      stopMirror();
      arrivals = [];
      statsAt = 0;
      const switched = get().screenState?.serial !== serial;
      set({
        liveSerial: serial, frame: null, liveFps: 0, frameLatencyMs: null, inputLatencyMs: null,
        ...(switched ? { screenState: null, liveNodes: [], hoveredOrdinal: null, selectedOrdinal: null, lastInput: null } : {}),
      });
      // SimDroid pushes frames only on change: the fps shown falls to 0 on a still screen.
      const timer = setInterval(() => {
        const fps = measureFps(Date.now());
        if (fps !== get().liveFps) set({ liveFps: fps });
      }, 500);
      // Set before subscribing: an API object may deliver the first frame synchronously.
      const m = (mirror = { serial, off: () => {}, timer });
      const s = get().settings;
      m.off = api.onFrame(s ? { serial, scale: s.mirrorScale, maxFps: s.mirrorFps } : { serial }, onFrame);
      void get().refreshTree();
      return () => {
        if (mirror !== m) return; // a newer mirror replaced this one
        stopMirror();
        if (fallback) clearTimeout(fallback);
        fallback = null;
        refreshOnFrame = false;
        set({ liveSerial: null, liveFps: 0 });
      };
    },

    sendInput: async (event) => {
      const serial = target();
      if (!serial) {
        await get().attempt('Send input', async () => {
          throw Object.assign(new Error('No device selected: start or pick one on the Devices view'), { name: 'NoDeviceError' });
        });
        return false;
      }
      if (event.kind !== 'text') focusInputs++;
      const run = async () => {
        inputStartedAt = Date.now();
        set({ lastInput: describeInput(event) });
        return get().attempt(`Send ${event.kind.replace('_', ' ')} to ${serial}`, async () => (await api.sendInput({ serial, event }), true));
      };
      const done = inputChain.then(run, run);
      inputChain = done;
      const ok = (await done) === true;
      if (!ok) return false;
      if (mirror) {
        // The tree is read once the frame showing the input's effect arrives (or soon anyway).
        refreshOnFrame = true;
        if (fallback) clearTimeout(fallback);
        fallback = setTimeout(() => {
          fallback = null;
          if (refreshOnFrame) {
            refreshOnFrame = false;
            void get().refreshTree();
          }
        }, REFRESH_FALLBACK_MS);
      } else {
        await get().refreshTree();
      }
      return true;
    },

    typeText: (text) => {
      // One after another, so that characters typed while the tree is read again keep their order.
      const step = async (): Promise<'sent' | 'no-field' | 'failed'> => {
        if (focusInputs > treeAfterInputs) {
          await inputChain.catch(() => undefined);
          await get().refreshTree();
        }
        const { screenState, liveNodes } = get();
        if (screenState !== null && !liveNodes.some((n) => n.node.focused)) return 'no-field';
        return (await get().sendInput({ kind: 'text', text })) ? 'sent' : 'failed';
      };
      const done = textChain.then(step, step);
      textChain = done;
      return done;
    },

    refreshTree: async () => {
      // One read at a time; calls made meanwhile coalesce into one more read after it.
      if (treeInFlight) {
        treeAgain = true;
        return treeInFlight;
      }
      treeInFlight = (async () => {
        do {
          treeAgain = false;
          await doRefresh();
        } while (treeAgain);
      })();
      try {
        await treeInFlight;
      } finally {
        treeInFlight = null;
      }
    },

    hoverNode: (ordinal) => {
      if (get().hoveredOrdinal !== ordinal) set({ hoveredOrdinal: ordinal });
    },
    selectNode: (ordinal) => set({ selectedOrdinal: ordinal }),
    setInspectMode: (on) => set({ inspectMode: on }),
  };
};
