import { z } from 'zod';
import { assertNever } from '../../util/errors.js';
import { VlmCoordinateError } from './errors.js';

/**
 * Where a model's coordinates live, and how they map to device pixels:
 * - `screen`: device pixels (AndroidWorld's x/y, MobileRL's element boxes copied from the tree);
 * - `image`: pixels of the screenshot that was sent (a half-scale screenshot halves them);
 * - `relative-1000`: 0–1000 on both axes (UI-TARS, CogAgent, GLM-4.1V's grounding);
 * - `smart-resize`: pixels of the image after Qwen2.5-VL's `smart_resize` of the sent screenshot,
 *   which is what Qwen2.5-VL and UI-TARS-1.5 see and answer in.
 */
export const COORDINATE_SPACES = ['screen', 'image', 'relative-1000', 'smart-resize'] as const;
export const CoordinateSpace = z.enum(COORDINATE_SPACES);
export type CoordinateSpace = z.infer<typeof CoordinateSpace>;

export interface Size {
  width: number;
  height: number;
}

/** What the parser needs to turn a model's point into a device tap. */
export interface GeometryContext {
  screen: Size;
  /** Size of the screenshot sent (absent: no screenshot, so `image` means the screen). */
  image?: Size | undefined;
  coordinates: CoordinateSpace;
  /** Qwen2.5-VL processor bounds for `smart-resize`. */
  minPixels?: number;
  maxPixels?: number;
}

/** Qwen2.5-VL's image processor defaults (preprocessor_config.json): 56·56 and 12845056 = 16384·28·28 pixels. */
export const QWEN_MIN_PIXELS = 3136;
export const QWEN_MAX_PIXELS = 12_845_056;
const QWEN_FACTOR = 28;

/**
 * Qwen2.5-VL's smart_resize (qwen_vl_utils / transformers Qwen2VLImageProcessor): both sides become
 * multiples of 28, the area is kept within [minPixels, maxPixels] and the aspect ratio about kept.
 *   h̄ = round(h/28)·28, w̄ = round(w/28)·28;
 *   if h̄w̄ > max: β = √(hw/max), h̄ = ⌊h/β/28⌋·28, w̄ = ⌊w/β/28⌋·28;
 *   if h̄w̄ < min: β = √(min/(hw)), h̄ = ⌈hβ/28⌉·28, w̄ = ⌈wβ/28⌉·28.
 */
export function smartResize(size: Size, minPixels = QWEN_MIN_PIXELS, maxPixels = QWEN_MAX_PIXELS): Size {
  const f = QWEN_FACTOR;
  const { width: w, height: h } = size;
  let hb = Math.max(f, Math.round(h / f) * f);
  let wb = Math.max(f, Math.round(w / f) * f);
  if (hb * wb > maxPixels) {
    const beta = Math.sqrt((h * w) / maxPixels);
    hb = Math.max(f, Math.floor(h / beta / f) * f);
    wb = Math.max(f, Math.floor(w / beta / f) * f);
  } else if (hb * wb < minPixels) {
    const beta = Math.sqrt(minPixels / (h * w));
    hb = Math.ceil((h * beta) / f) * f;
    wb = Math.ceil((w * beta) / f) * f;
  }
  return { width: wb, height: hb };
}

/** Width and height from a PNG's IHDR chunk (bytes 16–23), or undefined when it is not a PNG. */
export function pngSize(png: Uint8Array): Size | undefined {
  if (png.length < 24 || png[0] !== 0x89 || png[1] !== 0x50 || png[2] !== 0x4e || png[3] !== 0x47) return undefined;
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}

/** The frame the model's numbers are in: its width and height in model units. */
export function modelFrame(ctx: GeometryContext): Size {
  const image = ctx.image ?? ctx.screen;
  switch (ctx.coordinates) {
    case 'screen':
      return ctx.screen;
    case 'image':
      return image;
    case 'relative-1000':
      return { width: 1000, height: 1000 };
    case 'smart-resize':
      return smartResize(image, ctx.minPixels, ctx.maxPixels);
    default:
      return assertNever(ctx.coordinates, 'coordinate space');
  }
}

/**
 * A model point → device pixels, rounded, checked against the screen. A relative-1000 point of
 * exactly 1000 is the last pixel, not one past it (models say 1000 for the right edge).
 */
export function toScreen(format: string, output: string, point: readonly [number, number], ctx: GeometryContext): [number, number] {
  const frame = modelFrame(ctx);
  const [mx, my] = point;
  if (!Number.isFinite(mx) || !Number.isFinite(my)) throw new VlmCoordinateError(format, output, point, ctx.screen);
  const x = Math.round((mx * ctx.screen.width) / frame.width);
  const y = Math.round((my * ctx.screen.height) / frame.height);
  const clampEdge = (v: number, max: number, m: number, mmax: number) => (m === mmax && v === max ? max - 1 : v);
  const cx = clampEdge(x, ctx.screen.width, mx, frame.width);
  const cy = clampEdge(y, ctx.screen.height, my, frame.height);
  if (cx < 0 || cy < 0 || cx >= ctx.screen.width || cy >= ctx.screen.height) throw new VlmCoordinateError(format, output, point, ctx.screen);
  return [cx, cy];
}

/** Device pixels → the model's frame (rendering actions for history, few-shot samples and fake endpoints). */
export function fromScreen(point: readonly [number, number], ctx: GeometryContext): [number, number] {
  const frame = modelFrame(ctx);
  return [Math.round((point[0] * frame.width) / ctx.screen.width), Math.round((point[1] * frame.height) / ctx.screen.height)];
}
