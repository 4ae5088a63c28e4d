import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { BridgeMessage } from '../../core/api/bridge.js';
import { parseFromHost, type ToHost } from '../../core/api/ipc/channel.js';
import { startHost, type HostProcess } from '../../electron/host-process.js';
import { createRelay, IPC, type RelayContents, type RelayEvent } from '../../electron/relay.js';

/** The main process's relay between windows and the API host, with Electron's objects faked. */
class FakeContents extends EventEmitter implements RelayContents {
  static next = 100;
  readonly id = FakeContents.next++;
  readonly received: BridgeMessage[] = [];
  destroyed = false;
  /** What the trust check looks at (Electron: the sending frame's URL). */
  url = 'awb://app/index.html';
  send(channel: string, msg: unknown): void {
    if (channel === IPC.message) this.received.push(msg as BridgeMessage);
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  destroy(): void {
    this.destroyed = true;
    this.emit('destroyed');
  }
  reload(): void {
    this.emit('did-start-navigation', { isMainFrame: true, isSameDocument: false });
  }
}

function fakeIpc() {
  const emitter = new EventEmitter();
  return {
    ipc: emitter as unknown as { on(c: string, l: (e: RelayEvent, ...a: unknown[]) => void): unknown; removeListener(c: string, l: (e: RelayEvent, ...a: unknown[]) => void): unknown },
    /** A page's preload calling awb.send(msg). */
    send: (sender: FakeContents, page: unknown, msg: unknown) => emitter.emit(IPC.send, { sender }, page, msg),
  };
}

function fakeHost() {
  const posted: ToHost[] = [];
  const listeners = new Set<(m: unknown) => void>();
  return {
    posted,
    host: { postMessage: (m: ToHost) => void posted.push(m), onMessage: (l: (m: unknown) => void) => (listeners.add(l), () => listeners.delete(l)) },
    reply: (m: unknown) => listeners.forEach((l) => l(m)),
  };
}

const call = (id: number): BridgeMessage => ({ t: 'call', id, m: 'listDevices', a: {} });
const trusted = (e: RelayEvent) => (e.sender as FakeContents).url.startsWith('awb://app/');

describe('relay (electron/relay.ts)', () => {
  it('forwards each window on its own connection and routes replies back to that window only', () => {
    const { ipc, send } = fakeIpc();
    const { host, posted, reply } = fakeHost();
    createRelay({ ipc, host, isTrustedSender: trusted });
    const w1 = new FakeContents();
    const w2 = new FakeContents();
    send(w1, 'p1', call(1));
    send(w2, 'p2', call(1));
    send(w1, 'p1', call(2));
    expect(posted).toEqual([{ conn: 1, msg: call(1) }, { conn: 2, msg: call(1) }, { conn: 1, msg: call(2) }]);
    reply({ conn: 2, msg: { t: 'ret', id: 1, v: 'two' } });
    reply({ conn: 1, msg: { t: 'ret', id: 1, v: 'one' } });
    reply({ conn: 9, msg: { t: 'ret', id: 1, v: 'nobody' } });
    expect(w1.received).toEqual([{ t: 'ret', id: 1, v: 'one' }]);
    expect(w2.received).toEqual([{ t: 'ret', id: 1, v: 'two' }]);
  });

  it('closes a window\'s connection when it is destroyed, and drops later replies for it', () => {
    const { ipc, send } = fakeIpc();
    const { host, posted, reply } = fakeHost();
    const relay = createRelay({ ipc, host, isTrustedSender: trusted });
    const w = new FakeContents();
    send(w, 'p', call(1));
    w.destroy();
    expect(posted.at(-1)).toEqual({ conn: 1, close: true });
    expect(relay.connectionOf(w.id)).toBeUndefined();
    reply({ conn: 1, msg: { t: 'ev', id: 1, v: 'late' } });
    expect(w.received).toEqual([]);
  });

  it('gives a reloaded page a new connection and closes the old one, in either event order', () => {
    const { ipc, send } = fakeIpc();
    const { host, posted } = fakeHost();
    const relay = createRelay({ ipc, host, isTrustedSender: trusted });
    const w = new FakeContents();
    send(w, 'page-a', call(1));
    w.reload(); // navigation first, then the new page speaks
    expect(posted.at(-1)).toEqual({ conn: 1, close: true });
    send(w, 'page-b', call(1));
    expect(posted.at(-1)).toEqual({ conn: 2, msg: call(1) });
    // The new page speaks before main hears of its navigation: its page id alone tells them apart.
    send(w, 'page-c', call(1));
    expect(posted.slice(-2)).toEqual([{ conn: 2, close: true }, { conn: 3, msg: call(1) }]);
    expect(relay.connectionOf(w.id)).toBe(3);
    w.emit('did-start-navigation', { isMainFrame: true, isSameDocument: true }); // a hash change: same page
    w.emit('did-start-navigation', { isMainFrame: false, isSameDocument: false }); // a subframe
    expect(relay.connectionOf(w.id)).toBe(3);
  });

  it('ignores untrusted senders and malformed messages', () => {
    const { ipc, send } = fakeIpc();
    const { host, posted } = fakeHost();
    const logs: string[] = [];
    createRelay({ ipc, host, isTrustedSender: trusted, log: (m) => logs.push(m) });
    const evil = new FakeContents();
    evil.url = 'https://evil.example/';
    send(evil, 'p', call(1));
    const w = new FakeContents();
    send(w, 'p', { t: 'ret', id: 1, v: 'a reply is not a request' });
    send(w, 'p', { t: 'call', id: -1, m: 'listDevices' });
    send(w, 'p', null);
    send(w, 42, call(1));
    send(w, 'x'.repeat(65), call(1));
    expect(posted).toEqual([]);
    expect(logs).toHaveLength(6);
  });

  it('stops relaying when disposed and closes its connections', () => {
    const { ipc, send } = fakeIpc();
    const { host, posted, reply } = fakeHost();
    const relay = createRelay({ ipc, host, isTrustedSender: trusted });
    const w = new FakeContents();
    send(w, 'p', call(1));
    relay.dispose();
    expect(posted.at(-1)).toEqual({ conn: 1, close: true });
    send(w, 'p', call(2));
    reply({ conn: 1, msg: { t: 'ret', id: 2, v: 0 } });
    expect(posted).toHaveLength(2);
    expect(w.received).toEqual([]);
  });
});

describe('relay + a real API host (electron/host-process.ts, node runtime)', () => {
  const home = mkdtempSync(join(tmpdir(), 'awb-relay-'));
  let host: HostProcess | undefined;

  afterAll(async () => {
    if (host) {
      const h = host;
      await new Promise<void>((resolve) => {
        h.onExit(() => resolve());
        h.postMessage({ shutdown: true });
      });
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('answers two windows through the relay, PNG bytes included', async () => {
    const h = host = startHost({
      runtime: 'node',
      entry: join(process.cwd(), 'core', 'workbench', 'host-entry.mjs'),
      env: { ...process.env, AWB_HOME: home, AWB_NO_ADB: '1', AWB_NODE: process.execPath },
      utilityFork: () => {
        throw new Error('not in Electron');
      },
    });
    await new Promise<void>((resolve, reject) => {
      h.onMessage((m) => {
        const e = parseFromHost(m);
        if (e && 'ready' in e) resolve();
        if (e && 'fatal' in e) reject(new Error(e.fatal));
      });
      h.onExit((code, error) => reject(new Error(`host exited: ${code} ${error ?? ''}`)));
    });
    const { ipc, send } = fakeIpc();
    createRelay({ ipc, host: h, isTrustedSender: trusted });
    const w1 = new FakeContents();
    const w2 = new FakeContents();
    send(w1, 'a', { t: 'call', id: 1, m: 'listDevices', a: {} });
    send(w2, 'b', { t: 'call', id: 1, m: 'screenshot', a: { serial: 'simdroid-1', scale: 0.5 } });
    const until = async (w: FakeContents) => {
      for (let i = 0; i < 500 && w.received.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      return w.received[0];
    };
    const [r1, r2] = await Promise.all([until(w1), until(w2)]);
    expect(r1).toMatchObject({ t: 'ret', id: 1, v: { devices: [{ serial: 'simdroid-1' }] } });
    expect(r2).toMatchObject({ t: 'ret', id: 1 });
    const png = (r2 as { v: { png: Uint8Array } }).v.png;
    expect(png).toBeInstanceOf(Uint8Array);
    expect([...png.subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]); // "PNG"
  });
});
