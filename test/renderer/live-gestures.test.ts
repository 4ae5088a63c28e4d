// @vitest-environment happy-dom
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import type { DeviceList, FrameView, InputEvent, UiNode } from '../../core/api/types.js';
import { defaultSettings, settingsFields } from '../../core/api/settings.js';
import { createAppStore, setAppStore, type AppStore } from '../../renderer/src/store/index.js';
import { LiveView } from '../../renderer/src/views/live/LiveView.js';

// React's act() needs this flag outside a test renderer.
(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

function node(cls: string, bounds: [number, number, number, number], extra: Partial<UiNode> = {}, children: UiNode[] = []): UiNode {
  return {
    index: 0, text: '', resourceId: '', className: cls, packageName: 'p', contentDesc: '', checkable: false, checked: false, clickable: false,
    enabled: true, focusable: false, focused: false, scrollable: false, longClickable: false, password: false, selected: false,
    bounds: { left: bounds[0], top: bounds[1], right: bounds[2], bottom: bounds[3] }, naf: false, children, ...extra,
  };
}

/**
 * A fake API: one 1080×2400 device whose tree has a button at the top left and a text field (focused while `focus.on`);
 * inputs and streamed touches are recorded, and a touch is taken when `touchGate` lets it (the device's rate).
 */
function fakeApi() {
  const inputs: InputEvent[] = [];
  const touches: Array<{ action: string; x: number; y: number }> = [];
  const focus = { on: true };
  const gate = { open: true, waiting: [] as Array<() => void> };
  const tree = () => ({
    rotation: 0,
    roots: [node('android.widget.FrameLayout', [0, 0, 1080, 2400], {}, [
      node('android.widget.Button', [0, 0, 540, 600], { text: 'OK', clickable: true }),
      node('android.widget.EditText', [0, 2000, 1080, 2200], { focused: focus.on, focusable: true }),
    ])],
  });
  const list: DeviceList = {
    devices: [{ serial: 'sim', kind: 'simdroid', transport: 'embedded', state: 'device', online: true, screen: { width: 1080, height: 2400, density: 420 }, adbAddress: null, sessionId: null, touch: false, rotate: false }],
    adbError: null,
  };
  const api = {
    listDevices: async () => list,
    onDevices: () => () => {},
    onActivity: () => () => {},
    getSettings: async () => defaultSettings('/tmp/x'),
    describeSettings: async () => settingsFields(),
    screenState: async () => ({ serial: 'sim', screen: { width: 1080, height: 2400, density: 420 }, tree: tree(), xml: '', foreground: { package: 'p', activity: 'a' } }),
    sendInput: async ({ event }: { event: InputEvent }) => void inputs.push(event),
    sendTouch: async (t: { action: string; x: number; y: number }) => {
      if (!gate.open) await new Promise<void>((r) => gate.waiting.push(r));
      touches.push({ action: t.action, x: t.x, y: t.y });
    },
    onFrame: (_input: unknown, listener: (f: FrameView) => void) => {
      // PNG signature only: the view shows bytes, it does not decode them.
      listener({ serial: 'sim', png: new Uint8Array([0x89, 0x50, 0x4e, 0x47]), width: 540, height: 1200, path: 'push', seq: 1, at: Date.now(), changedAt: Date.now() });
      return () => {};
    },
  };
  return { api: api as unknown as WorkbenchApi, inputs, touches, focus, gate };
}

describe('the Live view maps mouse gestures to device input', () => {
  let root: Root;
  let host: HTMLDivElement;
  let store: AppStore;
  let inputs: InputEvent[];
  let fake: ReturnType<typeof fakeApi>;
  let now = 1000;

  beforeAll(async () => {
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    fake = fakeApi();
    inputs = fake.inputs;
    store = createAppStore(fake.api);
    setAppStore(store);
    store.getState().selectDevice('sim');
    host = document.createElement('div');
    document.body.appendChild(host);
    root = createRoot(host);
    await act(async () => root.render(createElement(LiveView)));
    await act(async () => new Promise((r) => setTimeout(r, 20)));
    // The screen is shown at 540×1200 CSS pixels at the page's origin: device = 2 × CSS.
    const screen = host.querySelector<HTMLElement>('[data-testid=live-screen]')!;
    screen.getBoundingClientRect = () => ({ left: 0, top: 0, right: 540, bottom: 1200, width: 540, height: 1200, x: 0, y: 0, toJSON: () => ({}) });
  });

  afterAll(() => {
    act(() => root.unmount());
    vi.restoreAllMocks();
  });

  const screen = () => host.querySelector<HTMLElement>('[data-testid=live-screen]')!;
  const mouse = async (type: string, x: number, y: number, button = 0) => {
    await act(async () => {
      screen().dispatchEvent(new MouseEvent(type, { bubbles: true, clientX: x, clientY: y, button }));
    });
  };
  const settle = () => act(async () => new Promise((r) => setTimeout(r, 10)));

  it('shows the mirrored frame, fps and the tree', () => {
    // happy-dom has no bitmaprenderer canvas, so the frame shows as an <img> (Chromium's canvas: test/e2e).
    expect(screen().querySelector('img')).not.toBeNull();
    expect(host.querySelector('[data-testid=live-fps]')!.textContent).toMatch(/fps/);
    expect(host.querySelector('[data-testid=tree-node-1]')!.textContent).toMatch(/Button.*"OK"/);
  });

  it('click → tap, hold → long_press with the held time, drag → swipe with its time (device pixels)', async () => {
    await mouse('mousedown', 100, 200);
    now += 80;
    await mouse('mouseup', 101, 200);
    await mouse('mousedown', 300, 500);
    now += 750;
    await mouse('mousemove', 301, 501);
    await mouse('mouseup', 301, 501);
    await mouse('mousedown', 270, 1000);
    now += 120;
    await mouse('mousemove', 270, 800);
    now += 130;
    await mouse('mousemove', 270, 300);
    await mouse('mouseup', 270, 300);
    await settle();
    expect(inputs).toEqual([
      { kind: 'tap', x: 200, y: 400 },
      { kind: 'long_press', x: 600, y: 1000, durationMs: 750 },
      { kind: 'swipe', x1: 540, y1: 2000, x2: 540, y2: 600, durationMs: 250 },
    ]);
  });

  it('hovering the screen highlights the deepest node and its row; inspect mode selects instead of tapping', async () => {
    await mouse('mousemove', 50, 50);
    expect(store.getState().hoveredOrdinal).toBe(1);
    expect(host.querySelector('[data-testid=tree-node-1]')!.className).toMatch(/hovered/);
    expect(screen().querySelector('.screen-box.hover')).not.toBeNull();

    inputs.length = 0;
    await act(async () => host.querySelector<HTMLElement>('[data-testid=inspect-mode]')!.click());
    await mouse('mousedown', 50, 50);
    await mouse('mouseup', 50, 50);
    await settle();
    expect(inputs).toEqual([]);
    expect(store.getState().selectedOrdinal).toBe(1);
    expect(host.querySelector('[data-testid=node-attributes]')!.textContent).toMatch(/android\.widget\.Button/);
    await act(async () => host.querySelector<HTMLElement>('[data-testid=inspect-mode]')!.click());
  });

  it('keys typed on the focused screen and the system buttons send input', async () => {
    inputs.length = 0;
    const wrap = host.querySelector<HTMLElement>('.live-screen-wrap')!;
    for (const key of ['h', 'i', 'Enter', 'Backspace', 'Escape']) {
      await act(async () => {
        wrap.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true }));
      });
    }
    for (const id of ['key-back', 'key-home', 'key-recents']) {
      await act(async () => host.querySelector<HTMLElement>(`[data-testid=${id}]`)!.click());
    }
    await settle();
    expect(inputs).toEqual([
      { kind: 'text', text: 'h' }, { kind: 'text', text: 'i' },
      { kind: 'key', key: 'ENTER' }, { kind: 'key', key: 'DEL' }, { kind: 'key', key: 'BACK' },
      { kind: 'key', key: 'BACK' }, { kind: 'key', key: 'HOME' }, { kind: 'key', key: 'APP_SWITCH' },
    ]);
  });

  it('text typed with no field focused on the device is not sent: the view says so', async () => {
    inputs.length = 0;
    fake.focus.on = false;
    await act(async () => store.getState().refreshTree());
    const wrap = host.querySelector<HTMLElement>('.live-screen-wrap')!;
    await act(async () => wrap.dispatchEvent(new KeyboardEvent('keydown', { key: 'x', bubbles: true })));
    await settle();
    expect(inputs).toEqual([]);
    expect(host.querySelector('[data-testid=live-no-focus]')!.textContent).toMatch(/No text field is focused/);
    // Keys are not text: Back still goes.
    await act(async () => wrap.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true })));
    await settle();
    expect(inputs).toEqual([{ kind: 'key', key: 'BACK' }]);
    fake.focus.on = true;
    await act(async () => store.getState().refreshTree());
    await act(async () => wrap.dispatchEvent(new KeyboardEvent('keydown', { key: 'y', bubbles: true })));
    await settle();
    expect(inputs.at(-1)).toEqual({ kind: 'text', text: 'y' });
    expect(host.querySelector('[data-testid=live-no-focus]')).toBeNull();
  });

  it('text typed right after a tap that focused a field goes there: the focus is read again after the tap, not from the tree shown before it', async () => {
    fake.focus.on = false;
    await act(async () => store.getState().refreshTree());
    inputs.length = 0;
    fake.focus.on = true; // what the tap below does on the device
    const wrap = host.querySelector<HTMLElement>('.live-screen-wrap')!;
    await act(async () => {
      void store.getState().sendInput({ kind: 'tap', x: 500, y: 2100 });
      wrap.dispatchEvent(new KeyboardEvent('keydown', { key: 'a', bubbles: true }));
      wrap.dispatchEvent(new KeyboardEvent('keydown', { key: 'b', bubbles: true }));
    });
    await settle();
    expect(inputs).toEqual([{ kind: 'tap', x: 500, y: 2100 }, { kind: 'text', text: 'a' }, { kind: 'text', text: 'b' }]);
    expect(host.querySelector('[data-testid=live-no-focus]')).toBeNull();
  });

  it('a drag on a device that takes streamed touches goes down, moves (the newest once the device took the last), up', async () => {
    inputs.length = 0;
    await act(async () => store.setState({ devices: store.getState().devices.map((d) => ({ ...d, touch: true })) }));
    fake.gate.open = false;
    await mouse('mousedown', 270, 1000);
    await mouse('mousemove', 270, 900); // past the slop: down at the press, then this move (held by the device)
    await mouse('mousemove', 270, 800); // waits
    await mouse('mousemove', 270, 700); // replaces the one waiting
    fake.gate.open = true;
    for (const release of fake.gate.waiting.splice(0)) release();
    await settle();
    await mouse('mousemove', 270, 600);
    await settle();
    await mouse('mouseup', 270, 500);
    await settle();
    expect(fake.touches).toEqual([
      { action: 'down', x: 540, y: 2000 }, { action: 'move', x: 540, y: 1800 }, { action: 'move', x: 540, y: 1400 },
      { action: 'move', x: 540, y: 1200 }, { action: 'up', x: 540, y: 1000 },
    ]);
    expect(inputs).toEqual([]); // not also a swipe
    expect(store.getState().lastInput).toBe('drag to (540, 1000), 3 moves streamed');
    // A click is still a tap.
    await mouse('mousedown', 100, 200);
    await mouse('mouseup', 100, 200);
    await settle();
    expect(inputs).toEqual([{ kind: 'tap', x: 200, y: 400 }]);
  });
});
