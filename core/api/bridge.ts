import { isEventName, type Unsubscribe } from './api.js';

/**
 * One generic bridge between the API object and a message channel, used by both transports
 * (Electron IPC, WebSocket): `serveApi` (serve-api.ts) answers calls and subscriptions on the
 * implementation's side, `connectApi` here is a Proxy on the caller's side (the renderer imports
 * this file, so it holds no server code). No method is written here: adding one to
 * WorkbenchApi needs no transport edit.
 */
export type BridgeMessage =
  | { t: 'call'; id: number; m: string; a: unknown }
  | { t: 'sub'; id: number; m: string; a: unknown }
  | { t: 'unsub'; id: number }
  | { t: 'ret'; id: number; v: unknown }
  | { t: 'err'; id: number; e: RemoteErrorData }
  | { t: 'ev'; id: number; v: unknown };

export interface RemoteErrorData {
  name: string;
  message: string;
  /** Validation problems, for ApiInputError. */
  issues?: Array<{ path: string; message: string }>;
}

/** A duplex message pipe: a WebSocket connection, an IPC port, a child process. */
export interface Channel {
  send(msg: BridgeMessage): void;
  onMessage(listener: (msg: BridgeMessage) => void): Unsubscribe;
  onClose(listener: () => void): Unsubscribe;
  /** False while the peer is behind (a slow socket): lossy events (mirror frames) are skipped then. */
  ready?(): boolean;
}

/** An error the other side threw, with its name kept (the UI shows `name: message`). */
export class RemoteError extends Error {
  readonly issues: RemoteErrorData['issues'];
  constructor(data: RemoteErrorData) {
    super(data.message);
    this.name = data.name;
    this.issues = data.issues;
  }
}

export class ChannelClosedError extends Error {
  override name = 'ChannelClosedError';
  constructor(readonly member: string) {
    super(`${member}: the connection to the workbench closed`);
  }
}

/**
 * The caller's side: a Proxy whose methods send calls and whose `onX` members subscribe. An event
 * listener may receive an error (a bad subscription) through `onError`.
 */
export function connectApi<T extends object>(channel: Channel, opts: { onSubscriptionError?: (member: string, e: RemoteError) => void } = {}): T {
  let next = 1;
  const pending = new Map<number, { member: string; resolve(v: unknown): void; reject(e: Error): void }>();
  const listeners = new Map<number, { member: string; listener(v: unknown): void }>();
  channel.onMessage((msg) => {
    switch (msg.t) {
      case 'ret': {
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        p?.resolve(msg.v);
        return;
      }
      case 'err': {
        const p = pending.get(msg.id);
        if (p) {
          pending.delete(msg.id);
          p.reject(new RemoteError(msg.e));
        } else {
          const l = listeners.get(msg.id);
          if (l) opts.onSubscriptionError?.(l.member, new RemoteError(msg.e));
        }
        return;
      }
      case 'ev':
        listeners.get(msg.id)?.listener(msg.v);
        return;
      default:
        return;
    }
  });
  let closed = false;
  channel.onClose(() => {
    closed = true;
    for (const p of pending.values()) p.reject(new ChannelClosedError(p.member));
    pending.clear();
  });
  return new Proxy({} as T, {
    get(_target, member) {
      if (typeof member !== 'string' || member === 'then') return undefined; // not a thenable
      if (isEventName(member)) {
        return (input: unknown, listener: (v: unknown) => void): Unsubscribe => {
          const id = next++;
          listeners.set(id, { member, listener });
          channel.send({ t: 'sub', id, m: member, a: input ?? {} });
          return () => {
            if (!listeners.delete(id)) return;
            try {
              channel.send({ t: 'unsub', id });
            } catch {
              // the channel is closed: the server already dropped the subscription
            }
          };
        };
      }
      return (input?: unknown) => new Promise((resolve, reject) => {
        if (closed) return reject(new ChannelClosedError(member));
        const id = next++;
        pending.set(id, { member, resolve, reject });
        try {
          channel.send({ t: 'call', id, m: member, a: input });
        } catch {
          pending.delete(id);
          reject(new ChannelClosedError(member));
        }
      });
    },
  });
}

/** Two channels wired to each other in memory (tests; the CLI talks to the object directly). */
export function channelPair(): [Channel, Channel] {
  type End = { listeners: Set<(m: BridgeMessage) => void>; close: Set<() => void> };
  const a: End = { listeners: new Set(), close: new Set() };
  const b: End = { listeners: new Set(), close: new Set() };
  let closed = false;
  const make = (self: End, peer: End): Channel & { close(): void } => ({
    send: (msg) => {
      if (closed) throw new Error('channel closed');
      // structuredClone: what crosses a real transport is a copy, never a shared object
      const copy = structuredClone(msg);
      queueMicrotask(() => peer.listeners.forEach((l) => l(copy)));
    },
    onMessage: (l) => (self.listeners.add(l), () => self.listeners.delete(l)),
    onClose: (l) => (self.close.add(l), () => self.close.delete(l)),
    close: () => {
      if (closed) return;
      closed = true;
      a.close.forEach((l) => l());
      b.close.forEach((l) => l());
    },
  });
  return [make(a, b), make(b, a)];
}
