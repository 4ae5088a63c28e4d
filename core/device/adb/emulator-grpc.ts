import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/**
 * A client of the Android Emulator's gRPC API (`emulator -grpc PORT`; SimDroid serves the same):
 * `EmulatorController` (status, screenshots and their stream, touch and key input) and
 * `SnapshotService`. The proto files are data read by path from emulators/simdroid/grpc/proto
 * (the emulator's own package, services and field numbers), so real emulators and SimDroid speak
 * the same wire format. The token of an emulator started with `-grpc-use-token` travels as
 * `authorization: Bearer <token>` on every call, as Android Studio and the emulator's tools send it.
 */
export const EMULATOR_PROTO_DIR = fileURLToPath(new URL('../../../emulators/simdroid/grpc/proto', import.meta.url));

export interface GrpcEndpoint {
  host: string;
  port: number;
  token?: string | undefined;
}

export const endpointAddress = (e: GrpcEndpoint): string => `${e.host}:${e.port}`;

export class EmulatorGrpcError extends Error {
  override name = 'EmulatorGrpcError';
  readonly codeName: string;
  constructor(readonly endpoint: string, readonly method: string, readonly code: grpc.status, readonly details: string) {
    const codeName = grpc.status[code] ?? String(code);
    super(`emulator gRPC ${endpoint} ${method}: ${codeName}${details ? `: ${details}` : ''}`);
    this.codeName = codeName;
  }
}

/** Codes that mean "this endpoint cannot be used" (callers fall back to adb), not "this request was wrong". */
export const UNUSABLE_CODES: ReadonlySet<grpc.status> = new Set([
  grpc.status.UNAVAILABLE, grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED,
  grpc.status.DEADLINE_EXCEEDED, grpc.status.UNIMPLEMENTED, grpc.status.CANCELLED,
]);

export const isUnusable = (e: unknown): boolean => e instanceof EmulatorGrpcError && UNUSABLE_CODES.has(e.code);

// ------------------------------------------------------------------ request shapes (proto field names)

export type ImageFormatName = 'PNG' | 'RGBA8888' | 'RGB888';
export type KeyEventType = 'keydown' | 'keyup' | 'keypress';

export interface ImageFormatRequest { format: ImageFormatName; width: number; height: number; display: number }
export interface TouchRequest { touches: Array<{ x: number; y: number; identifier: number; pressure: number }>; display: number }
export interface KeyRequest { codeType: 'Usb' | 'Evdev' | 'XKB' | 'Win' | 'Mac'; eventType: KeyEventType; keyCode: number; key: string; text: string }
export interface SnapshotRequest { snapshot_id: string }

/** ImageFormat: width/height 0 = the display's size; otherwise an upper bound, the aspect ratio kept. */
export function imageFormatRequest(format: ImageFormatName, width = 0, height = 0): ImageFormatRequest {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 0 || height < 0) throw new RangeError(`image size must be whole pixels ≥ 0, got ${width}x${height}`);
  return { format, width, height, display: 0 };
}

export interface TouchPoint { x: number; y: number; identifier?: number; pressure: number }

/** TouchEvent: each finger by its identifier; pressure > 0 puts it down or moves it, 0 lifts it. */
export function touchRequest(points: TouchPoint[]): TouchRequest {
  return { touches: points.map((p) => ({ x: Math.round(p.x), y: Math.round(p.y), identifier: p.identifier ?? 0, pressure: Math.max(0, Math.round(p.pressure)) })), display: 0 };
}

/** KeyboardEvent: a W3C key name ('GoBack', 'Enter'), text to type, or an evdev key code. */
export type KeyInput =
  | { kind: 'key'; key: string; eventType?: KeyEventType }
  | { kind: 'text'; text: string }
  | { kind: 'evdev'; keyCode: number; eventType?: KeyEventType };

export function keyRequest(k: KeyInput): KeyRequest {
  const base: KeyRequest = { codeType: 'Usb', eventType: 'keypress', keyCode: 0, key: '', text: '' };
  switch (k.kind) {
    case 'key':
      return { ...base, key: k.key, eventType: k.eventType ?? 'keypress' };
    case 'text':
      return { ...base, text: k.text };
    case 'evdev':
      return { ...base, codeType: 'Evdev', keyCode: k.keyCode, eventType: k.eventType ?? 'keypress' };
  }
}

// ------------------------------------------------------------------ replies

export interface EmulatorStatus {
  version: string;
  /** Milliseconds since the emulator started. */
  uptimeMs: number;
  booted: boolean;
  /** hardwareConfig entries (hw.lcd.width, hw.lcd.height, hw.lcd.density, …). */
  hardware: Record<string, string>;
}

