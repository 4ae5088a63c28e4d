import type { Element as DomElement } from 'happy-dom';
import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';

/** A page's <canvas> on screen: its box; drags on it become strokes in the canvas's own pixels. */
export function canvasView(_el: DomElement, w: number, h: number, _onStroke: (points: Array<[number, number]>) => void): ViewSpec {
  return { cls: W.View, w, h, style: { border: '#000000' } };
}
