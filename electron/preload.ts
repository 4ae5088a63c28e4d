import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import type { BridgeMessage } from '../core/api/bridge.js';

/**
 * The preload, intentionally thin: it gives the page exactly `window.awb = { send, onMessage }`
 * (renderer/src/api/client.ts `PreloadBridge`) and nothing of Electron or Node. All API semantics
 * live in core's bridge on both ends; this only carries its messages.
 *
 * Sandboxed preloads run as one CommonJS script that may require only 'electron', so this file
 * imports nothing else at run time, and the channel names repeat electron/relay.ts's `IPC` (a test
 * checks they agree). electron/build.mjs compiles it to preload.cjs.
 */
const SEND = 'awb:send';
const MESSAGE = 'awb:message';

/** Drawn once per page, so main can tell a reloaded page from its predecessor (relay.ts). */
const PAGE_ID = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;

const bridge = {
  send(msg: BridgeMessage): void {
    ipcRenderer.send(SEND, PAGE_ID, msg);
  },
  onMessage(listener: (msg: BridgeMessage) => void): () => void {
    if (typeof listener !== 'function') throw new TypeError('awb.onMessage needs a listener function');
    // The IPC event (with its sender) stays here: the page gets the message only.
    const handler = (_event: IpcRendererEvent, msg: BridgeMessage) => listener(msg);
    ipcRenderer.on(MESSAGE, handler);
    return () => {
      ipcRenderer.removeListener(MESSAGE, handler);
    };
  },
};

contextBridge.exposeInMainWorld('awb', bridge);
