import type { Element as DomElement } from 'happy-dom';
import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { surfaceOf } from './canvas.js';

/** Touch points of a drag, this far apart at most (CSS px), as Chrome reports touchmoves along a finger's path. */
const STEP_CSS_PX = 4;

/** The points of a drag along a path (CSS px in the element's box), every few px, its ends included. */
export function dragPoints(way: ReadonlyArray<[number, number]>): Array<[number, number]> {
  const out: Array<[number, number]> = way.length ? [way[0]!] : [];
  for (let k = 1; k < way.length; k++) {
    const [a, b] = [way[k - 1]!, way[k]!];
    const n = Math.max(1, Math.ceil(Math.hypot(b[0] - a[0], b[1] - a[1]) / STEP_CSS_PX));
    for (let i = 1; i <= n; i++) out.push([a[0] + ((b[0] - a[0]) * i) / n, a[1] + ((b[1] - a[1]) * i) / n]);
  }
  return out;
}

/** The PNG of a surface, kept while the page's event count stays the same (the picture decodes once per change). */
const pictures = new WeakMap<object, { version: number; png: Buffer }>();

/**
 * A page's <canvas> on screen: what it has drawn (its Skia surface) in its box; a drag on it (the
 * finger's path, as fractions of the box) is a stroke of touch points in the box's CSS pixels.
 */
export function canvasView(
  el: DomElement, css: { w: number; h: number }, scale: number, o: { resourceId?: string; key: string; version: number },
  onStroke: (points: Array<[number, number]>, box: [number, number]) => void,
): ViewSpec {
  const surface = surfaceOf(el);
  const spec: ViewSpec = {
    cls: W.View, w: Math.round(css.w * scale), h: Math.round(css.h * scale), style: { border: '#000000' },
    onDrag: (fractions) => {
      const way: Array<[number, number]> = [];
      for (let i = 0; i + 1 < fractions.length; i += 2) way.push([fractions[i]! * css.w, fractions[i + 1]! * css.h]);
      onStroke(dragPoints(way), [css.w, css.h]);
    },
  };
  if (surface) {
    spec.image = {
      key: o.key,
      read: () => {
        let p = pictures.get(surface);
        if (!p || p.version !== o.version) {
          p = { version: o.version, png: surface.toBuffer('image/png') };
          pictures.set(surface, p);
        }
        return p.png;
      },
    };
  }
  if (o.resourceId) spec.id = o.resourceId;
  return spec;
}
