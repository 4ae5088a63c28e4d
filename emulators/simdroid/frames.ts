import { FrameListeners, type Frame, type FrameSource } from '../../core/device/frames.js';
import type { SimDroid } from './simdroid.js';

/**
 * Mirroring SimDroid: a frame is rendered when the screen changes (not polled), at most `maxFps`
 * times a second; a burst of changes becomes one frame showing the latest state.
 */
export class SimDroidFrameSource implements FrameSource {
  readonly kind = 'push';
  private readonly listeners = new FrameListeners();
  private unsubscribe: (() => void) | null = null;
  private timer: NodeJS.Timeout | null = null;
  private pendingSince: number | null = null;
  private lastEmit = 0;
  private seq = 0;

  constructor(private readonly device: SimDroid, private readonly opts: { maxFps?: number; scale?: 1 | 0.5 } = {}) {}

  onFrame(listener: (f: Frame) => void): () => void {
    return this.listeners.add(listener);
  }

  start(): void {
    if (this.unsubscribe) return;
    this.unsubscribe = this.device.onChanged(() => this.schedule());
    this.pendingSince = Date.now();
    this.schedule();
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private schedule(): void {
    this.pendingSince ??= Date.now();
    if (this.timer) return;
    const gap = 1000 / Math.max(1, this.opts.maxFps ?? 60);
    const wait = Math.max(0, this.lastEmit + gap - performance.now());
    // Render after the current input finishes, so the frame shows its result.
    this.timer = setTimeout(() => this.render(), wait);
  }

  private render(): void {
    this.timer = null;
    if (!this.unsubscribe) return;
    const changedAt = this.pendingSince ?? Date.now();
    this.pendingSince = null;
    // The frame interval counts from when rendering starts: a render as long as the interval
    // still allows maxFps (counting from its end halved the rate at 60 fps).
    this.lastEmit = performance.now();
    const png = this.device.screenshotSync(this.opts.scale ?? 0.5);
    this.listeners.emit({ png, path: 'push', seq: ++this.seq, at: Date.now(), changedAt });
  }
}
