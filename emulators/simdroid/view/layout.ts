import { insets, W, type ViewSpec } from './spec.js';
import { lineHeight, textWidth, wrapText } from './text-metrics.js';

/** A rectangle in dp, absolute on the screen. */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Per-window state the layout reads: form fields, scroll offsets, the focused field. */
export interface ViewState {
  fields: Record<string, string>;
  scroll: Record<string, number>;
  focus: string | null;
  /**
   * The focused field's selection as UTF-16 offsets [start, end) into its text; start === end is a
   * caret there. Absent: the caret is after the last character (where a tap on a field leaves it).
   */
  selection?: { start: number; end: number };
  /** The floating text toolbar (Cut, Copy, Paste, Select all) shows over the focused field. */
  textToolbar?: boolean;
}

export interface LaidNode {
  spec: ViewSpec;
  /** Position among the spec's siblings (uiautomator's `index`, which counts hidden siblings too). */
  index: number;
  rect: Rect;
  /** The part of `rect` that is visible (clipped by scroll viewports and the window). */
  clip: Rect;
  children: LaidNode[];
  /** Present on scroll containers. */
  scroll?: { key: string; offset: number; max: number };
  /** EditText: the text shown (value, or hint when empty) and whether it is the hint. */
  display?: { text: string; isHint: boolean };
}

export const DEFAULT_TEXT_SIZE = 16;

const MIN_HEIGHT: Record<string, number> = {
  [W.Button]: 48,
  [W.ImageButton]: 48,
  [W.EditText]: 56,
  [W.CheckBox]: 48,
  [W.Switch]: 48,
  [W.RadioButton]: 48,
  [W.ImageView]: 24,
  [W.SeekBar]: 48,
  [W.ProgressBar]: 8,
};

const CONTROL_WIDTH: Record<string, number> = { [W.CheckBox]: 48, [W.Switch]: 60, [W.RadioButton]: 48 };

export function isContainer(spec: ViewSpec): boolean {
  return spec.layout !== undefined || (spec.children !== undefined && spec.children.length > 0);
}

/** The text a leaf draws and reports: an EditText's field value or hint, else its text. */
export function displayText(spec: ViewSpec, state: ViewState): { text: string; isHint: boolean } {
  if (spec.cls === W.EditText && spec.field !== undefined) {
    const value = state.fields[spec.field] ?? '';
    if (value === '') return { text: spec.hint ?? '', isHint: true };
    return { text: spec.password ? '•'.repeat(value.length) : value, isHint: false };
  }
  return { text: spec.text ?? '', isHint: false };
}

function iconSpace(spec: ViewSpec): number {
  if (!spec.style?.icon) return 0;
  return spec.text ? (spec.style.iconSize ?? 24) + 8 : 0;
}

/** Width of the text area of a leaf that is `width` wide. */
function textAreaWidth(spec: ViewSpec, width: number): number {
  const [, r, , l] = insets(spec.pad);
  return Math.max(1, width - l - r - iconSpace(spec) - (CONTROL_WIDTH[spec.cls] ?? 0));
}

export function measureWidth(spec: ViewSpec, state: ViewState): number {
  if (typeof spec.w === 'number') return spec.w;
  const [, r, , l] = insets(spec.pad);
  if (isContainer(spec)) {
    const kids = spec.children ?? [];
    if (spec.layout === 'row') {
      return l + r + kids.reduce((s, c) => s + measureWidth(c, state), 0) + (spec.gap ?? 0) * Math.max(0, kids.length - 1);
    }
    return l + r + Math.max(0, ...kids.map((c) => measureWidth(c, state)));
  }
  const { text } = displayText(spec, state);
  const size = spec.style?.size ?? DEFAULT_TEXT_SIZE;
  const tw = text ? Math.max(...text.split('\n').map((t) => textWidth(t, size, spec.style?.bold))) : 0;
  const iconOnly = spec.style?.icon && !text ? (spec.style.iconSize ?? 24) : 0;
  const min = spec.cls === W.ImageButton ? 48 : 0;
  return Math.max(min, Math.ceil(l + r + tw + iconSpace(spec) + iconOnly + (CONTROL_WIDTH[spec.cls] ?? 0)));
}

/** Content height of a node laid out `width` dp wide. */
export function measureHeight(spec: ViewSpec, width: number, state: ViewState): number {
  if (typeof spec.h === 'number') return spec.h;
  const [t, r, b, l] = insets(spec.pad);
  if (isContainer(spec)) {
    const kids = spec.children ?? [];
    const inner = width - l - r;
    if (spec.layout === 'row') {
      const widths = rowWidths(spec, inner, state);
      return t + b + Math.max(0, ...kids.map((c, i) => measureHeight(c, widths[i]!, state)));
    }
    if (spec.layout === 'stack') {
      return t + b + Math.max(0, ...kids.filter((c) => !c.place).map((c) => measureHeight(c, inner, state)));
    }
    return t + b + kids.reduce((s, c) => s + measureHeight(c, inner, state), 0) + (spec.gap ?? 0) * Math.max(0, kids.length - 1);
  }
  const size = spec.style?.size ?? DEFAULT_TEXT_SIZE;
  const { text } = displayText(spec, state);
  let lines = text ? wrapText(text, textAreaWidth(spec, width), size, spec.style?.bold).length : 0;
  if (spec.style?.lines !== undefined) lines = Math.min(lines, spec.style.lines);
  if (spec.cls === W.EditText && !spec.multiline) lines = 1;
  const iconH = spec.style?.icon ? (spec.style.iconSize ?? 24) : 0;
  const content = Math.max(lines * lineHeight(size), iconH);
  return Math.max(MIN_HEIGHT[spec.cls] ?? 0, Math.ceil(t + b + content));
}

