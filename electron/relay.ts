import { isBridgeRequest, parseFromHost, type ToHost } from '../core/api/ipc/channel.js';

/**
 * The main process's whole share of the API: one generic relay between renderer windows and the
 * API host process. It never decodes a call (no per-method code): a renderer's bridge message goes
 * to the host in an envelope naming the page's connection, and the host's replies and events go
 * back to that window only.
 *
 * Every page (document) gets its own connection: the preload tags each message with an id it draws
 * once per page, so a reloaded page never receives the replies meant for its predecessor, however
 * the IPC and navigation events interleave. A connection is closed (its subscriptions dropped in the
 * host) when its window is destroyed, when the window starts navigating to a new document, or when
 * a new page of the window speaks.
 */
export const IPC = {
  /** renderer → main: `(pageId, bridge message)` (preload's `awb.send`). */
  send: 'awb:send',
  /** main → renderer: one bridge message (preload's `awb.onMessage`). */
  message: 'awb:message',
} as const;

/** The parts of Electron's WebContents the relay uses. */
export interface RelayContents {
  readonly id: number;
  send(channel: string, ...args: unknown[]): void;
  isDestroyed(): boolean;
  once(event: 'destroyed', listener: () => void): unknown;
  on(event: 'did-start-navigation', listener: (details: { isMainFrame: boolean; isSameDocument: boolean }) => void): unknown;
}

export interface RelayEvent {
  sender: RelayContents;
}

/** The parts of ipcMain the relay uses. */
export interface RelayIpc<E> {
  on(channel: string, listener: (event: E, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: E, ...args: unknown[]) => void): unknown;
}

/** The API host process (host-process.ts). */
export interface RelayHost {
  postMessage(m: ToHost): void;
  onMessage(listener: (m: unknown) => void): () => void;
}

export interface RelayOptions<E extends RelayEvent> {
  ipc: RelayIpc<E>;
  host: RelayHost;
  /** Only the app's own top-level page may talk to the API (not a subframe, not another origin). */
  isTrustedSender: (event: E) => boolean;
  log?: (message: string) => void;
}

export interface Relay {
  /** The connection serving this window's current page, if it has talked to the API. */
  connectionOf(contentsId: number): number | undefined;
  dispose(): void;
}

const isPageId = (p: unknown): p is string => typeof p === 'string' && p.length > 0 && p.length <= 64;

export function createRelay<E extends RelayEvent>(opts: RelayOptions<E>): Relay {
  const log = opts.log ?? (() => {});
  let nextConn = 1;
  const pageOfContents = new Map<number, { page: string; conn: number }>();
  const contentsOfConn = new Map<number, RelayContents>();
  const watched = new WeakSet<RelayContents>();

  const closeConnection = (contents: RelayContents) => {
    const current = pageOfContents.get(contents.id);
    if (!current) return;
    pageOfContents.delete(contents.id);
    contentsOfConn.delete(current.conn);
    opts.host.postMessage({ conn: current.conn, close: true });
  };

  const connectionFor = (contents: RelayContents, page: string): number => {
    const current = pageOfContents.get(contents.id);
    if (current?.page === page) return current.conn;
    if (current) closeConnection(contents); // a new page of this window: its predecessor is gone
    const conn = nextConn++;
    pageOfContents.set(contents.id, { page, conn });
    contentsOfConn.set(conn, contents);
    if (!watched.has(contents)) {
      watched.add(contents);
      contents.once('destroyed', () => closeConnection(contents));
      contents.on('did-start-navigation', (d) => {
        if (d.isMainFrame && !d.isSameDocument) closeConnection(contents);
      });
    }
    return conn;
  };

  const onSend = (event: E, page: unknown, msg: unknown) => {
    if (!opts.isTrustedSender(event)) return log('ignored an API message from a page that is not the app');
    if (!isPageId(page) || !isBridgeRequest(msg)) return log('ignored a malformed API message from a window');
    opts.host.postMessage({ conn: connectionFor(event.sender, page), msg });
  };
  const listener = onSend as (event: E, ...args: unknown[]) => void;
  opts.ipc.on(IPC.send, listener);

  const offHost = opts.host.onMessage((raw) => {
    const m = parseFromHost(raw);
    if (!m || !('conn' in m)) return; // ready/fatal are main.ts's business
    const contents = contentsOfConn.get(m.conn);
    if (contents && !contents.isDestroyed()) contents.send(IPC.message, m.msg);
  });

  return {
    connectionOf: (id) => pageOfContents.get(id)?.conn,
    dispose: () => {
      opts.ipc.removeListener(IPC.send, listener);
      offHost();
      for (const c of [...contentsOfConn.values()]) closeConnection(c);
    },
  };
}
