import type { WorkbenchApi } from '../../../core/api/api.js';
import { connectApi, type BridgeMessage, type Channel } from '../../../core/api/bridge.js';
import { decodeMessage, encodeMessage } from '../../../core/util/wire-codec.js';

/**
 * The renderer's API: the same WorkbenchApi proxy whether the page runs inside Electron (through
 * the preload's bridge) or in a browser against `awb serve` (a WebSocket). Nothing above this file
 * knows which.
 */
export interface PreloadBridge {
  send(msg: BridgeMessage): void;
  onMessage(listener: (msg: BridgeMessage) => void): () => void;
}

declare global {
  interface Window {
    /** Set by electron/preload.ts; absent in a browser. */
    awb?: PreloadBridge;
  }
}

export type ConnectionState = 'connecting' | 'open' | 'closed';

function electronChannel(bridge: PreloadBridge): Channel {
  return {
    send: (m) => bridge.send(m),
    onMessage: (l) => bridge.onMessage(l),
    onClose: () => () => {},
  };
}

/** A WebSocket to /api on the page's own origin; the session cookie authenticates it. */
function webSocketChannel(onState: (s: ConnectionState) => void): Channel {
  const url = new URL('api', window.location.href);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.search = '';
  const ws = new WebSocket(url);
  ws.binaryType = 'arraybuffer';
  const queue: Array<string | Uint8Array> = [];
  const messageListeners = new Set<(m: BridgeMessage) => void>();
  const closeListeners = new Set<() => void>();
  ws.addEventListener('open', () => {
    onState('open');
    for (const q of queue.splice(0)) ws.send(q);
  });
  ws.addEventListener('message', (ev: MessageEvent<string | ArrayBuffer>) => {
    const msg = decodeMessage(typeof ev.data === 'string' ? ev.data : new Uint8Array(ev.data)) as BridgeMessage;
    messageListeners.forEach((l) => l(msg));
  });
  ws.addEventListener('close', () => {
    onState('closed');
    closeListeners.forEach((l) => l());
  });
  return {
    send: (m) => {
      const data = encodeMessage(m);
      if (ws.readyState === WebSocket.OPEN) ws.send(data);
      else if (ws.readyState === WebSocket.CONNECTING) queue.push(data);
      else throw new Error('The connection to the workbench is closed: reload the page');
    },
    onMessage: (l) => (messageListeners.add(l), () => messageListeners.delete(l)),
    onClose: (l) => (closeListeners.add(l), () => closeListeners.delete(l)),
  };
}

/** A subscription the server refused (bad input, a device that went away): shown like a failed call. */
export type SubscriptionErrorHandler = (member: string, e: Error) => void;

export function connectWorkbench(onState: (s: ConnectionState) => void = () => {}, onSubscriptionError: SubscriptionErrorHandler = () => {}): WorkbenchApi {
  const opts = { onSubscriptionError };
  if (window.awb) {
    onState('open');
    return connectApi<WorkbenchApi>(electronChannel(window.awb), opts);
  }
  onState('connecting');
  return connectApi<WorkbenchApi>(webSocketChannel(onState), opts);
}
