import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { IPC } from '../../electron/relay.js';

/** The preload under a mocked `electron`: what it exposes to the page, and what it sends. */
const electron = vi.hoisted(() => {
  type Handler = (event: unknown, ...args: unknown[]) => void;
  const handlers = new Map<string, Set<Handler>>();
  return {
    exposed: [] as Array<[string, unknown]>,
    sent: [] as unknown[][],
    handlers,
    emit: (channel: string, ...args: unknown[]) => handlers.get(channel)?.forEach((h) => h({ sender: 'ipc-event' }, ...args)),
  };
});

vi.mock('electron', () => ({
  contextBridge: { exposeInMainWorld: (key: string, api: unknown) => electron.exposed.push([key, api]) },
  ipcRenderer: {
    send: (channel: string, ...args: unknown[]) => electron.sent.push([channel, ...args]),
    on: (channel: string, h: (event: unknown, ...args: unknown[]) => void) => {
      if (!electron.handlers.has(channel)) electron.handlers.set(channel, new Set());
      electron.handlers.get(channel)!.add(h);
    },
    removeListener: (channel: string, h: (event: unknown, ...args: unknown[]) => void) => electron.handlers.get(channel)?.delete(h),
  },
}));

interface Bridge {
  send(msg: unknown): void;
  onMessage(listener: (msg: unknown) => void): () => void;
}

describe('electron/preload.ts', () => {
  let bridge: Bridge;
  beforeAll(async () => {
    await import('../../electron/preload.js');
    bridge = electron.exposed[0]![1] as Bridge;
  });

  it('exposes exactly window.awb = { send, onMessage } and nothing else', () => {
    expect(electron.exposed.map(([k]) => k)).toEqual(['awb']);
    expect(Object.keys(bridge).sort()).toEqual(['onMessage', 'send']);
    expect(typeof bridge.send).toBe('function');
    expect(typeof bridge.onMessage).toBe('function');
  });

  it("sends a bridge message on the relay's channel, tagged with one id for the page", () => {
    bridge.send({ t: 'call', id: 1, m: 'listDevices', a: {} });
    bridge.send({ t: 'unsub', id: 1 });
    const [first, second] = electron.sent.slice(-2);
    expect(first![0]).toBe(IPC.send);
    expect(first![2]).toEqual({ t: 'call', id: 1, m: 'listDevices', a: {} });
    expect(typeof first![1]).toBe('string');
    expect(second![1]).toBe(first![1]);
  });

  it('delivers messages to listeners without the IPC event, and unsubscribes', () => {
    const got: unknown[][] = [];
    const off = bridge.onMessage((...args) => got.push(args));
    electron.emit(IPC.message, { t: 'ret', id: 1, v: 42 });
    expect(got).toEqual([[{ t: 'ret', id: 1, v: 42 }]]);
    off();
    electron.emit(IPC.message, { t: 'ret', id: 2, v: 43 });
    expect(got).toHaveLength(1);
    expect(electron.handlers.get(IPC.message)?.size ?? 0).toBe(0);
  });

  it('refuses a listener that is not a function', () => {
    expect(() => bridge.onMessage('nope' as never)).toThrow(TypeError);
  });

  it("runs as a sandboxed preload does: one CommonJS script that requires only 'electron'", () => {
    // As electron/build.mjs compiles it, evaluated in the wrapper Electron gives sandboxed preloads.
    const { outputText } = ts.transpileModule(readFileSync('electron/preload.ts', 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
    });
    const required: string[] = [];
    const exposed: Record<string, unknown> = {};
    const fakeElectron = { contextBridge: { exposeInMainWorld: (k: string, v: unknown) => (exposed[k] = v) }, ipcRenderer: { send() {}, on() {}, removeListener() {} } };
    const module = { exports: {} };
    const run = new Function('require', 'process', 'Buffer', 'global', 'setImmediate', 'clearImmediate', 'exports', 'module', outputText);
    run((id: string) => (required.push(id), fakeElectron), process, Buffer, globalThis, setImmediate, clearImmediate, module.exports, module);
    expect(required).toEqual(['electron']);
    expect(Object.keys(exposed)).toEqual(['awb']);
  });
});
