import type { Element as DomElement, Node as DomNode } from 'happy-dom';
import type { Color, ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import type { PagePath, WebPage } from './page.js';

/**
 * A page's DOM as SimDroid views, the way Chrome's accessibility tree shows web content: text as
 * TextViews, <button> as Button, <input>/<textarea> as EditText, <canvas> and boxes as View. Layout
 * is a subset of CSS: blocks stack, inline content (text, buttons, inputs) flows in lines, flex rows
 * (with wrap), text-align, px widths, heights, paddings and margins, background and text colours,
 * font size and weight, display:none. CSS pixels are drawn at `scale` dp (Chrome's zoom).
 */
export interface WebHooks {
  click(path: PagePath): void;
  /** The window field an input's text lives in. */
  fieldOf(path: PagePath): string;
  /** A canvas's view (what it drew, strokes by drag), its box in CSS px. */
  canvas(el: DomElement, path: PagePath, css: { w: number; h: number }, resourceId: string | undefined): ViewSpec;
}

interface Ctx {
  page: WebPage;
  hooks: WebHooks;
  scale: number;
}

const SKIP = new Set(['script', 'style', 'head', 'meta', 'title', 'link', 'template', 'noscript']);
const INLINE = new Set(['span', 'b', 'i', 'strong', 'em', 'a', 'label', 'small', 'code', 'u', 'sub', 'sup', 'font']);
const CONTROLS = new Set(['button', 'input', 'textarea', 'select', 'canvas', 'img']);
const BOLD_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'b', 'strong', 'th']);

function px(v: string | undefined): number | undefined {
  const m = /^(-?[\d.]+)px$/.exec((v ?? '').trim());
  return m ? Number(m[1]) : undefined;
}

/** CSS colour (rgb(), #hex, a few names) as #rrggbb, or undefined when transparent or unknown. */
export function cssColor(v: string | undefined): `#${string}` | undefined {
  const s = (v ?? '').trim().toLowerCase();
  if (!s || s === 'transparent' || s === 'initial' || s === 'inherit') return undefined;
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/.exec(s);
  if (hex) return `#${hex[1]!.length === 3 ? [...hex[1]!].map((c) => c + c).join('') : hex[1]!}`.toUpperCase() as `#${string}`;
  const rgb = /^rgba?\(\s*(\d+)[\s,]+(\d+)[\s,]+(\d+)(?:[\s,/]+([\d.]+%?))?\s*\)$/.exec(s);
  if (rgb) {
    if (rgb[4] !== undefined && parseFloat(rgb[4]) === 0) return undefined;
    return `#${[rgb[1], rgb[2], rgb[3]].map((n) => Number(n).toString(16).padStart(2, '0')).join('')}`.toUpperCase() as `#${string}`;
  }
  const NAMED: Record<string, `#${string}`> = { black: '#000000', white: '#FFFFFF', red: '#FF0000', green: '#008000', blue: '#0000FF', gray: '#808080', grey: '#808080', yellow: '#FFFF00', orange: '#FFA500' };
  return NAMED[s];
}

function style(c: Ctx, el: DomElement) {
  return c.page.window.getComputedStyle(el as never);
}

function hidden(c: Ctx, el: DomElement): boolean {
  const cs = style(c, el);
  return cs.display === 'none' || cs.visibility === 'hidden' || (el as unknown as { hidden?: boolean }).hidden === true;
}

function fontSp(c: Ctx, el: DomElement): number {
  return Math.max(12, Math.round((px(style(c, el).fontSize) ?? 16) * c.scale));
}

function box4(c: Ctx, el: DomElement, prop: 'padding' | 'margin'): [number, number, number, number] {
  const cs = style(c, el) as unknown as Record<string, string>;
  return (['Top', 'Right', 'Bottom', 'Left'] as const).map((s) => Math.round(Math.max(0, px(cs[`${prop}${s}`]) ?? 0) * c.scale)) as [number, number, number, number];
}

const collapse = (t: string) => t.replace(/\s+/g, ' ');

/** Chrome reports an element's HTML id as its node's view id (here under Chrome's package, as SimDroid ids are). */
function idOf(el: DomElement): string | undefined {
  return el.id ? `com.android.chrome:id/${el.id}` : undefined;
}

function withId<T extends ViewSpec>(spec: T, el: DomElement): T {
  const id = idOf(el);
  if (id) spec.id = id;
  return spec;
}

function textView(c: Ctx, parent: DomElement, value: string): ViewSpec {
  const cs = style(c, parent);
  const tag = parent.tagName.toLowerCase();
  const bold = BOLD_TAGS.has(tag) || cs.fontWeight === 'bold' || Number(cs.fontWeight) >= 600;
  const fg: Color = cssColor(cs.color) ?? 'onSurface';
  const align = cs.textAlign === 'center' ? 'center' : cs.textAlign === 'right' ? 'right' : 'left';
  return { cls: W.TextView, text: value, pad: [2, 0, 2, 0], style: { size: fontSp(c, parent), bold, fg, textAlign: align } };
}

