import type { Bounds } from '../../../../core/api/types.js';
import type { FlatNode } from './hit-test.js';

/**
 * Where an action touches the screen, for drawing it: a point (a tap at x/y) or a finger path (a
 * swipe, or a scroll as core/actions/execute.ts performs it: "down" drags the finger up). Element
 * actions are drawn from their target box instead, so they give nothing here.
 */
export type Gesture = { kind: 'point'; x: number; y: number } | { kind: 'path'; x1: number; y1: number; x2: number; y2: number };

type Loose = Record<string, unknown>;
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

const area = (b: Bounds) => (b.right - b.left) * (b.bottom - b.top);

/** The region a scroll without an index acts on: the biggest scrollable node, else most of the screen (as the core picks it). */
function scrollRegion(screen: { width: number; height: number }, flat: readonly FlatNode[] | null): Bounds {
  let best: Bounds | null = null;
  for (const e of flat ?? []) if (e.node.scrollable && (!best || area(e.node.bounds) > area(best))) best = e.node.bounds;
  return best ?? { left: 0, top: Math.round(screen.height * 0.1), right: screen.width, bottom: Math.round(screen.height * 0.9) };
}

export function gestureOf(action: unknown, target: Bounds | null, screen: { width: number; height: number }, flat: readonly FlatNode[] | null = null): Gesture | null {
  if (!action || typeof action !== 'object') return null;
  const a = action as Loose;
  switch (a.action_type) {
    case 'click':
    case 'long_press':
      return num(a.x) && num(a.y) ? { kind: 'point', x: a.x, y: a.y } : null;
    case 'swipe': {
      const s = a.start, e = a.end;
      if (!Array.isArray(s) || !Array.isArray(e) || !num(s[0]) || !num(s[1]) || !num(e[0]) || !num(e[1])) return null;
      return { kind: 'path', x1: s[0], y1: s[1], x2: e[0], y2: e[1] };
    }
    case 'scroll': {
      const b = target ?? scrollRegion(screen, flat);
      const x = (b.left + b.right) / 2, y = (b.top + b.bottom) / 2;
      const dx = (b.right - b.left) * 0.3, dy = (b.bottom - b.top) * 0.3;
      switch (a.direction) {
        case 'down': return { kind: 'path', x1: x, y1: y + dy, x2: x, y2: y - dy };
        case 'up': return { kind: 'path', x1: x, y1: y - dy, x2: x, y2: y + dy };
        case 'right': return { kind: 'path', x1: x + dx, y1: y, x2: x - dx, y2: y };
        case 'left': return { kind: 'path', x1: x - dx, y1: y, x2: x + dx, y2: y };
        default: return null;
      }
    }
    default:
      return null;
  }
}

/** The action's type, or null for something that is not an action object. */
export function actionType(action: unknown): string | null {
  return action && typeof action === 'object' && typeof (action as Loose).action_type === 'string' ? ((action as Loose).action_type as string) : null;
}
