import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import type { WebSocket } from 'ws';
import { startWorkerThread } from '../threads/pool.js';
import type { FromWorker, ToWorker, WorkerConfig } from '../threads/protocol.js';
import { MAX_MODEL_ARCHIVE, unpackModelFolder } from './model-folder.js';
import {
  decodeToServer, encodeFrame, FILE_PREFIX, FOLDER_PREFIX, frameBytes, keepAlive, mapPolicyFiles, ROLLOUT_PROTOCOL_VERSION, type FromServer, type ToServer,
} from './wire.js';

/**
 * The server's end of `/rollout` (wire.ts): each connection gets a worker thread running worker.ts with the config of
 * its opening frame, at most `limit` at once (one SimDroid each, so the CPUs a Ray actor declares). The thread's
 * messages go back as they come; its death is an `exit` frame; a closed connection terminates the thread. Policy files
 * sent ahead of a job land in a folder of this host's own, under their content hash. So do transformer model folders
 * (one archive each, checked by model-folder.ts before any worker reads them; a bad one is refused in one line), shared
 * by every connection: a folder this host already holds is not unpacked again, and only the last `keepFolders` used
 * stay (a GRPO run sends a new model each iteration). Nothing is recorded here: the driver keeps the one trajectory store.
 */
export interface RolloutHostOptions {
  limit: number;
  log: (m: string) => void;
  /** The worker script (tests substitute one that crashes on purpose). */
  entry?: URL;
  /** Ping interval towards drivers (default 10 s). */
  keepAliveMs?: number;
  /** The largest model folder archive accepted (default MAX_MODEL_ARCHIVE). */
  maxFolderBytes?: number;
  /** Model folders kept, the most recently used (default 4). */
  keepFolders?: number;
}

/** How long a new connection may take to send its opening frame. */
const START_TIMEOUT_MS = 30_000;

export class RolloutHost {
  private readonly workers = new Set<Worker>();
  /** Connections holding a worker: the limit counts these (a thread still stopping after its connection closed does not). */
  private readonly holding = new Set<WebSocket>();
  private readonly sockets = new Set<WebSocket>();
  private filesDir: string | null = null;
  private readonly files = new Map<string, string>();
  /** Model folders held, by archive sha256, least recently used first. */
  private readonly folders: string[] = [];

  constructor(private readonly opts: RolloutHostOptions) {}

  /** Connections with a running worker. */
  get active(): number {
    return this.holding.size;
  }