function rowWidths(spec: ViewSpec, inner: number, state: ViewState): number[] {
  const kids = spec.children ?? [];
  const gap = (spec.gap ?? 0) * Math.max(0, kids.length - 1);
  const fixed = kids.map((c) => (c.w === undefined ? null : c.w === 'wrap' ? measureWidth(c, state) : c.w));
  const used = fixed.reduce<number>((s, w) => s + (w ?? 0), 0);
  const totalWeight = kids.reduce((s, c, i) => s + (fixed[i] === null ? (c.weight ?? 1) : 0), 0);
  const free = Math.max(0, inner - used - gap);
  return kids.map((c, i) => fixed[i] ?? (totalWeight > 0 ? (free * (c.weight ?? 1)) / totalWeight : 0));
}

function intersect(a: Rect, b: Rect): Rect {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const r = Math.min(a.x + a.w, b.x + b.w);
  const btm = Math.min(a.y + a.h, b.y + b.h);
  return { x, y, w: Math.max(0, r - x), h: Math.max(0, btm - y) };
}

export function isVisible(n: { clip: Rect }): boolean {
  return n.clip.w > 0.5 && n.clip.h > 0.5;
}

/**
 * Lays out a spec in a rectangle. Children entirely outside their clip are dropped, which is both
 * what uiautomator reports (only views visible to the user) and what keeps long lists cheap.
 */
export function layout(spec: ViewSpec, rect: Rect, clip: Rect, state: ViewState, index = 0): LaidNode {
  const node: LaidNode = { spec, index, rect, clip: intersect(rect, clip), children: [] };
  if (!isContainer(spec)) {
    if (spec.cls === W.EditText) node.display = displayText(spec, state);
    return node;
  }
  const [t, r, b, l] = insets(spec.pad);
  const inner: Rect = { x: rect.x + l, y: rect.y + t, w: Math.max(0, rect.w - l - r), h: Math.max(0, rect.h - t - b) };
  const kids = spec.children ?? [];
  const gap = spec.gap ?? 0;
  const push = (child: ViewSpec, i: number, cr: Rect, cclip: Rect) => {
    const laid = layout(child, cr, cclip, state, i);
    if (isVisible(laid)) node.children.push(laid);
  };

  if (spec.scrollKey !== undefined) {
    const heights = kids.map((c) => measureHeight(c, inner.w, state));
    const content = heights.reduce((s, h) => s + h, 0) + gap * Math.max(0, kids.length - 1);
    const max = Math.max(0, Math.ceil(content - inner.h));
    const offset = Math.min(max, Math.max(0, state.scroll[spec.scrollKey] ?? 0));
    node.scroll = { key: spec.scrollKey, offset, max };
    const viewport = intersect(inner, node.clip);
    let y = inner.y - offset;
    kids.forEach((c, i) => {
      const h = heights[i]!;
      if (y + h > viewport.y && y < viewport.y + viewport.h) push(c, i, { x: inner.x, y, w: inner.w, h }, viewport);
      y += h + gap;
    });
    return node;
  }

  switch (spec.layout ?? 'column') {
    case 'row': {
      const widths = rowWidths(spec, inner.w, state);
      let x = inner.x;
      kids.forEach((c, i) => {
        push(c, i, { x, y: inner.y, w: widths[i]!, h: inner.h }, node.clip);
        x += widths[i]! + gap;
      });
      return node;
    }
    case 'stack': {
      kids.forEach((c, i) => {
        if (!c.place) {
          push(c, i, inner, node.clip);
          return;
        }
        const m = c.place.margin ?? 16;
        const w = c.place.w ?? measureWidth(c, state);
        const h = c.place.hgt ?? measureHeight(c, w, state);
        const x = c.place.h === 'left' ? inner.x + m : c.place.h === 'right' ? inner.x + inner.w - w - m : inner.x + (inner.w - w) / 2;
        const y = c.place.v === 'top' ? inner.y + m : c.place.v === 'bottom' ? inner.y + inner.h - h - m : inner.y + (inner.h - h) / 2;
        push(c, i, { x, y, w, h }, node.clip);
      });
      return node;
    }
    case 'column': {
      const fills = kids.filter((c) => c.h === 'fill').length;
      const heights = kids.map((c) => (c.h === 'fill' ? 0 : measureHeight(c, inner.w, state)));
      const used = heights.reduce((s, h) => s + h, 0) + gap * Math.max(0, kids.length - 1);
      const fillH = fills > 0 ? Math.max(0, inner.h - used) / fills : 0;
      let y = inner.y;
      kids.forEach((c, i) => {
        const h = c.h === 'fill' ? fillH : heights[i]!;
        push(c, i, { x: inner.x, y, w: inner.w, h }, node.clip);
        y += h + gap;
      });
      return node;
    }
  }
}

/** Finds the laid-out nodes along the path to the deepest node containing (x, y), top-most first. */
export function hitPath(root: LaidNode, x: number, y: number): LaidNode[] {
  const inside = (n: LaidNode) => x >= n.clip.x && x < n.clip.x + n.clip.w && y >= n.clip.y && y < n.clip.y + n.clip.h;
  if (!inside(root)) return [];
  const path: LaidNode[] = [root];
  let cur = root;
  for (;;) {
    let next: LaidNode | undefined;
    for (let i = cur.children.length - 1; i >= 0; i--) {
      if (inside(cur.children[i]!)) {
        next = cur.children[i];
        break;
      }
    }
    if (!next) return path.reverse();
    path.push(next);
    cur = next;
  }
}
