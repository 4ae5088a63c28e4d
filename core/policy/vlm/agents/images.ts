import { pngSize, type Size } from '../geometry.js';
import type { SentImage } from './types.js';

/**
 * The size an official agent resizes a screenshot to before sending it (OSWorld's UI-TARS agents, MobileRL's
 * deployment): over maxPixels, scaled by √(max/(w·h)) with each side truncated (Python's int()); under minPixels,
 * scaled by √(min/(w·h)) with each side rounded up. Within the bounds it is sent as it is.
 */
export function agentImageSize(size: Size, minPixels: number, maxPixels: number): Size | undefined {
  const { width: w, height: h } = size;
  if (w * h > maxPixels) {
    const f = Math.sqrt(maxPixels / (w * h));
    return { width: Math.trunc(w * f), height: Math.trunc(h * f) };
  }
  if (w * h < minPixels) {
    const f = Math.sqrt(minPixels / (w * h));
    return { width: Math.ceil(w * f), height: Math.ceil(h * f) };
  }
  return undefined;
}

/**
 * The screenshot as the agent sends it. A resize is drawn with the canvas library's bilinear filter: the size is the
 * official one, the pixels are close to (not equal to) PIL's resize; the trainer resizes the stored screenshot with
 * PIL (vlm_samples.py), so what it trains on is the official agent's image.
 */
export async function sentImage(png: Uint8Array, minPixels: number, maxPixels: number): Promise<SentImage> {
  const size = pngSize(png);
  const target = size ? agentImageSize(size, minPixels, maxPixels) : undefined;
  if (!target) return { png };
  const { loadImage, createCanvas } = await import('@napi-rs/canvas');
  const img = await loadImage(Buffer.from(png.buffer, png.byteOffset, png.byteLength));
  const c = createCanvas(target.width, target.height);
  c.getContext('2d').drawImage(img, 0, 0, target.width, target.height);
  return { png: await c.encode('png'), width: target.width, height: target.height };
}