  accept(ws: WebSocket): void {
    this.sockets.add(ws);
    const send = (f: FromServer) => {
      if (ws.readyState === ws.OPEN) ws.send(encodeFrame(f));
    };
    const refuse = (reason: string) => {
      send({ kind: 'refused', reason });
      ws.close(1008, reason.slice(0, 120));
    };
    let worker: Worker | null = null;
    const timer = setTimeout(() => refuse(`no start frame within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
    keepAlive(ws, this.opts.keepAliveMs ?? 10_000);
    ws.on('error', (e) => this.opts.log(`rollout connection: ${e.message}`));
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
      let frame: ToServer;
      try {
        frame = decodeToServer(frameBytes(data));
      } catch (e) {
        return refuse((e as Error).message);
      }
      if (frame.kind === 'start') {
        clearTimeout(timer);
        if (worker) return refuse('a second start frame');
        if (frame.version !== ROLLOUT_PROTOCOL_VERSION) {
          return refuse(`rollout protocol ${JSON.stringify(frame.version)} asked, this server speaks ${ROLLOUT_PROTOCOL_VERSION}: run the same awb version on the driver and the nodes`);
        }
        if (this.holding.size >= this.opts.limit) return refuse(`all ${this.opts.limit} rollout workers of this server are busy`);
        worker = this.start(frame.config, send, ws);
        return;
      }
      if (!worker) return refuse(`${frame.kind} before the start frame`);
      if (frame.kind === 'file' || frame.kind === 'folder') {
        const got = createHash('sha256').update(frame.bytes).digest('hex');
        if (got !== frame.sha256) return refuse(`${frame.kind} ${JSON.stringify(frame.name)}: its bytes hash to ${got}, not ${frame.sha256}`);
        if (frame.kind === 'file') return void this.keepFile(frame);
        try {
          this.keepFolder(frame);
        } catch (e) {
          return refuse((e as Error).message);
        }
        return;
      }
      worker.postMessage(this.localFiles(frame.message));
    });
    ws.on('close', () => {
      clearTimeout(timer);
      this.sockets.delete(ws);
      this.holding.delete(ws);
      if (worker) void worker.terminate();
    });
  }

  /** Ends every connection and worker thread, and removes the received files. */
  async close(): Promise<void> {
    for (const ws of this.sockets) ws.terminate();
    await Promise.all([...this.workers].map((w) => w.terminate()));
    if (this.filesDir) rmSync(this.filesDir, { recursive: true, force: true });
  }

  private start(config: WorkerConfig, send: (f: FromServer) => void, ws: WebSocket): Worker {
    const worker = startWorkerThread(config, this.opts.entry);
    this.workers.add(worker);
    this.holding.add(ws);
    worker.on('message', (m: FromWorker) => send({ kind: 'post', message: m }));
    worker.on('error', (e) => send({ kind: 'error', error: { name: e.name, message: e.message } }));
    worker.on('exit', (code) => {
      this.workers.delete(worker);
      this.holding.delete(ws);
      send({ kind: 'exit', code });
      ws.close(1000);
    });
    return worker;
  }

  private keepFile(f: Extract<ToServer, { kind: 'file' }>): void {
    const name = `${FILE_PREFIX}${f.sha256}/${f.name}`;
    if (this.files.has(name)) return;
    this.filesDir ??= mkdtempSync(join(tmpdir(), 'awb-rollout-files-'));
    // The hash names the folder, the sender's name the file (an ONNX model is known by its extension).
    const dir = join(this.filesDir, f.sha256);
    mkdirSync(dir, { recursive: true });
    const path = join(dir, f.name.replace(/[/\\]/g, '_'));
    writeFileSync(path, f.bytes);
    this.files.set(name, path);
    this.opts.log(`rollout: policy file ${f.name} (${f.bytes.length} bytes, sha256 ${f.sha256}) received for jobs`);
  }

  private keepFolder(f: Extract<ToServer, { kind: 'folder' }>): void {
    const label = `${f.name} (sha256 ${f.sha256.slice(0, 12)})`;
    if (this.folders.includes(f.sha256)) {
      this.useFolder(f.sha256);
      return this.opts.log(`rollout: model folder ${label} already here`);
    }
    this.filesDir ??= mkdtempSync(join(tmpdir(), 'awb-rollout-files-'));
    unpackModelFolder(label, f.bytes, this.folderDir(f.sha256), this.opts.maxFolderBytes ?? MAX_MODEL_ARCHIVE);
    this.folders.push(f.sha256);
    this.opts.log(`rollout: model folder ${f.name} (${f.bytes.length} bytes, sha256 ${f.sha256}) received for jobs`);
    while (this.folders.length > (this.opts.keepFolders ?? 4)) rmSync(this.folderDir(this.folders.shift()!), { recursive: true, force: true });
  }

  private folderDir(sha256: string): string {
    return join(this.filesDir!, 'folders', sha256);
  }

  /** The folder a job names as `awb-folder:<sha256>/<name>` (the name is the sender's, for messages), marked as just used. */
  private useFolder(sha256: string): string | null {
    const i = this.folders.indexOf(sha256);
    if (i < 0) return null;
    this.folders.push(...this.folders.splice(i, 1));
    return this.folderDir(sha256);
  }

  /** A job's policy files by the names they were sent under (an unknown name stays: the job fails naming it). */
  private localFiles(m: ToWorker): ToWorker {
    if (m.type !== 'job') return m;
    return {
      ...m, job: { ...m.job, policy: mapPolicyFiles(m.job.policy, (p, kind) => (kind === 'folder' && p.startsWith(FOLDER_PREFIX)
        ? this.useFolder(p.slice(FOLDER_PREFIX.length).split('/')[0]!) : this.files.get(p)) ?? p) },
    };
  }
}
