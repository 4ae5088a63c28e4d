import { createCanvas, type Canvas } from '@napi-rs/canvas';
import type { ICanvasAdapter } from 'happy-dom';

/**
 * Canvas 2D for pages, drawn by Skia (@napi-rs/canvas, the rasterizer SimDroid's screens use): a
 * page's <canvas> gets a real 2D context, so what it draws can be read back (getImageData) and shown.
 * One surface per element, sized by its width/height attributes when first asked for.
 */
const surfaces = new WeakMap<object, Canvas>();

export function surfaceOf(canvasElement: object): Canvas | undefined {
  return surfaces.get(canvasElement);
}

function surface(el: { width: number; height: number }): Canvas {
  let c = surfaces.get(el);
  if (!c) {
    c = createCanvas(Math.max(1, el.width || 300), Math.max(1, el.height || 150));
    surfaces.set(el, c);
  }
  return c;
}

export const canvasAdapter: ICanvasAdapter = {
  getContext: (caller, type) => (type === '2d' ? (surface(caller.canvas).getContext('2d') as never) : null),
  toDataURL: (caller, type) => surface(caller.canvas).toDataURL(type === 'image/jpeg' ? 'image/jpeg' : 'image/png'),
  toBlob: (_caller, callback) => callback(null),
};
