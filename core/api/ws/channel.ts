import type { WebSocket } from 'ws';
import type { BridgeMessage, Channel } from '../bridge.js';
import { decodeMessage, encodeMessage } from '../../util/wire-codec.js';

/** Mirror frames are skipped while this much is still queued for a slow client. */
const LOSSY_BACKLOG_BYTES = 4 * 1024 * 1024;

function isBridgeMessage(m: unknown): m is BridgeMessage {
  if (!m || typeof m !== 'object') return false;
  const o = m as Record<string, unknown>;
  if (typeof o.id !== 'number' || !Number.isSafeInteger(o.id)) return false;
  switch (o.t) {
    case 'call':
    case 'sub':
      return typeof o.m === 'string' && o.m.length < 100;
    case 'unsub':
      return true;
    default:
      return false;
  }
}

/**
 * One WebSocket connection as a bridge channel. A frame that is not a bridge request (bad JSON,
 * bad binary layout, unknown shape) closes this connection with 1007 and a reason; other
 * connections and the workbench go on.
 */
export function wsChannel(ws: WebSocket, log: (m: string) => void = () => {}): Channel {
  return {
    send(msg) {
      if (ws.readyState !== ws.OPEN) return;
      ws.send(encodeMessage(msg));
    },
    onMessage(listener) {
      const handler = (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
        const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
        let msg: unknown;
        try {
          msg = decodeMessage(isBinary ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : bytes.toString('utf8'));
        } catch (e) {
          log(`websocket: malformed message: ${(e as Error).message}`);
          ws.close(1007, 'malformed message');
          return;
        }
        if (!isBridgeMessage(msg)) {
          log('websocket: not a bridge request');
          ws.close(1007, 'not a bridge request');
          return;
        }
        listener(msg);
      };
      ws.on('message', handler);
      return () => ws.off('message', handler);
    },
    onClose(listener) {
      ws.on('close', listener);
      return () => ws.off('close', listener);
    },
    ready: () => ws.bufferedAmount < LOSSY_BACKLOG_BYTES,
  };
}
