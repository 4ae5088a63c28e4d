import type { Bounds, StoredStep, Trajectory } from '../../../../core/api/types.js';
import { nodeLabel, type ParsedTree } from './tree-model.js';

/**
 * What the replay viewer draws over a stored screenshot. Screenshots may be recorded at half size;
 * overlays are in device pixels and Screen scales both to the device size, so nothing here depends
 * on the image's resolution.
 */
export interface Size {
  width: number;
  height: number;
}

export interface Marker {
  x: number;
  y: number;
  x2?: number;
  y2?: number;
}

/** A box as Screen draws it (declared here so this file stays free of JSX for the Node-side type check). */
export interface OverlayBox {
  bounds: Bounds;
  kind: 'target' | 'candidate';
  label?: string;
}

export const DEFAULT_DEVICE: Size = { width: 1080, height: 2400 };

/** A PNG's size from its IHDR chunk, or null for bytes that are not a PNG. */
export function pngSize(png: Uint8Array | null | undefined): Size | null {
  if (!png || png.length < 24 || png[1] !== 0x50 || png[2] !== 0x4e || png[3] !== 0x47) return null;
  const v = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: v.getUint32(16), height: v.getUint32(20) };
}

/**
 * The device size overlays are measured in: the episode's recorded device; else the tree's root
 * bounds (uiautomator roots span the screen); else the image's own size.
 */
export function deviceSize(t: Trajectory | null, tree: ParsedTree | null, png: Uint8Array | null): Size {
  const d = t?.episode.device;
  if (d && d.width > 0 && d.height > 0) return { width: d.width, height: d.height };
  const b = tree?.roots[0]?.bounds;
  if (b && b.right > 0 && b.bottom > 0) return { width: b.right, height: b.bottom };
  return pngSize(png) ?? DEFAULT_DEVICE;
}

type Loose = Record<string, unknown>;
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function asAction(a: unknown): Loose | null {
  if (a && typeof a === 'object' && !Array.isArray(a)) return a as Loose;
  if (typeof a === 'string') {
    try {
      return asAction(JSON.parse(a));
    } catch {
      return null;
    }
  }
  return null;
}

const center = (b: Bounds) => ({ x: Math.round((b.left + b.right) / 2), y: Math.round((b.top + b.bottom) / 2) });

/** A tap or a swipe line for actions given in coordinates (and scrolls, drawn as the drag they become). */
export function actionMarker(action: unknown, target: Bounds | null, device: Size): Marker | null {
  const a = asAction(action);
  if (!a) return null;
  switch (a.action_type) {
    case 'click':
    case 'long_press':
      if (num(a.x) && num(a.y)) return { x: a.x, y: a.y };
      return target ? center(target) : null;
    case 'swipe': {
      const s = a.start;
      const e = a.end;
      if (Array.isArray(s) && Array.isArray(e) && [s[0], s[1], e[0], e[1]].every(num)) {
        return { x: s[0] as number, y: s[1] as number, x2: e[0] as number, y2: e[1] as number };
      }
      return null;
    }
    case 'scroll': {
      // As the executor does it: "down" reveals what is below, so the finger moves up, over 60% of the region.
      const b = target ?? { left: 0, top: 0, right: device.width, bottom: device.height };
      const { x, y } = center(b);
      const dx = Math.round((b.right - b.left) * 0.3);
      const dy = Math.round((b.bottom - b.top) * 0.3);
      switch (a.direction) {
        case 'down': return { x, y: y + dy, x2: x, y2: y - dy };
        case 'up': return { x, y: y - dy, x2: x, y2: y + dy };
        case 'right': return { x: x + dx, y, x2: x - dx, y2: y };
        case 'left': return { x: x - dx, y, x2: x + dx, y2: y };
        default: return null;
      }
    }
    default:
      return null;
  }
}

/** The element an action names by index, from the tree it was chosen on. */
export function indexBounds(action: unknown, tree: ParsedTree | null): Bounds | null {
  const a = asAction(action);
  if (!a || !num(a.index) || !tree) return null;
  return tree.nodes[a.index]?.bounds ?? null;
}

/** The step's overlay: its target element as a box and, for coordinate actions, a marker. */
export function stepOverlay(step: StoredStep | null, tree: ParsedTree | null, device: Size): { boxes: OverlayBox[]; marker: Marker | null } {
  if (!step) return { boxes: [], marker: null };
  const action = step.action ?? step.raw;
  const bounds = step.target?.bounds ?? indexBounds(action, tree);
  const boxes: OverlayBox[] = bounds ? [{ bounds, kind: 'target', label: step.target?.label ?? step.description ?? '' }] : [];
  const a = asAction(action);
  // A box already shows an element tap; the marker is for points, swipes and scrolls.
  const pointed = a && (num(a.x) || a.action_type === 'swipe' || a.action_type === 'scroll');
  return { boxes, marker: pointed ? actionMarker(action, bounds, device) : null };
}

function quote(s: string, max = 40): string {
  return JSON.stringify(s.length > max ? `${s.slice(0, max - 1)}…` : s);
}

/** One line for an action (candidates are stored without descriptions), naming its element from the tree. */
export function summarizeAction(action: unknown, tree: ParsedTree | null = null): string {
  const a = asAction(action);
  if (!a || typeof a.action_type !== 'string') return typeof action === 'string' ? action : JSON.stringify(action) ?? String(action);
  const el = num(a.index) ? tree?.nodes[a.index] : undefined;
  const on = num(a.index) ? ` #${a.index}${el && nodeLabel(el) ? ` ${quote(nodeLabel(el))}` : ''}` : num(a.x) && num(a.y) ? ` (${Math.round(a.x)}, ${Math.round(a.y)})` : '';
  switch (a.action_type) {
    case 'click': return `tap${on}`;
    case 'long_press': return `long-press${on}`;
    case 'scroll': return `scroll ${String(a.direction)}${on}`;
    case 'swipe': return `swipe ${JSON.stringify(a.start)} → ${JSON.stringify(a.end)}`;
    case 'input_text': return `type ${quote(String(a.text))}${on ? ` into${on}` : ''}`;
    case 'open_app': return `open ${String(a.app_name)}`;
    case 'answer': return `answer ${quote(String(a.text))}`;
    case 'status': return `status: ${String(a.goal_status)}`;
    case 'wait': return `wait ${num(a.seconds) ? a.seconds : 1} s`;
    default: return a.action_type.replace(/_/g, ' ');
  }
}

/** The line the step list and the diff show for a step. */
export function stepLine(step: StoredStep): string {
  return step.description ?? summarizeAction(step.action ?? step.raw);
}
