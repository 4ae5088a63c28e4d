import { isEventName, type Unsubscribe } from './api.js';
import type { BridgeMessage, Channel, RemoteErrorData } from './bridge.js';
import { isApiMember, parseInput } from './inputs.js';

/** Events whose payloads may be dropped under backpressure: a newer frame supersedes an old one. */
const LOSSY_EVENTS = new Set(['onFrame']);

export function errorData(e: unknown): RemoteErrorData {
  if (e instanceof Error) {
    const d: RemoteErrorData = { name: e.name, message: e.message };
    const issues = (e as { issues?: unknown }).issues;
    if (Array.isArray(issues)) d.issues = issues as RemoteErrorData['issues'];
    return d;
  }
  return { name: 'Error', message: String(e) };
}

type AnyApi = Record<string, (...args: never[]) => unknown>;

/** Serves `api` on a channel; returns a function that drops every subscription (also run on close). */
export function serveApi(api: object, channel: Channel, opts: { onError?: (member: string, e: unknown) => void } = {}): () => void {
  const impl = api as AnyApi;
  const subs = new Map<number, Unsubscribe>();
  const reply = (msg: BridgeMessage) => {
    try {
      channel.send(msg);
    } catch (e) {
      opts.onError?.('send', e);
    }
  };
  const dispose = () => {
    for (const u of subs.values()) u();
    subs.clear();
    offMessage();
    offClose();
  };
  const offMessage = channel.onMessage((msg) => {
    switch (msg.t) {
      case 'call': {
        void (async () => {
          try {
            if (isEventName(msg.m) || !isApiMember(msg.m) || typeof impl[msg.m] !== 'function') throw Object.assign(new Error(`No API method ${JSON.stringify(msg.m)}`), { name: 'ApiMethodError' });
            const input = parseInput(msg.m, msg.a);
            const fn = impl[msg.m] as (input: unknown) => Promise<unknown>;
            reply({ t: 'ret', id: msg.id, v: await fn.call(api, input) });
          } catch (e) {
            if (!(e instanceof Error && (e.name === 'ApiInputError' || e.name === 'ApiMethodError'))) opts.onError?.(msg.m, e);
            reply({ t: 'err', id: msg.id, e: errorData(e) });
          }
        })();
        return;
      }
      case 'sub': {
        try {
          if (!isEventName(msg.m) || !isApiMember(msg.m) || typeof impl[msg.m] !== 'function') throw Object.assign(new Error(`No API event ${JSON.stringify(msg.m)}`), { name: 'ApiMethodError' });
          const input = parseInput(msg.m, msg.a);
          const lossy = LOSSY_EVENTS.has(msg.m);
          const subscribe = impl[msg.m] as (input: unknown, l: (v: unknown) => void) => Unsubscribe;
          subs.get(msg.id)?.();
          subs.set(msg.id, subscribe.call(api, input, (v) => {
            if (lossy && channel.ready && !channel.ready()) return;
            reply({ t: 'ev', id: msg.id, v });
          }));
        } catch (e) {
          reply({ t: 'err', id: msg.id, e: errorData(e) });
        }
        return;
      }
      case 'unsub':
        subs.get(msg.id)?.();
        subs.delete(msg.id);
        return;
      default:
        return; // replies are not for the serving side
    }
  });
  const offClose = channel.onClose(dispose);
  return dispose;
}

