import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundsCenter, findFirst, flattenUiTree, hitTest } from '../../core/a11y/ui-tree.js';
import type { UiTree } from '../../core/api/types.js';
import type { AppStore } from '../../renderer/src/store/index.js';
import { bridgedWorkbench, type BridgedWorkbench } from '../helpers/bridged-workbench.js';
import { childrenOf, flattenTree, hitTestTree } from '../../renderer/src/views/live/tree-model.js';
import { classifyGesture, keyToInput } from '../../renderer/src/views/live/gestures.js';

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out waiting for a condition');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const LAUNCHER = 'com.google.android.apps.nexuslauncher';

describe('the live slice against the real workbench', () => {
  let bridged: BridgedWorkbench;
  let store: AppStore;

  beforeAll(async () => {
    bridged = await bridgedWorkbench('awb-live-', { embeddedDevice: true });
    ({ store } = bridged);
    store.getState().selectDevice('simdroid-1');
  });

  afterAll(() => bridged.close());

  it('reads the screen and its tree, numbered as actions number elements', async () => {
    await store.getState().refreshTree();
    const s = store.getState();
    expect(s.screenState?.foreground.package).toBe(LAUNCHER);
    expect(s.liveNodes.length).toBe(flattenUiTree(s.screenState!.tree).length);
    expect(s.liveNodes.find((n) => n.node.text === 'Phone')).toBeDefined();
    expect(s.errors).toEqual([]);
  });

  it('a tap sent through the slice opens the app under it, and the tree follows', async () => {
    const phone = store.getState().liveNodes.find((n) => n.node.text === 'Phone')!;
    const c = boundsCenter(phone.node.bounds);
    expect(await store.getState().sendInput({ kind: 'tap', x: c.x, y: c.y })).toBe(true);
    // Not mirroring: the tree is read right after the input.
    expect(store.getState().screenState?.foreground.package).not.toBe(LAUNCHER);
    expect(store.getState().lastInput).toBe(`tap (${c.x}, ${c.y})`);
    await store.getState().sendInput({ kind: 'key', key: 'HOME' });
    expect(store.getState().screenState?.foreground.package).toBe(LAUNCHER);
  });

  it('mirrors frames with fps and latency, refreshes the tree on the frame after an input, and stops', async () => {
    await store.getState().loadSettings();
    const stop = store.getState().startMirror('simdroid-1');
    await until(() => store.getState().frame !== null);
    const first = store.getState().frame!;
    expect([first.width, first.height]).toEqual([540, 1200]); // settings' default mirrorScale 0.5
    expect(store.getState().liveFps).toBeGreaterThan(0);
    expect(store.getState().frameLatencyMs).not.toBeNull();
    await until(() => store.getState().screenState !== null);
    const before = store.getState().screenState;

    const chrome = store.getState().liveNodes.find((n) => n.node.text === 'Chrome')!;
    const c = boundsCenter(chrome.node.bounds);
    await store.getState().sendInput({ kind: 'tap', x: c.x, y: c.y });
    await until(() => store.getState().frame!.seq > first.seq);
    await until(() => store.getState().screenState !== before && store.getState().screenState!.foreground.package !== LAUNCHER);
    expect(store.getState().inputLatencyMs).not.toBeNull();
    expect(store.getState().inputLatencyMs!).toBeLessThan(2000);

    stop();
    expect(store.getState().liveSerial).toBeNull();
    const seq = store.getState().frame!.seq;
    await store.getState().sendInput({ kind: 'key', key: 'HOME' });
    await new Promise((r) => setTimeout(r, 150));
    expect(store.getState().frame!.seq).toBe(seq); // no frames after leaving
    expect(store.getState().screenState?.foreground.package).toBe(LAUNCHER);
  });

  it('types into a focused field, key by key, in order', async () => {
    const tapOn = async (pred: (n: { text: string; contentDesc: string; className: string }) => boolean) => {
      const n = store.getState().liveNodes.find((x) => pred(x.node));
      expect(n).toBeDefined();
      const c = boundsCenter(n!.node.bounds);
      expect(await store.getState().sendInput({ kind: 'tap', x: c.x, y: c.y })).toBe(true);
    };
    await tapOn((n) => n.text === 'Simple SMS Messenger');
    if (store.getState().liveNodes.some((n) => n.node.text === 'Allow')) await tapOn((n) => n.text === 'Allow');
    await tapOn((n) => n.contentDesc === 'Search');
    await tapOn((n) => n.className === 'android.widget.EditText');
    // As a person types: one text input per key, sent without waiting for the previous one.
    await Promise.all([...'hello'].map((ch) => store.getState().sendInput({ kind: 'text', text: ch })));
    await store.getState().sendInput({ kind: 'key', key: 'DEL' });
    const field = store.getState().liveNodes.find((n) => n.node.className === 'android.widget.EditText');
    expect(field?.node.text).toBe('hell');
    await store.getState().sendInput({ kind: 'key', key: 'HOME' });
  });

  it('shows a failed input as a visible, named error', async () => {
    store.getState().selectDevice('simdroid-99');
    expect(await store.getState().sendInput({ kind: 'tap', x: 1, y: 1 })).toBe(false);
    store.getState().selectDevice('simdroid-1');
    const e = store.getState().errors.at(-1)!;
    expect(e.action).toBe('Send tap to simdroid-99');
    expect(e.name).toBe('DeviceNotFoundError');
  });

  it("numbers nodes exactly as core's flattenUiTree and hit-tests as core's hitTest, on real SimDroid trees", async () => {
    const api = store.api;
    const trees: UiTree[] = [(await api.screenState({ serial: 'simdroid-1' })).tree];
    // A deeper screen: the app drawer (swipe up) and an app.
    await api.sendInput({ serial: 'simdroid-1', event: { kind: 'swipe', x1: 540, y1: 1900, x2: 540, y2: 500, durationMs: 200 } });
    trees.push((await api.screenState({ serial: 'simdroid-1' })).tree);
    const contacts = findFirst(flattenUiTree(trees[1]!), { text: 'Contacts' });
    if (contacts) {
      const c = boundsCenter(contacts.node.bounds);
      await api.sendInput({ serial: 'simdroid-1', event: { kind: 'tap', x: c.x, y: c.y } });
      trees.push((await api.screenState({ serial: 'simdroid-1' })).tree);
    }
    await api.sendInput({ serial: 'simdroid-1', event: { kind: 'key', key: 'HOME' } });
    for (const tree of trees) {
      const core = flattenUiTree(tree);
      const mine = flattenTree(tree);
      expect(mine.length).toBe(core.length);
      expect(core.length).toBeGreaterThan(10);
      for (let i = 0; i < core.length; i++) {
        expect(mine[i]!.ordinal).toBe(core[i]!.ordinal);
        expect(mine[i]!.depth).toBe(core[i]!.depth);
        expect(mine[i]!.node).toBe(core[i]!.node);
        expect(mine[i]!.parentOrdinal).toBe(core[i]!.parent?.ordinal ?? null);
        expect(childrenOf(mine, mine[i]!).map((n) => n.node)).toEqual(core[i]!.node.children);
      }
      for (let y = 0; y < 2400; y += 37) {
        for (let x = 0; x < 1080; x += 53) expect(hitTestTree(mine, x, y)?.ordinal).toBe(hitTest(core, x, y)?.ordinal);
      }
    }
    expect(trees.length).toBe(3);
  });
});

