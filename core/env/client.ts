import { WebSocket } from 'ws';
import { decodeMessage } from '../util/wire-codec.js';
import { ENV_PROTOCOL_VERSION } from './protocol.js';

/**
 * A client of the environment protocol in TypeScript (docs/env-protocol.md): the workbench's own tests speak to the
 * server through it, as a driver that gets its environments from remote servers would. Python agents use awb_env.
 */

/** The server answered a request with an error: its name and message as sent. */
export class EnvRequestError extends Error {
  constructor(override readonly name: string, message: string, readonly op: string) {
    super(message);
  }
}

/** The connection closed (or never opened) with requests unanswered. */
export class EnvConnectionError extends Error {
  override name = 'EnvConnectionError';
}

interface Waiting {
  op: string;
  resolve(v: any): void;
  reject(e: Error): void;
}

export class EnvClient {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();
  private readonly events = new Set<(e: Record<string, unknown>) => void>();
  private closedWith: Error | null = null;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      const msg = decodeMessage(isBinary ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : data.toString('utf8')) as Record<string, any>;
      if (typeof msg.id !== 'number') {
        if (msg.event) for (const l of this.events) l(msg);
        return;
      }
      const w = this.waiting.get(msg.id);
      if (!w) return;
      this.waiting.delete(msg.id);
      if (msg.ok) w.resolve(msg.result);
      else w.reject(new EnvRequestError(msg.error.name, msg.error.message, w.op));
    });
    ws.on('close', (code, reason) => {
      this.closedWith = new EnvConnectionError(`the environment server closed the connection (${code}${reason.length ? ` ${reason.toString()}` : ''})`);
      for (const w of this.waiting.values()) w.reject(this.closedWith);
      this.waiting.clear();
    });
  }

  /** Connects and says hello; EnvConnectionError when the server cannot be reached or refuses the token. */
  static async connect(url: string, client = 'awb-ts'): Promise<EnvClient> {
    const ws = new WebSocket(url, { maxPayload: 256 * 1024 * 1024 });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', (e) => reject(new EnvConnectionError(`cannot reach the environment server at ${url.replace(/token=[^&]+/, 'token=…')}: ${e.message}`)));
    });
    const c = new EnvClient(ws);
    await c.request('hello', { protocol: ENV_PROTOCOL_VERSION, client });
    return c;
  }

  request<T = any>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { op, resolve, reject });
      this.ws.send(JSON.stringify({ id, op, ...args }));
    });
  }

  /** Sends a frame as given (tests of the server's refusals). */
  sendRaw(data: string | Buffer): void {
    this.ws.send(data);
  }

  onEvent(listener: (e: Record<string, unknown>) => void): () => void {
    this.events.add(listener);
    return () => this.events.delete(listener);
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close();
    });
  }
}
