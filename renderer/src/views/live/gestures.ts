import type { InputEvent, KeyName } from '../../../../core/api/types.js';

/**
 * Mouse and keyboard on the mirrored screen → device input, as scrcpy maps them: a click taps, a
 * press held still for LONG_PRESS_MS long-presses (for as long as it was held), a drag swipes
 * (taking as long as the drag took). Coordinates are device pixels.
 */
export const LONG_PRESS_MS = 500;
const MAX_MS = 60_000;

export interface PointerSample {
  x: number;
  y: number;
  /** ms, any monotonic clock. */
  t: number;
}

/**
 * `moved`: the pointer left the slop circle at some point of the press (then it is a drag even if
 * it came back).
 */
export function classifyGesture(start: PointerSample, end: PointerSample, moved: boolean): InputEvent {
  const durationMs = Math.max(0, Math.min(MAX_MS, Math.round(end.t - start.t)));
  if (moved) return { kind: 'swipe', x1: start.x, y1: start.y, x2: end.x, y2: end.y, durationMs: Math.max(1, durationMs) };
  if (durationMs >= LONG_PRESS_MS) return { kind: 'long_press', x: start.x, y: start.y, durationMs };
  return { kind: 'tap', x: start.x, y: start.y };
}

/** Whether a point is farther than `slop` device pixels from the press. */
export function beyondSlop(start: PointerSample, p: { x: number; y: number }, slop: number): boolean {
  return Math.hypot(p.x - start.x, p.y - start.y) > slop;
}

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
}

const NAMED_KEYS: Record<string, KeyName> = {
  Enter: 'ENTER', Backspace: 'DEL', Escape: 'BACK', Tab: 'TAB', Home: 'MOVE_HOME', End: 'MOVE_END',
};

/** scrcpy's shortcuts (MOD+b, MOD+h, MOD+s) with Alt as the modifier. */
const ALT_KEYS: Record<string, KeyName> = { b: 'BACK', h: 'HOME', s: 'APP_SWITCH' };

/** The input a key press on the focused screen sends, or null to leave the key to the browser. */
export function keyToInput(e: KeyLike): InputEvent | null {
  if (e.ctrlKey || e.metaKey) return null; // the browser's shortcuts (copy, paste, reload) stay
  if (e.altKey) {
    const k = ALT_KEYS[e.key.toLowerCase()];
    return k ? { kind: 'key', key: k } : null;
  }
  const named = NAMED_KEYS[e.key];
  if (named) return { kind: 'key', key: named };
  // A printable character: one code point (e.key is "Shift", "ArrowUp", … otherwise).
  if ([...e.key].length === 1) return { kind: 'text', text: e.key };
  return null;
}

/** One line describing an input, for the view's "last input" line. */
export function describeInput(e: InputEvent): string {
  switch (e.kind) {
    case 'tap':
      return `tap (${e.x}, ${e.y})`;
    case 'long_press':
      return `long press (${e.x}, ${e.y}) ${e.durationMs} ms`;
    case 'swipe':
      return `swipe (${e.x1}, ${e.y1}) → (${e.x2}, ${e.y2}) ${e.durationMs} ms`;
    case 'text':
      return `text ${JSON.stringify(e.text)}`;
    case 'key':
      return `key ${e.key}`;
  }
}
