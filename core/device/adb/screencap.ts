import { halveRgba } from '../../util/png.js';
import { encodePngAsync } from '../../util/png-async.js';

/**
 * Screenshots over adb. `screencap` (raw) sends every pixel and the PNG is encoded here;
 * `screencap -p` has the device encode it. Which is faster depends on the device: an emulator's
 * PNG encoder takes most of a second for a 1080×2400 frame, so raw wins there even though it moves
 * ~10 MB through the adb server; SimDroid encodes a flat-coloured UI frame in a few milliseconds,
 * so PNG wins. 'auto' times one capture of each and keeps the faster.
 */
export type ScreencapFormat = 'raw' | 'png' | 'auto';

export interface Pixels {
  width: number;
  height: number;
  rgba: Uint8Array;
}

/** Parses raw `screencap` output: width, height, format (and a dataspace word on Android 12+), then RGBA. */
export function parseRawScreencap(raw: Buffer): { width: number; height: number; rgba: Buffer } {
  if (raw.length < 12) throw new RangeError(`raw screencap too short: ${raw.length} bytes`);
  const width = raw.readUInt32LE(0);
  const height = raw.readUInt32LE(4);
  const pixels = width * height * 4;
  const header = raw.length - pixels;
  if (header !== 12 && header !== 16) throw new RangeError(`raw screencap: ${raw.length} bytes for ${width}x${height}`);
  const format = raw.readUInt32LE(8);
  // 1 = RGBA_8888, 2 = RGBX_8888 (the fourth byte is padding: made opaque below).
  if (format !== 1 && format !== 2) throw new RangeError(`raw screencap: unsupported pixel format ${format}`);
  const rgba = raw.subarray(header);
  if (format === 2) for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
  return { width, height, rgba };
}

/** Decodes a PNG to RGBA with the canvas library (loaded on first use: only the PNG path needs it). */
async function decodePng(png: Buffer): Promise<Pixels> {
  const { loadImage, createCanvas } = await import('@napi-rs/canvas');
  let img: Awaited<ReturnType<typeof loadImage>>;
  try {
    img = await loadImage(png);
  } catch (e) {
    throw new RangeError(`screencap -p: not a PNG the decoder reads (${png.length} bytes): ${(e as Error).message}`);
  }
  if (!img.width || !img.height) throw new RangeError(`screencap -p: not a PNG the decoder reads (${png.length} bytes)`);
  const c = createCanvas(img.width, img.height);
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  return { width: img.width, height: img.height, rgba: g.getImageData(0, 0, img.width, img.height).data as unknown as Uint8Array };
}

/** A PNG at full or half size from a raw capture (deflated on the thread pool). */
export function pngFromRaw(raw: Buffer, scale: 1 | 0.5): Promise<Buffer> {
  const p: Pixels = parseRawScreencap(raw);
  const out = scale === 0.5 ? halveRgba(p.rgba, p.width, p.height) : p;
  return encodePngAsync(out.rgba, out.width, out.height);
}

/** A PNG at full or half size from the device's PNG (halved the same way as raw pixels are). */
export async function pngFromPng(png: Buffer, scale: 1 | 0.5): Promise<Buffer> {
  if (scale === 1) return png;
  const p = await decodePng(png);
  const half = halveRgba(p.rgba, p.width, p.height);
  return encodePngAsync(half.rgba, half.width, half.height);
}

/** Captures of each format timed before 'auto' settles (the best of them counts: the first is cold). */
const PROBES = 2;

type Format = 'raw' | 'png';
type Scale = 1 | 0.5;

/**
 * The 'auto' choice, made separately for full and half size (halving a device PNG means decoding
 * it here, so the faster format can differ): captures alternate raw, PNG, raw, PNG, each timed end
 * to end (transfer and encoding here); from then on the faster is used. A format whose output
 * cannot be read is not used again at any size.
 */
export class ScreencapChooser {
  private readonly timings = new Map<string, number[]>();
  private readonly failed = new Set<Format>();

  constructor(private readonly preference: ScreencapFormat) {}

  private times(format: Format, scale: Scale): number[] {
    const key = `${format}@${scale}`;
    let t = this.timings.get(key);
    if (!t) this.timings.set(key, (t = []));
    return t;
  }

  /** The format for the next capture at this size. */
  next(scale: Scale): Format {
    return this.chosen(scale) ?? (this.times('raw', scale).length <= this.times('png', scale).length ? 'raw' : 'png');
  }

  /** What captures at this size use once settled (null while still probing). */
  chosen(scale: Scale): Format | null {
    if (this.preference !== 'auto') return this.preference;
    if (this.failed.has('raw')) return 'png';
    if (this.failed.has('png')) return 'raw';
    const raw = this.times('raw', scale);
    const png = this.times('png', scale);
    if (raw.length < PROBES || png.length < PROBES) return null;
    return Math.min(...png) < Math.min(...raw) ? 'png' : 'raw';
  }

  /** Whether another format can be tried after `format` failed to parse. */
  canFallBack(format: Format): boolean {
    return this.preference === 'auto' && !this.failed.has(format === 'raw' ? 'png' : 'raw');
  }

  record(format: Format, scale: Scale, ms: number): void {
    const t = this.times(format, scale);
    if (t.length < PROBES) t.push(ms);
  }

  fail(format: Format): void {
    this.failed.add(format);
  }
}
