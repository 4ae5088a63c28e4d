import type { Observation } from '../device/observation.js';
import { boundsArea, boundsCenter, hitTest, type Bounds, type UiElement } from '../a11y/ui-tree.js';
import type { Action } from './schema.js';

export class ElementIndexError extends Error {
  override name = 'ElementIndexError';
  constructor(readonly index: number, readonly count: number) {
    super(`Element index ${index} is out of range: the screen has ${count} elements (0..${count - 1})`);
  }
}

export class OutOfScreenError extends Error {
  override name = 'OutOfScreenError';
  constructor(readonly x: number, readonly y: number, readonly width: number, readonly height: number) {
    super(`Point (${x}, ${y}) is outside the ${width}x${height} screen`);
  }
}

export class EmptyElementError extends Error {
  override name = 'EmptyElementError';
  constructor(readonly index: number) {
    super(`Element ${index} has empty bounds and cannot be touched`);
  }
}

export function elementAt(obs: Observation, index: number): UiElement {
  const el = obs.elements[index];
  if (!el) throw new ElementIndexError(index, obs.elements.length);
  return el;
}

export function assertOnScreen(obs: Observation, x: number, y: number): void {
  const { width, height } = obs.screen;
  if (!(x >= 0 && y >= 0 && x < width && y < height)) throw new OutOfScreenError(x, y, width, height);
}

/** The point a click / long press / typing action touches, checked against the screen. */
export function targetPoint(obs: Observation, t: { index?: number | undefined; x?: number | undefined; y?: number | undefined }): {
  x: number;
  y: number;
  element: UiElement | undefined;
} {
  if (t.index !== undefined) {
    const el = elementAt(obs, t.index);
    if (boundsArea(el.node.bounds) === 0) throw new EmptyElementError(t.index);
    return { ...boundsCenter(el.node.bounds), element: el };
  }
  const x = Math.round(t.x!);
  const y = Math.round(t.y!);
  assertOnScreen(obs, x, y);
  return { x, y, element: hitTest(obs.elements, x, y) };
}

/**
 * The element an action is about, if any: the indexed element, or the one under the touched point.
 * Used for descriptions and for recording which element an action hit.
 */
export function actionElement(action: Action, obs: Observation): UiElement | undefined {
  switch (action.action_type) {
    case 'click':
    case 'long_press':
    case 'double_tap':
      return targetPoint(obs, action).element;
    case 'scroll':
    case 'input_text':
      return action.index === undefined ? undefined : elementAt(obs, action.index);
    case 'swipe':
      return hitTest(obs.elements, Math.round(action.start[0]), Math.round(action.start[1]));
    default:
      return undefined;
  }
}

/** Validates an action against a screen without touching the device (indices in range, points on screen). */
export function validateAgainst(action: Action, obs: Observation): void {
  switch (action.action_type) {
    case 'click':
    case 'long_press':
    case 'double_tap':
      targetPoint(obs, action);
      return;
    case 'scroll':
    case 'input_text':
      if (action.index !== undefined) elementAt(obs, action.index);
      return;
    case 'swipe':
      assertOnScreen(obs, Math.round(action.start[0]), Math.round(action.start[1]));
      assertOnScreen(obs, Math.round(action.end[0]), Math.round(action.end[1]));
      return;
    default:
      return;
  }
}

/** The region a scroll action drags across: the element, or the app's content area. */
export function scrollRegion(obs: Observation, index: number | undefined): Bounds {
  if (index !== undefined) return elementAt(obs, index).node.bounds;
  // The biggest scrollable node on screen is what a person means by "scroll down".
  let best: Bounds | undefined;
  for (const e of obs.elements) {
    if (e.node.scrollable && (!best || boundsArea(e.node.bounds) > boundsArea(best))) best = e.node.bounds;
  }
  if (best) return best;
  const { width, height } = obs.screen;
  return { left: 0, top: Math.round(height * 0.1), right: width, bottom: Math.round(height * 0.9) };
}
