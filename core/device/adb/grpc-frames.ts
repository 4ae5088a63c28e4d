import type { Device } from '../device.js';
import { assertNever } from '../../util/errors.js';
import { FrameListeners, PollingFrameSource, type Frame, type FrameSource, type MirrorOptions } from '../frames.js';
import { encodePngAsync } from '../../util/png-async.js';
import type { EmulatorImage, ScreenshotStream } from './emulator-grpc.js';
import type { EmulatorGrpcLink } from './grpc-link.js';

/**
 * Mirroring an emulator through `streamScreenshot`: the emulator pushes a frame when its display
 * changes, at the size asked for (half size: it scales). 'grpc-png' (the default, the fastest in
 * BENCHMARKS.md) asks it for PNG and passes the bytes on; 'grpc-rgba' asks for RGBA and encodes
 * the PNG here on the thread pool, the latest frame winning while one is being encoded. Without a
 * usable gRPC endpoint, when the stream fails, or with 'adb-polling', it polls screencap
 * (PollingFrameSource), a failure's reason logged once. Each frame says which path it took.
 */
export class EmulatorFrameSource implements FrameSource {
  private readonly listeners = new FrameListeners();
  private polling: PollingFrameSource | null = null;
  private stream: ScreenshotStream | null = null;
  private running = false;
  private seq = 0;
  private pending: EmulatorImage | null = null;
  private encoding = false;
  private lastEmit = 0;

  constructor(private readonly device: Device, private readonly link: EmulatorGrpcLink, private readonly opts: MirrorOptions = {}) {}

  get kind(): 'push' | 'poll' {
    return this.polling ? 'poll' : 'push';
  }

  onFrame(listener: (f: Frame) => void): () => void {
    return this.listeners.add(listener);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.open();
  }

  stop(): void {
    this.running = false;
    this.stream?.cancel();
    this.stream = null;
    this.polling?.stop();
  }

  private async open(): Promise<void> {
    const mirror = this.opts.emulator ?? 'grpc-png';
    if (mirror === 'adb-polling') return this.poll();
    const client = await this.link.client();
    if (!this.running) return;
    if (!client) return this.poll();
    let width = 0;
    let height = 0;
    if ((this.opts.scale ?? 0.5) === 0.5) {
      const s = await this.device.screenInfo();
      width = Math.floor(s.width / 2);
      height = Math.floor(s.height / 2);
    }
    if (!this.running) return;
    const stream = client.streamScreenshot(streamFormat(mirror), width, height, (img) => this.received(img));
    this.stream = stream;
    stream.done.then(
      () => { if (this.running && this.stream === stream) this.fallBack('the stream ended'); },
      (e: Error) => { if (this.running && this.stream === stream) this.fallBack(e.message); },
    );
  }

  private fallBack(reason: string): void {
    this.stream = null;
    this.link.drop(`streamScreenshot: ${reason}`);
    this.poll();
  }

  private poll(): void {
    if (!this.running || this.polling) return;
    this.polling = new PollingFrameSource(this.device, this.opts);
    this.polling.onFrame((f) => this.listeners.emit({ ...f, seq: ++this.seq }));
    this.polling.start();
  }

  private received(img: EmulatorImage): void {
    // An inactive display sends an empty image: nothing to show.
    if (!img.width || !img.height || img.data.length === 0) return;
    if (img.format === 'RGBA8888' && img.data.length < img.width * img.height * 4) return;
    this.pending = img;
    void this.pump();
  }

  /** Encodes the newest frame, at most `fps` a second (default 30), one at a time. */
  private async pump(): Promise<void> {
    if (this.encoding) return;
    this.encoding = true;
    try {
      while (this.pending && this.running) {
        const wait = 1000 / Math.max(0.1, this.opts.fps ?? 30) - (performance.now() - this.lastEmit);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const img = this.pending;
        this.pending = null;
        if (!img) break;
        const png = img.format === 'PNG' ? img.data : await encodePngAsync(img.data, img.width, img.height);
        this.lastEmit = performance.now();
        if (!this.running) break;
        const frame: Frame = { png, path: 'grpc-stream', seq: ++this.seq, at: Date.now() };
        // timestampUs is the host's clock when the emulator took the frame; used only if it is one.
        const changedAt = img.timestampUs / 1000;
        if (Math.abs(changedAt - frame.at) < 60_000) frame.changedAt = Math.round(changedAt);
        this.listeners.emit(frame);
      }
    } finally {
      this.encoding = false;
    }
  }
}

function streamFormat(mirror: 'grpc-png' | 'grpc-rgba'): 'PNG' | 'RGBA8888' {
  switch (mirror) {
    case 'grpc-png':
      return 'PNG';
    case 'grpc-rgba':
      return 'RGBA8888';
    default:
      return assertNever(mirror, 'emulator mirror');
  }
}
