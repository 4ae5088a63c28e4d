import { z } from 'zod';
import { assertNever } from '../../util/errors.js';
import { VlmCoordinateError } from './errors.js';

/**
 * Where a model's coordinates live, and how they map to device pixels:
 * - `screen`: device pixels (AndroidWorld's x/y, MobileRL's element boxes copied from the tree);
 * - `image`: pixels of the screenshot that was sent (a half-scale screenshot halves them);
 * - `relative-1000`: 0–1000 on both axes (UI-TARS, CogAgent, GLM-4.1V's grounding);
 * - `relative-999`: 0–999 on both axes, mapped by x·W/999 (MobileRL's released AndroidWorld
 *   configuration, `is_relative_bbox`; its element bounds are written as ⌊x·999/W⌋);
 * - `smart-resize`: pixels of the image after Qwen2.5-VL's `smart_resize` of the sent screenshot,
 *   which is what Qwen2.5-VL and UI-TARS-1.5 see and answer in.
 */
export const COORDINATE_SPACES = ['screen', 'image', 'relative-1000', 'relative-999', 'smart-resize'] as const;
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

/** Longest side over shortest side that smart_resize accepts (qwen_vl_utils MAX_RATIO). */
export const QWEN_MAX_RATIO = 200;

/** A size smart_resize refuses (qwen_vl_utils raises ValueError), or one it would shrink to a zero side. */
export class SmartResizeError extends Error {
  override name = 'SmartResizeError';
  constructor(readonly size: Size, readonly minPixels: number, readonly maxPixels: number, reason: string) {
    super(`smart_resize of ${size.width}x${size.height} (pixels ${minPixels}–${maxPixels}): ${reason}`);
  }
}

/** Python's round(): halves go to the even neighbour (round(2.5) = 2), unlike Math.round. */
function roundHalfEven(x: number): number {
  const f = Math.floor(x);
  const d = x - f;
  if (d !== 0.5) return d < 0.5 ? f : f + 1;
  return f % 2 === 0 ? f : f + 1;
}

/**
 * Qwen2.5-VL's smart_resize (qwen_vl_utils.smart_resize, factor 28 = patch 14 · merge 2): both sides
 * become multiples of 28, the area is kept within [minPixels, maxPixels] and the aspect ratio about kept.
 *   h̄ = max(28, round(h/28)·28), w̄ = max(28, round(w/28)·28)   (round: Python's, half to even);
 *   if h̄w̄ > max: β = √(hw/max), h̄ = ⌊h/β/28⌋·28, w̄ = ⌊w/β/28⌋·28;
 *   if h̄w̄ < min: β = √(min/(hw)), h̄ = ⌈hβ/28⌉·28, w̄ = ⌈wβ/28⌉·28.
 * SmartResizeError where qwen_vl_utils raises (aspect ratio over 200, min above max) or would give a zero side.
 */
export function smartResize(size: Size, minPixels = QWEN_MIN_PIXELS, maxPixels = QWEN_MAX_PIXELS): Size {
  const f = QWEN_FACTOR;
  const { width: w, height: h } = size;
  const refuse = (reason: string): never => {
    throw new SmartResizeError(size, minPixels, maxPixels, reason);
  };
  if (maxPixels < minPixels) refuse('maxPixels is below minPixels');
  if (Math.max(h, w) / Math.min(h, w) > QWEN_MAX_RATIO) refuse(`the aspect ratio is over ${QWEN_MAX_RATIO}`);
  let hb = Math.max(f, roundHalfEven(h / f) * f);
  let wb = Math.max(f, roundHalfEven(w / f) * f);
  if (hb * wb > maxPixels) {
    const beta = Math.sqrt((h * w) / maxPixels);
    hb = Math.floor(h / beta / f) * f;
    wb = Math.floor(w / beta / f) * f;
  } else if (hb * wb < minPixels) {
    const beta = Math.sqrt(minPixels / (h * w));
    hb = Math.ceil((h * beta) / f) * f;
    wb = Math.ceil((w * beta) / f) * f;
  }
  if (hb === 0 || wb === 0) refuse(`maxPixels is too small for this shape (a side becomes 0)`);
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
    case 'relative-999':
      return { width: 999, height: 999 };
    case 'smart-resize':
      return smartResize(image, ctx.minPixels, ctx.maxPixels);
    default:
      return assertNever(ctx.coordinates, 'coordinate space');
  }
}

/**
 * A model point → device pixels, rounded, checked against the screen. A relative point at the
 * frame's edge (1000, or 999 for relative-999; the resized image's width for smart-resize) is the last
 * pixel, not one past it.
 */
export function toScreen(format: string, output: string, point: readonly [number, number], ctx: GeometryContext): [number, number] {
  const frame = modelFrame(ctx);
  const [mx, my] = point;
  if (!Number.isFinite(mx) || !Number.isFinite(my)) throw new VlmCoordinateError(format, output, point, ctx.screen);
  const x = Math.round((mx * ctx.screen.width) / frame.width);
  const y = Math.round((my * ctx.screen.height) / frame.height);
  // Only a resized or relative frame has an edge value that means the last pixel; in screen or image
  // pixels, W is one past the last (AndroidWorld's x = 1080 on a 1080-wide screen taps off it).
  const edgeIsLast = ctx.coordinates !== 'screen' && ctx.coordinates !== 'image';
  const clampEdge = (v: number, max: number, m: number, mmax: number) => (edgeIsLast && m === mmax && v === max ? max - 1 : v);
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