export interface EmulatorImage {
  format: ImageFormatName;
  width: number;
  height: number;
  data: Buffer;
  seq: number;
  timestampUs: number;
}

interface RawImage {
  format?: { format?: ImageFormatName; width?: number; height?: number } | null;
  width?: number;
  height?: number;
  image?: Buffer;
  seq?: number;
  timestampUs?: number;
}

export function imageFromReply(r: RawImage): EmulatorImage {
  // The sizes live in the image's format; the top-level width/height are deprecated duplicates.
  return {
    format: r.format?.format ?? 'PNG',
    width: r.format?.width || r.width || 0,
    height: r.format?.height || r.height || 0,
    data: r.image ?? Buffer.alloc(0),
    seq: r.seq ?? 0,
    timestampUs: r.timestampUs ?? 0,
  };
}

interface SnapshotReply { snapshot_id?: string; success?: boolean; err?: Buffer }
interface SnapshotListReply { snapshots?: Array<{ snapshot_id?: string }> }

// ------------------------------------------------------------------ the proto, loaded once

type Unary = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r: unknown) => void) => grpc.ClientUnaryCall;
type ServerStream = (req: unknown, md: grpc.Metadata, opts: grpc.CallOptions) => grpc.ClientReadableStream<unknown>;
type Stub = grpc.Client & Record<string, Unary | ServerStream>;
type StubClass = new (address: string, creds: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => Stub;

export interface EmulatorProto {
  definition: protoLoader.PackageDefinition;
  EmulatorController: StubClass;
  SnapshotService: StubClass;
}

const protos = new Map<string, EmulatorProto>();

/** Loads the proto files (keeping the protos' own field names, enums as names, 64-bit ints as numbers). */
export function loadEmulatorProto(dir = EMULATOR_PROTO_DIR): EmulatorProto {
  let p = protos.get(dir);
  if (!p) {
    const definition = protoLoader.loadSync(['emulator_controller.proto', 'snapshot_service.proto'], {
      includeDirs: [dir], keepCase: true, longs: Number, enums: String, defaults: true,
    });
    const pkg = grpc.loadPackageDefinition(definition) as unknown as { android: { emulation: { control: Record<string, StubClass> } } };
    const ns = pkg.android.emulation.control;
    p = { definition, EmulatorController: ns.EmulatorController!, SnapshotService: ns.SnapshotService! };
    protos.set(dir, p);
  }
  return p;
}

// ------------------------------------------------------------------ the client

export interface ScreenshotStream {
  cancel(): void;
  /** Resolves when cancelled or when the server ends the stream; rejects with EmulatorGrpcError. */
  done: Promise<void>;
}

export interface ClientOptions {
  /** Per-call deadline (default 10 s); streams have none. */
  timeoutMs?: number;
  protoDir?: string;
}

export class EmulatorGrpcClient {
  readonly address: string;
  private readonly controller: Stub;
  private readonly snapshots: Stub;
  private readonly timeoutMs: number;

  private constructor(readonly endpoint: GrpcEndpoint, opts: ClientOptions) {
    this.address = endpointAddress(endpoint);
    this.timeoutMs = opts.timeoutMs ?? 10_000;
    const proto = loadEmulatorProto(opts.protoDir);
    // A full-size RGBA frame (1080×2400) is 10 MB, over gRPC's 4 MB default.
    const channel = { 'grpc.max_receive_message_length': 256 * 1024 * 1024 };
    this.controller = new proto.EmulatorController(this.address, grpc.credentials.createInsecure(), channel);
    this.snapshots = new proto.SnapshotService(this.address, grpc.credentials.createInsecure(), channel);
  }

  /** A client whose channel is up (rejects with EmulatorGrpcError UNAVAILABLE when nothing answers in time). */
  static async connect(endpoint: GrpcEndpoint, opts: ClientOptions & { connectTimeoutMs?: number } = {}): Promise<EmulatorGrpcClient> {
    const c = new EmulatorGrpcClient(endpoint, opts);
    const deadline = Date.now() + (opts.connectTimeoutMs ?? 3000);
    try {
      // Watched by state rather than waitForReady: a refused connection fails now, not at the deadline.
      const channel = c.controller.getChannel();
      await new Promise<void>((resolve, reject) => {
        const check = (): void => {
          const state = channel.getConnectivityState(true);
          if (state === grpc.connectivityState.READY) return resolve();
          if (state === grpc.connectivityState.TRANSIENT_FAILURE || state === grpc.connectivityState.SHUTDOWN) return reject(new Error('cannot connect'));
          channel.watchConnectivityState(state, deadline, (e) => (e ? reject(new Error(`no connection within ${opts.connectTimeoutMs ?? 3000} ms`)) : check()));
        };
        check();
      });
    } catch (e) {
      c.close();
      throw new EmulatorGrpcError(c.address, 'connect', grpc.status.UNAVAILABLE, (e as Error).message);
    }
    return c;
  }

  private metadata(): grpc.Metadata {
    const md = new grpc.Metadata();
    if (this.endpoint.token) md.set('authorization', `Bearer ${this.endpoint.token}`);
    return md;
  }

  private unary<T>(stub: Stub, method: string, req: unknown): Promise<T> {
    return new Promise((resolve, reject) => {
      (stub[method] as Unary).call(stub, req, this.metadata(), { deadline: Date.now() + this.timeoutMs }, (e, r) => {
        if (e) reject(new EmulatorGrpcError(this.address, method, e.code, e.details));
        else resolve(r as T);
      });
    });
  }

  async getStatus(): Promise<EmulatorStatus> {
    const r = await this.unary<{ version?: string; uptime?: number; booted?: boolean; hardwareConfig?: { entry?: Array<{ key: string; value: string }> } }>(this.controller, 'getStatus', {});
    return {
      version: r.version ?? '', uptimeMs: r.uptime ?? 0, booted: r.booted ?? false,
      hardware: Object.fromEntries((r.hardwareConfig?.entry ?? []).map((e) => [e.key, e.value])),
    };
  }

  async getScreenshot(format: ImageFormatName, width = 0, height = 0): Promise<EmulatorImage> {
    return imageFromReply(await this.unary<RawImage>(this.controller, 'getScreenshot', imageFormatRequest(format, width, height)));
  }

  /** A frame each time the display changes (the first at once). */
  streamScreenshot(format: ImageFormatName, width: number, height: number, onImage: (img: EmulatorImage) => void): ScreenshotStream {
    const call = (this.controller.streamScreenshot as ServerStream).call(this.controller, imageFormatRequest(format, width, height), this.metadata(), {});
    let cancelled = false;
    const done = new Promise<void>((resolve, reject) => {
      call.on('data', (r: RawImage) => { if (!cancelled) onImage(imageFromReply(r)); });
      call.on('end', () => resolve());
      call.on('error', (e: grpc.ServiceError) => {
        if (cancelled && e.code === grpc.status.CANCELLED) resolve();
        else reject(new EmulatorGrpcError(this.address, 'streamScreenshot', e.code, e.details));
      });
    });
    return { cancel: () => { cancelled = true; call.cancel(); }, done };
  }

  async sendTouch(points: TouchPoint[]): Promise<void> {
    await this.unary(this.controller, 'sendTouch', touchRequest(points));
  }

  async sendKey(k: KeyInput): Promise<void> {
    await this.unary(this.controller, 'sendKey', keyRequest(k));
  }

  /** The snapshot calls answer success=false with a reason in err for an unknown name; that throws. */
  private async snapshot(method: 'LoadSnapshot' | 'SaveSnapshot' | 'DeleteSnapshot', name: string): Promise<void> {
    let r: SnapshotReply;
    try {
      r = await this.unary<SnapshotReply>(this.snapshots, method, { snapshot_id: name } satisfies SnapshotRequest);
    } catch (e) {
      // NOT_FOUND, INVALID_ARGUMENT, …: the request was refused, the endpoint works.
      if (e instanceof EmulatorGrpcError && !isUnusable(e)) throw new EmulatorSnapshotError(this.address, method, name, `${e.codeName}: ${e.details}`);
      throw e;
    }
    if (!r.success) throw new EmulatorSnapshotError(this.address, method, name, r.err?.length ? r.err.toString('utf8') : 'failed');
  }

  loadSnapshot(name: string): Promise<void> { return this.snapshot('LoadSnapshot', name); }
  saveSnapshot(name: string): Promise<void> { return this.snapshot('SaveSnapshot', name); }
  deleteSnapshot(name: string): Promise<void> { return this.snapshot('DeleteSnapshot', name); }

  async listSnapshots(): Promise<string[]> {
    const r = await this.unary<SnapshotListReply>(this.snapshots, 'ListSnapshots', { statusFilter: 'All' });
    return (r.snapshots ?? []).map((s) => s.snapshot_id ?? '').filter(Boolean);
  }

  close(): void {
    this.controller.close();
    this.snapshots.close();
  }
}

/** A snapshot call the emulator refused (an unknown name, a failed save), with its reason. */
export class EmulatorSnapshotError extends Error {
  override name = 'EmulatorSnapshotError';
  constructor(readonly endpoint: string, readonly method: string, readonly snapshot: string, readonly reason: string) {
    super(`emulator gRPC ${endpoint} ${method} ${JSON.stringify(snapshot)}: ${reason}`);
  }
}
