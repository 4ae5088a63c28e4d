import { encodePngAsync } from '../../../core/util/png-async.js';
import type { SimDroid } from '../simdroid.js';

/** ImageFormat.ImgFormat as the proto loader gives it (enum names). */
export const IMAGE_FORMATS = ['PNG', 'RGBA8888', 'RGB888'] as const;
export type ImageFormatName = (typeof IMAGE_FORMATS)[number];

/** Largest side SimDroid renders for a gRPC screenshot (its own screen limit). */
export const MAX_IMAGE_SIDE = 8192;

export class ImageSizeError extends Error {
  override name = 'ImageSizeError';
  constructor(readonly width: number, readonly height: number, readonly requested: { width: number; height: number }) {
    super(`screenshot of ${width}x${height} (asked ${requested.width}x${requested.height}) exceeds ${MAX_IMAGE_SIDE} pixels a side`);
  }
}

export interface ImageSize {
  width: number;
  height: number;
  /** Device pixels to image pixels. */
  scale: number;
}

/**
 * The emulator's screenshot size: the device's, scaled to fit the requested width and height while
 * keeping the device's aspect ratio (never larger than either); 0 means the device's own size.
 */
export function fitImageSize(screen: { width: number; height: number }, width: number, height: number): ImageSize {
  const boxW = width || screen.width;
  const boxH = height || screen.height;
  const scale = Math.min(boxW / screen.width, boxH / screen.height);
  if (scale === 1) return { width: screen.width, height: screen.height, scale };
  const out = {
    width: Math.max(1, Math.min(boxW, Math.round(screen.width * scale))),
    height: Math.max(1, Math.min(boxH, Math.round(screen.height * scale))),
    scale,
  };
  if (out.width > MAX_IMAGE_SIDE || out.height > MAX_IMAGE_SIDE) throw new ImageSizeError(out.width, out.height, { width, height });
  return out;
}

/** RGBA → RGB, dropping alpha (the screen is opaque). */
function rgbaToRgb(rgba: Buffer): Buffer {
  const n = rgba.length >> 2;
  const out = Buffer.allocUnsafe(n * 3);
  for (let i = 0, j = 0; i < n; i++, j += 3) {
    out[j] = rgba[i * 4]!;
    out[j + 1] = rgba[i * 4 + 1]!;
    out[j + 2] = rgba[i * 4 + 2]!;
  }
  return out;
}

/**
 * The screen's bytes in `format` at `size`, rows top to bottom. Full-size and half-size PNGs come
 * from SimDroid's per-state cache (shared with mirrors and screencap); other sizes are drawn here.
 */
export async function encodeScreen(device: SimDroid, format: ImageFormatName, size: ImageSize): Promise<Buffer> {
  const { width, height } = device.screen;
  if (format === 'PNG' && size.width === width && size.height === height) return device.screenshot({ scale: 1 });
  if (format === 'PNG' && size.width === Math.round(width / 2) && size.height === Math.round(height / 2)) return device.screenshot({ scale: 0.5 });
  const { rgba } = device.screenshotRgba(size.width, size.height, size.scale);
  switch (format) {
    case 'RGBA8888':
      return rgba;
    case 'RGB888':
      return rgbaToRgb(rgba);
    case 'PNG':
      return encodePngAsync(rgba, size.width, size.height);
  }
}