function control(c: Ctx, el: DomElement, path: PagePath): ViewSpec | null {
  const tag = el.tagName.toLowerCase();
  const cs = style(c, el);
  const w = px(cs.width) ?? px(el.getAttribute('width') ?? undefined);
  const h = px(cs.height) ?? px(el.getAttribute('height') ?? undefined);
  const dim = (v: number | undefined) => (v === undefined ? undefined : Math.round(v * c.scale));
  const bg = cssColor(cs.backgroundColor);
  const disabled = (el as unknown as { disabled?: boolean }).disabled === true;
  const size = fontSp(c, el);
  switch (tag) {
    case 'button': {
      const label = collapse(el.textContent ?? '').trim();
      const spec: ViewSpec = withId({
        cls: W.Button, text: label, clickable: true, enabled: !disabled, onClick: () => c.hooks.click(path),
        pad: label ? box4(c, el, 'padding').map((p) => Math.max(p, 6)) as [number, number, number, number] : 0,
        w: dim(w) ?? 'wrap', style: { size, textAlign: 'center', bg: bg ?? '#E8EAED', fg: cssColor(cs.color) ?? '#202124', radius: 4, border: '#9AA0A6' },
      }, el);
      const hh = dim(h);
      if (hh !== undefined) spec.h = hh;
      else if (!label) spec.h = 24;
      if (!label && w === undefined) spec.w = 24;
      return spec;
    }
    case 'input':
    case 'textarea': {
      const type = (el.getAttribute('type') ?? 'text').toLowerCase();
      if (['button', 'submit', 'reset'].includes(type)) {
        const label = el.getAttribute('value') ?? (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : '');
        return withId({ cls: W.Button, text: label, clickable: true, enabled: !disabled, onClick: () => c.hooks.click(path), pad: [6, 12, 6, 12], w: 'wrap', style: { size, bg: '#E8EAED', radius: 4, border: '#9AA0A6' } }, el);
      }
      if (type === 'hidden') return null;
      return withId({
        cls: W.EditText, field: c.hooks.fieldOf(path), hint: el.getAttribute('placeholder') ?? undefined, enabled: !disabled,
        multiline: tag === 'textarea', w: dim(w) ?? Math.round(180 * Math.max(c.scale, 0.8)), pad: [6, 8, 6, 8], style: { size, border: '#5F6368', radius: 2 },
      }, el);
    }
    case 'canvas': {
      const cw = Number(el.getAttribute('width') ?? 300);
      const ch = Number(el.getAttribute('height') ?? 150);
      return c.hooks.canvas(el, path, { w: w ?? cw, h: h ?? ch }, idOf(el));
    }
    case 'img':
      return { cls: W.ImageView, desc: el.getAttribute('alt') ?? undefined, w: dim(w) ?? 48, h: dim(h) ?? 48, style: { icon: 'image' } };
    default:
      return null;
  }
}

/** Lays inline items (text and controls) out in one line box. */
function line(c: Ctx, parent: DomElement, items: ViewSpec[]): ViewSpec {
  if (items.every((i) => i.cls === W.TextView)) {
    const t = collapse(items.map((i) => i.text).join('')).trim();
    return textView(c, parent, t);
  }
  const align = style(c, parent).textAlign;
  // Text runs between controls become TextViews of their own; whitespace between them is only spacing.
  const kids = items
    .filter((i) => i.cls !== W.TextView || collapse(i.text ?? '').trim() !== '')
    .map((i) => (i.cls === W.TextView ? { ...textView(c, parent, collapse(i.text ?? '').trim()), w: 'wrap' as const } : i));
  const fill: ViewSpec = { cls: W.View, weight: 1 };
  const spaced = kids.flatMap((k, i) => (i === 0 ? [k] : [{ cls: W.View, w: 4 }, k]));
  const row = align === 'center' ? [fill, ...spaced, { ...fill }] : align === 'right' ? [fill, ...spaced] : [...spaced, fill];
  return { cls: W.View, layout: 'row', children: row, pad: [2, 0, 2, 0] };
}

/** Inline content of an element, flattened: text runs and controls. */
function inlineItems(c: Ctx, node: DomNode, path: PagePath, out: ViewSpec[]): void {
  const el = node as unknown as DomElement;
  const tag = el.tagName?.toLowerCase();
  if (tag === 'br') {
    out.push({ cls: W.TextView, text: '\n' });
    return;
  }
  if (hidden(c, el)) return;
  if (CONTROLS.has(tag)) {
    const v = control(c, el, path);
    if (v) out.push(v);
    return;
  }
  // An inline-block is a box in the line (a colour swatch, a badge).
  const display = style(c, el).display;
  if (display === 'inline-block' || display === 'inline-flex') {
    const v = block(c, el, path);
    if (v) out.push(v.w === undefined ? { ...v, w: 'wrap' } : v);
    return;
  }
  let i = 0;
  for (const child of Array.from(el.childNodes)) {
    if (child.nodeType === 3) out.push({ cls: W.TextView, text: child.textContent ?? '' });
    else if (child.nodeType === 1) inlineItems(c, child, [...path, i++], out);
  }
}

