import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { WebSocket } from 'ws';
import type { RolloutWorker } from '../threads/pool.js';
import { packModelFolder, type PackedModelFolder } from './model-folder.js';
import type { ToWorker, WorkerConfig } from '../threads/protocol.js';
import {
  decodeFromServer, encodeFrame, FILE_PREFIX, FOLDER_PREFIX, frameBytes, keepAlive, mapPolicyFiles, MAX_ROLLOUT_FRAME, ROLLOUT_PROTOCOL_VERSION, serverLabel,
  type FromServer, type ToServer,
} from './wire.js';

/**
 * A rollout worker on another machine (docs/ray.md): the driver's end of one `/rollout` connection, behind the
 * interface WorkerPool needs of a worker thread (message / error / exit events, postMessage, terminate), so the pool's
 * scheduling, recording and crash handling apply unchanged. The server runs worker.ts in a thread of its own for the
 * connection. A connection that drops without the server's `exit` frame is the worker's death: an 'error' naming
 * the server, then 'exit'; `lost` says whether the server itself looked gone (refused or cut off), so a caller can
 * stop sending workers there.
 *
 * Policy files a job names by path (a checkpoint, adapters, an ONNX model) go to the server once per connection,
 * under their content hash: the driver's paths need not exist on the worker's machine. A transformer model folder goes
 * as one archive (model-folder.ts), once per connection and content: a GRPO run's jobs of one iteration send that
 * iteration's model once, and a model that did not change is not sent again.
 */

export interface RemoteWorkerOptions {
  /** Ping interval; a ping unanswered by the next one drops the connection (default 10 s). */
  keepAliveMs?: number;
}

/**
 * How a connection ended: the worker thread exited (the server said so), this end terminated it, the server refused it,
 * or the connection failed or was cut (the server, or its machine, is gone).
 */
export type RemoteWorkerEnd =
  | { kind: 'exited'; code: number }
  | { kind: 'terminated' }
  | { kind: 'refused'; reason: string }
  | { kind: 'lost'; reason: string; opened: boolean };

export class RemoteWorkerError extends Error {
  override name = 'RemoteWorkerError';
  constructor(readonly server: string, readonly reason: string) {
    super(`rollout server ${server}: ${reason}`);
  }
}

export class RemoteWorker extends EventEmitter implements RolloutWorker {
  /** `host:port` of the server (its URL carries the token). */
  readonly server: string;
  private readonly ws: WebSocket;
  private readonly queued: Buffer[] = [];
  private opened = false;
  private endedAs: RemoteWorkerEnd | null = null;
  private readonly closed: Promise<void>;
  /** Files sent on this connection: local path → the name the server knows it by. */
  private readonly files = new Map<string, string>();
  /** Model folder archives sent on this connection, by sha256. */
  private readonly folders = new Set<string>();

  constructor(url: string, config: WorkerConfig, opts: RemoteWorkerOptions = {}) {
    super();
    this.server = serverLabel(url);
    this.ws = new WebSocket(url, { perMessageDeflate: false, maxPayload: MAX_ROLLOUT_FRAME });
    this.ws.binaryType = 'nodebuffer';
    this.send({ kind: 'start', version: ROLLOUT_PROTOCOL_VERSION, config });
    let lostReason = 'the connection closed';
    this.ws.on('open', () => {
      this.opened = true;
      for (const b of this.queued.splice(0)) this.ws.send(b);
      keepAlive(this.ws, opts.keepAliveMs ?? 10_000);
    });
    this.ws.on('unexpected-response', (_req, res) => {
      lostReason = `HTTP ${res.statusCode} ${res.statusMessage ?? ''}`.trim();
      this.endedAs = { kind: 'refused', reason: lostReason };
      this.ws.terminate();
    });
    this.ws.on('error', (e) => (lostReason = e.message));
    this.ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => this.receive(frameBytes(data)));
    this.closed = new Promise((resolve) => this.ws.once('close', (code, reason) => {
      const end = this.endedAs ?? { kind: 'lost', reason: `${lostReason} (${code}${reason.length ? ` ${reason.toString()}` : ''})`, opened: this.opened };
      this.endedAs = end;
      if (end.kind === 'refused' || end.kind === 'lost') this.emit('error', new RemoteWorkerError(this.server, end.kind === 'refused' ? `refused: ${end.reason}` : `connection lost: ${end.reason}`));
      this.emit('exit', end.kind === 'exited' ? end.code : 1);
      resolve();
    }));
  }

  /** How the connection ended (null while it is open). */
  get end(): RemoteWorkerEnd | null {
    return this.endedAs;
  }

  postMessage(m: ToWorker): void {
    if (m.type === 'job') {
      const policy = mapPolicyFiles(m.job.policy, (path, kind) => (kind === 'folder' ? this.shipFolder(path) : this.shipFile(path)));
      this.send({ kind: 'post', message: { ...m, job: { ...m.job, policy } } });
    } else this.send({ kind: 'post', message: m });
  }

  async terminate(): Promise<number> {
    if (this.ws.readyState !== WebSocket.CLOSED) {
      this.endedAs ??= { kind: 'terminated' };
      this.ws.terminate();
    }
    await this.closed;
    return this.endedAs?.kind === 'exited' ? this.endedAs.code : 1;
  }

  private send(frame: ToServer): void {
    const bytes = encodeFrame(frame);
    if (this.opened) this.ws.send(bytes);
    else if (this.ws.readyState === WebSocket.CONNECTING) this.queued.push(bytes);
  }

  /** Sends a file once and returns the name a job gives it; an unreadable file goes as its path (the job then fails there, naming it). */
  private shipFile(path: string): string {
    let name = this.files.get(path);
    if (name !== undefined) return name;
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch {
      return path;
    }
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    name = `${FILE_PREFIX}${sha256}/${basename(path)}`;
    this.send({ kind: 'file', sha256, name: basename(path), bytes });
    this.files.set(path, name);
    return name;
  }

  /** Sends a model folder's archive unless this connection has it, and returns the name a job gives it; a folder that cannot be packed goes as its path (the job then fails there, naming it). */
  private shipFolder(path: string): string {
    let folder: PackedModelFolder;
    try {
      folder = packModelFolder(path);
    } catch {
      return path;
    }
    if (!this.folders.has(folder.sha256)) {
      this.send({ kind: 'folder', sha256: folder.sha256, name: folder.name, bytes: folder.bytes });
      this.folders.add(folder.sha256);
    }
    return `${FOLDER_PREFIX}${folder.sha256}/${folder.name}`;
  }

  private receive(data: Buffer): void {
    let frame: FromServer;
    try {
      frame = decodeFromServer(data);
    } catch (e) {
      this.endedAs = { kind: 'lost', reason: (e as Error).message, opened: true };
      return void this.ws.terminate();
    }
    switch (frame.kind) {
      case 'post':
        this.emit('message', frame.message);
        return;
      case 'error':
        this.emit('error', Object.assign(new Error(frame.error.message), { name: frame.error.name }));
        return;
      case 'exit':
        this.endedAs = { kind: 'exited', code: frame.code };
        return;
      case 'refused':
        this.endedAs = { kind: 'refused', reason: frame.reason };
        return;
    }
  }
}
