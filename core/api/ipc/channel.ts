import type { ChildProcess } from 'node:child_process';
import type { Unsubscribe } from '../api.js';
import type { BridgeMessage, Channel } from '../bridge.js';
import { parseSecretsFromHost, parseSecretsToHost, type SecretsFromHost, type SecretsToHost } from './secrets-relay.js';

/**
 * The wire between a parent (Electron's main process, or any Node process) and the API host
 * (host.ts) running in a child process. One host serves many connections, one per renderer
 * window, so every bridge message travels in an envelope naming its connection: the bridge's
 * request ids are per connection (each window's proxy counts from 1) and would collide otherwise.
 *
 * Messages are structured-cloned (Electron's utility process; `child_process.fork` with
 * `serialization: 'advanced'`), so PNG bytes cross as Uint8Array without re-encoding.
 */
export type ToHost =
  | { conn: number; msg: BridgeMessage }
  /** The window went away or reloaded: drop its subscriptions. */
  | { conn: number; close: true }
  /** Close the workbench (stop devices, close the store) and exit. */
  | { shutdown: true }
  /** The app's endpoint keys and write acknowledgements from the main process (secrets-relay.ts). */
  | SecretsToHost;

export type FromHost =
  | { conn: number; msg: BridgeMessage }
  /** The workbench is up; messages sent earlier were queued and are now served. */
  | { ready: true }
  /** The workbench could not start (the host exits after this). */
  | { fatal: string }
  /** The app's endpoint keys: asked for, written (secrets-relay.ts). */
  | SecretsFromHost;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** A request a caller may send (call, subscribe, unsubscribe): what a renderer is allowed to say. */
export function isBridgeRequest(m: unknown): m is BridgeMessage {
  if (!isObject(m) || !isId(m.id)) return false;
  switch (m.t) {
    case 'call':
    case 'sub':
      return typeof m.m === 'string' && m.m.length > 0 && m.m.length < 100;
    case 'unsub':
      return true;
    default:
      return false;
  }
}

function isBridgeReply(m: unknown): m is BridgeMessage {
  return isObject(m) && isId(m.id) && (m.t === 'ret' || m.t === 'err' || m.t === 'ev');
}

export function parseToHost(m: unknown): ToHost | null {
  if (!isObject(m)) return null;
  if (m.shutdown === true) return { shutdown: true };
  if (!isId(m.conn)) return parseSecretsToHost(m);
  if (m.close === true) return { conn: m.conn, close: true };
  return isBridgeRequest(m.msg) ? { conn: m.conn, msg: m.msg } : null;
}

export function parseFromHost(m: unknown): FromHost | null {
  if (!isObject(m)) return null;
  if (m.ready === true) return { ready: true };
  if (typeof m.fatal === 'string') return { fatal: m.fatal };
  if (!isId(m.conn)) return parseSecretsFromHost(m);
  return isBridgeReply(m.msg) ? { conn: m.conn, msg: m.msg } : null;
}

/**
 * The host's side of a connection: `serveApi` runs on this channel. `close()` (the parent said the
 * window went away, or the parent itself went away) fires the channel's close listeners, which
 * drops that connection's subscriptions.
 */
export function connectionChannel(conn: number, post: (m: FromHost) => void): Channel & { deliver(msg: BridgeMessage): void; close(): void } {
  const listeners = new Set<(m: BridgeMessage) => void>();
  const closeListeners = new Set<() => void>();
  let closed = false;
  return {
    send: (msg) => {
      if (!closed) post({ conn, msg });
    },
    onMessage: (l) => (listeners.add(l), () => listeners.delete(l)),
    onClose: (l) => (closeListeners.add(l), () => closeListeners.delete(l)),
    deliver: (msg) => listeners.forEach((l) => l(msg)),
    close: () => {
      if (closed) return;
      closed = true;
      closeListeners.forEach((l) => l());
      listeners.clear();
      closeListeners.clear();
    },
  };
}

export class HostExitedError extends Error {
  override name = 'HostExitedError';
}

/**
 * A Node parent's side of one connection to a host forked with `child_process.fork(…, {
 * serialization: 'advanced' })`: `connectApi(hostChannel(child, 1))` is a WorkbenchApi. (Electron's
 * main process does not use this: it relays renderer messages without decoding them, electron/relay.ts.)
 */
export function hostChannel(child: ChildProcess, conn: number): Channel & { close(): void } {
  const closeListeners = new Set<() => void>();
  let closed = false;
  const fireClose = () => {
    if (closed) return;
    closed = true;
    closeListeners.forEach((l) => l());
  };
  child.once('exit', fireClose);
  child.once('disconnect', fireClose);
  return {
    send: (msg) => {
      if (closed || !child.connected) throw new HostExitedError('The workbench host process is not running');
      child.send({ conn, msg } satisfies ToHost);
    },
    onMessage: (l): Unsubscribe => {
      const handler = (raw: unknown) => {
        const m = parseFromHost(raw);
        if (m && 'conn' in m && m.conn === conn) l(m.msg);
      };
      child.on('message', handler);
      return () => child.off('message', handler);
    },
    onClose: (l) => (closeListeners.add(l), () => closeListeners.delete(l)),
    close: () => {
      if (!closed && child.connected) child.send({ conn, close: true } satisfies ToHost);
      fireClose();
    },
  };
}