function isInline(c: Ctx, el: DomElement): boolean {
  const tag = el.tagName.toLowerCase();
  if (CONTROLS.has(tag) || INLINE.has(tag) || tag === 'br') return true;
  const d = style(c, el).display;
  return d === 'inline' || d === 'inline-block';
}

/** An element as a block: its box (size, colours, padding, margin) around its content. */
export function block(c: Ctx, el: DomElement, path: PagePath): ViewSpec | null {
  const tag = el.tagName.toLowerCase();
  if (SKIP.has(tag) || hidden(c, el)) return null;
  if (CONTROLS.has(tag)) return control(c, el, path);
  const cs = style(c, el);
  const flex = cs.display === 'flex' || cs.display === 'inline-flex';
  const children: ViewSpec[] = [];
  let pending: ViewSpec[] = [];
  const flush = () => {
    const meaningful = pending.some((p) => p.cls !== W.TextView || (p.text ?? '').trim() !== '');
    if (meaningful) children.push(line(c, el, pending));
    pending = [];
  };
  let i = 0;
  for (const node of Array.from(el.childNodes)) {
    if (node.nodeType === 3) {
      if (!flex) pending.push({ cls: W.TextView, text: node.textContent ?? '' });
      else if ((node.textContent ?? '').trim()) children.push(textView(c, el, collapse(node.textContent ?? '').trim()));
      continue;
    }
    if (node.nodeType !== 1) continue;
    const child = node as unknown as DomElement;
    const childPath = [...path, i++];
    if (!flex && isInline(c, child)) {
      inlineItems(c, child, childPath, pending);
      continue;
    }
    flush();
    const v = block(c, child, childPath);
    if (v) children.push(v);
  }
  flush();
  const w = px(cs.width);
  const h = px(cs.height);
  const bg = cssColor(cs.backgroundColor);
  const borderW = px(cs.borderTopWidth) ?? 0;
  const spec: ViewSpec = withId({ cls: W.View, layout: 'column', children, pad: box4(c, el, 'padding') }, el);
  if (flex) Object.assign(spec, flexLayout(c, el, children, w));
  if (w !== undefined) spec.w = Math.round(w * c.scale);
  if (h !== undefined) spec.h = Math.round(h * c.scale);
  if (bg || borderW > 0) spec.style = { ...(bg ? { bg } : {}), ...(borderW > 0 ? { border: cssColor(cs.borderTopColor) ?? '#000000' } : {}) };
  const [mt, mr, mb, ml] = box4(c, el, 'margin');
  if (!(mt || mr || mb || ml)) return spec;
  return { cls: W.View, layout: 'column', children: [spec], pad: [mt, mr, mb, ml], ...(typeof spec.w === 'number' ? { w: spec.w + ml + mr } : {}) };
}

/** display:flex as rows: children side by side (wrapped to the box's width with flex-wrap), centred as justify-content says. */
function flexLayout(c: Ctx, el: DomElement, children: ViewSpec[], cssWidth: number | undefined): Partial<ViewSpec> {
  const cs = style(c, el);
  if (cs.flexDirection === 'column') return { layout: 'column' };
  const center = cs.justifyContent === 'center';
  const vcenter = cs.alignItems === 'center';
  const maxW = px(cs.maxWidth) ?? cssWidth;
  const limit = maxW !== undefined ? maxW * c.scale : Infinity;
  const fixedW = (k: ViewSpec) => (typeof k.w === 'number' ? k.w : 0);
  const lines: ViewSpec[][] = [[]];
  let used = 0;
  for (const k of children) {
    const kw = fixedW(k);
    if (cs.flexWrap === 'wrap' && lines[lines.length - 1]!.length > 0 && used + kw > limit) {
      lines.push([]);
      used = 0;
    }
    lines[lines.length - 1]!.push(vcenter && k.cls === W.TextView ? { ...k, style: { ...k.style, textAlign: center ? 'center' : k.style?.textAlign } } : k);
    used += kw;
  }
  const asRow = (ks: ViewSpec[]): ViewSpec => {
    const kids = ks.map((k) => (k.w === undefined && k.cls !== W.TextView ? { ...k, w: 'wrap' as const } : k));
    const only = kids.length === 1 && kids[0]!.cls === W.TextView;
    if (only) return { cls: W.View, layout: 'column', children: [{ cls: W.View, h: 'fill' }, kids[0]!, { cls: W.View, h: 'fill' }], h: 'fill' };
    return { cls: W.View, layout: 'row', children: center ? [{ cls: W.View, weight: 1 }, ...kids, { cls: W.View, weight: 1 }] : kids };
  };
  if (lines.length === 1) {
    const r = asRow(lines[0]!);
    return { layout: r.layout!, children: r.children! };
  }
  return { layout: 'column', children: lines.map(asRow) };
}
