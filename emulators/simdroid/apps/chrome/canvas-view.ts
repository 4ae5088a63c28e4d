import type { Element as DomElement } from 'happy-dom';
import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { surfaceOf } from './canvas.js';

/** Touch points of a drag, this far apart at most (CSS px), as Chrome reports touchmoves along a finger's path. */
const STEP_CSS_PX = 4;

/** The points of a straight drag from `a` to `b` (CSS px in the element's box), ends included. */
export function dragPoints(a: [number, number], b: [number, number]): Array<[number, number]> {
  const n = Math.max(1, Math.ceil(Math.hypot(b[0] - a[0], b[1] - a[1]) / STEP_CSS_PX));
  return Array.from({ length: n + 1 }, (_, i) => [a[0] + ((b[0] - a[0]) * i) / n, a[1] + ((b[1] - a[1]) * i) / n] as [number, number]);
}

/**
 * A page's <canvas> on screen: what it has drawn (its Skia surface) in its box; a drag on
 * it is a stroke of touch points in the box's CSS pixels.
 */
export function canvasView(
  el: DomElement, css: { w: number; h: number }, scale: number, resourceId: string | undefined,
  onStroke: (points: Array<[number, number]>, box: [number, number]) => void,
): ViewSpec {
  const surface = surfaceOf(el);
  const spec: ViewSpec = {
    cls: W.View, w: Math.round(css.w * scale), h: Math.round(css.h * scale),
    onDrag: (from, to) => onStroke(dragPoints([from[0] * css.w, from[1] * css.h], [to[0] * css.w, to[1] * css.h]), [css.w, css.h]),
    style: { border: '#000000', ...(surface ? { image: surface } : {}) },
  };
  if (resourceId) spec.id = resourceId;
  return spec;
}
