import { deserialize, serialize } from 'node:v8';
import type { WebSocket } from 'ws';
import type { PolicySpec } from '../../policy/registry.js';
import { assertNever, WorkbenchError } from '../../util/errors.js';
import type { FromWorker, ToWorker, WorkerConfig } from '../threads/protocol.js';

/**
 * The remote rollout worker's wire (docs/ray.md): the worker-thread protocol of threads/protocol.ts carried over a
 * WebSocket at `/rollout` of an environment server (`awb env serve`), one connection per worker. Each binary frame is
 * one message in V8's serialization format, the structured-clone format `postMessage` between threads uses, so typed
 * arrays (model parameters, feature matrices) and screenshot bytes cross as they are. Both ends run this repository's
 * code; the version in the opening frame makes a mismatch one clear refusal.
 *
 * Driver → server: `start` once (the worker's config), then `post` (a ToWorker message), `file` (a policy file a
 * job names, sent before the job, which then names it `awb-file:<sha256>/<name>`) and `folder` (a transformer model
 * folder as one tar archive, model-folder.ts; the job names it `awb-folder:<sha256>/<name>`). Server → driver: `post` (a
 * FromWorker message), `error` (the worker thread's uncaught error), `exit` (the thread ended; the server then closes
 * the socket), or `refused` (and the socket closes).
 */
export const ROLLOUT_PROTOCOL_VERSION = 3; // 2: 'builtin-adapted-sample' jobs and the model's adapters; 3: model folders, 'transformer-sample' jobs

/** The largest frame either end accepts: a step with a full-size screenshot is ~1 MB, a model's parameters a few. */
export const MAX_ROLLOUT_FRAME = 256 * 1024 * 1024;

export type ToServer =
  | { kind: 'start'; version: number; config: WorkerConfig }
  | { kind: 'post'; message: ToWorker }
  | { kind: 'file'; sha256: string; name: string; bytes: Uint8Array }
  /** `sha256` of the archive `bytes`; `name` the folder's last path segment. */
  | { kind: 'folder'; sha256: string; name: string; bytes: Uint8Array };

export type FromServer =
  | { kind: 'post'; message: FromWorker }
  | { kind: 'error'; error: { name: string; message: string } }
  | { kind: 'exit'; code: number }
  | { kind: 'refused'; reason: string };

export class RolloutFrameError extends WorkbenchError {
  override name = 'RolloutFrameError';
  constructor(readonly detail: string) {
    super(`Bad rollout frame: ${detail}`);
  }
}

export function encodeFrame(frame: ToServer | FromServer): Buffer {
  return serialize(frame);
}

const TO_SERVER = new Set<string>(['start', 'post', 'file', 'folder']);
const FROM_SERVER = new Set<string>(['post', 'error', 'exit', 'refused']);

function decode(data: Buffer, kinds: Set<string>): unknown {
  let frame: unknown;
  try {
    frame = deserialize(data);
  } catch (e) {
    throw new RolloutFrameError(`not V8-serialized data (${data.length} bytes): ${(e as Error).message}`);
  }
  const kind = typeof frame === 'object' && frame !== null ? (frame as { kind?: unknown }).kind : undefined;
  if (typeof kind !== 'string' || !kinds.has(kind)) throw new RolloutFrameError(`unknown kind ${JSON.stringify(kind ?? typeof frame)}`);
  return frame;
}

/** A frame from the driver (the server's side); its kind is checked, its content is the worker protocol's. */
export const decodeToServer = (data: Buffer): ToServer => decode(data, TO_SERVER) as ToServer;
/** A frame from a server (the driver's side). */
export const decodeFromServer = (data: Buffer): FromServer => decode(data, FROM_SERVER) as FromServer;

/** A WebSocket message as one Buffer (ws hands fragmented messages over as a list). */
export function frameBytes(data: Buffer | ArrayBuffer | Buffer[]): Buffer {
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.isBuffer(data) ? data : Buffer.from(data);
}

/** `host:port` of a server URL, for messages: never its query, which carries the token. */
export function serverLabel(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(bad URL)';
  }
}

/**
 * Pings the peer every `intervalMs` and drops a connection whose last ping went unanswered: a machine that vanished
 * (power, network) leaves no FIN behind, so without this the other end would wait on it forever.
 */
export function keepAlive(ws: WebSocket, intervalMs: number): void {
  let answered = true;
  ws.on('pong', () => (answered = true));
  const timer = setInterval(() => {
    if (!answered) return void ws.terminate();
    answered = false;
    ws.ping();
  }, intervalMs);
  timer.unref();
  ws.once('close', () => clearInterval(timer));
}

/** A policy file a job names by path, sent to the server under its content hash. */
export const FILE_PREFIX = 'awb-file:';
/** A model folder a job names by path, sent to the server as one archive under the archive's hash. */
export const FOLDER_PREFIX = 'awb-folder:';

/**
 * The same spec with every file and folder path it names mapped by `f` (checkpoints, adapters, ONNX models, the
 * transformer policy's model folders, and those of a replay's `then`); other specs come back as they are.
 */
export function mapPolicyFiles(spec: PolicySpec, f: (path: string, kind: 'file' | 'folder') => string): PolicySpec {
  const file = (p: string) => f(p, 'file');
  switch (spec.name) {
    case 'builtin':
      return { ...spec, checkpoint: file(spec.checkpoint) };
    case 'builtin-adapted':
      return { ...spec, checkpoint: file(spec.checkpoint), adapters: spec.adapters.map(file) };
    case 'onnx':
      return { ...spec, model: file(spec.model) };
    case 'replay':
      return spec.then ? { ...spec, then: mapPolicyFiles(spec.then, f) } : spec;
    case 'transformer': case 'transformer-sample':
      return { ...spec, model: f(spec.model, 'folder') };
    // No files: a VLM's endpoint is reached over the network from wherever the episode runs.
    case 'oracle': case 'random': case 'manual': case 'builtin-sample': case 'builtin-adapted-sample': case 'vlm': case 'vlm-replay':
      return spec;
    default:
      return assertNever(spec, 'policy spec');
  }
}