describe('gesture and key mapping', () => {
  it('click → tap, held still ≥ 500 ms → long_press with the held time, drag → swipe with its time', () => {
    expect(classifyGesture({ x: 10, y: 20, t: 0 }, { x: 12, y: 21, t: 120 }, false)).toEqual({ kind: 'tap', x: 10, y: 20 });
    expect(classifyGesture({ x: 10, y: 20, t: 0 }, { x: 10, y: 20, t: 499 }, false).kind).toBe('tap');
    expect(classifyGesture({ x: 10, y: 20, t: 0 }, { x: 11, y: 20, t: 812.4 }, false)).toEqual({ kind: 'long_press', x: 10, y: 20, durationMs: 812 });
    expect(classifyGesture({ x: 10, y: 20, t: 0 }, { x: 500, y: 900, t: 300 }, true)).toEqual({ kind: 'swipe', x1: 10, y1: 20, x2: 500, y2: 900, durationMs: 300 });
    expect(classifyGesture({ x: 10, y: 20, t: 0 }, { x: 500, y: 900, t: 90_000 }, true)).toMatchObject({ durationMs: 60_000 });
  });

  it('printable keys type, Enter/Backspace/Escape are ENTER/DEL/BACK, browser shortcuts stay', () => {
    const k = (key: string, mods: Partial<{ ctrlKey: boolean; altKey: boolean; metaKey: boolean }> = {}) =>
      keyToInput({ key, ctrlKey: false, altKey: false, metaKey: false, ...mods });
    expect(k('a')).toEqual({ kind: 'text', text: 'a' });
    expect(k('É')).toEqual({ kind: 'text', text: 'É' });
    expect(k(' ')).toEqual({ kind: 'text', text: ' ' });
    expect(k('Enter')).toEqual({ kind: 'key', key: 'ENTER' });
    expect(k('Backspace')).toEqual({ kind: 'key', key: 'DEL' });
    expect(k('Escape')).toEqual({ kind: 'key', key: 'BACK' });
    expect(k('h', { altKey: true })).toEqual({ kind: 'key', key: 'HOME' });
    expect(k('s', { altKey: true })).toEqual({ kind: 'key', key: 'APP_SWITCH' });
    expect(k('v', { ctrlKey: true })).toBeNull();
    expect(k('Shift')).toBeNull();
    expect(k('ArrowUp')).toBeNull();
  });
});
