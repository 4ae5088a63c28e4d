import { createHash } from 'node:crypto';
import type { Device } from './device.js';

/**
 * Frames for mirroring a device's screen. SimDroid pushes a frame when its screen changes
 * (emulators/simdroid/frames.ts); an adb device is polled with screencap at a set rate, or, when
 * it is an emulator with a gRPC endpoint, streamed (adb/grpc-frames.ts; docs/devices.md).
 */
/**
 * How a device's frames reach the workbench, shown in the Live view: SimDroid's own push (in
 * process), an emulator's gRPC `streamScreenshot`, or screencap polled over adb.
 */
export type FramePath = 'push' | 'grpc-stream' | 'polling';

export interface Frame {
  png: Buffer;
  path: FramePath;
  seq: number;
  /** When the frame was captured (epoch ms). */
  at: number;
  /** When the change it shows happened, if the source knows (push sources): latency = at - changedAt. */
  changedAt?: number;
}

export interface FrameSource {
  readonly kind: 'push' | 'poll';
  start(): void;
  stop(): void;
  onFrame(listener: (f: Frame) => void): () => void;
}

export class FrameListeners {
  private readonly set = new Set<(f: Frame) => void>();
  add(l: (f: Frame) => void): () => void {
    this.set.add(l);
    return () => this.set.delete(l);
  }
  emit(f: Frame): void {
    for (const l of this.set) l(f);
  }
}

export interface PollingOptions {
  /** Screenshots per second to try for (default 5). */
  fps?: number;
  scale?: 1 | 0.5;
}

/**
 * How an emulator with a gRPC endpoint is mirrored: its stream in PNG (the emulator encodes, the
 * bytes are passed on as they came), its stream in RGBA (PNG-encoded here), or no stream
 * (screencap polled over adb). BENCHMARKS.md, "The Live view over gRPC", compares them.
 */
export const EMULATOR_MIRRORS = ['grpc-png', 'grpc-rgba', 'adb-polling'] as const;
export type EmulatorMirror = (typeof EMULATOR_MIRRORS)[number];

export interface MirrorOptions extends PollingOptions {
  /** Default 'grpc-png'. */
  emulator?: EmulatorMirror;
}

/** Polls `screenshot()`; emits only frames that differ from the last one. */
export class PollingFrameSource implements FrameSource {
  readonly kind = 'poll';
  private readonly listeners = new FrameListeners();
  private running = false;
  private seq = 0;
  private lastHash = '';
  /** Screenshots that failed (device busy or gone); polling goes on. */
  errors = 0;

  constructor(private readonly device: Device, private readonly opts: PollingOptions = {}) {}

  onFrame(listener: (f: Frame) => void): () => void {
    return this.listeners.add(listener);
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    void this.loop();
  }

  stop(): void {
    this.running = false;
  }

  private async loop(): Promise<void> {
    const interval = 1000 / Math.max(0.1, this.opts.fps ?? 5);
    while (this.running) {
      const t = performance.now();
      try {
        const png = await this.device.screenshot({ scale: this.opts.scale ?? 0.5 });
        const hash = createHash('sha1').update(png).digest('hex');
        if (hash !== this.lastHash && this.running) {
          this.lastHash = hash;
          this.listeners.emit({ png, path: 'polling', seq: ++this.seq, at: Date.now() });
        }
      } catch {
        this.errors++;
      }
      const wait = interval - (performance.now() - t);
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }
}
