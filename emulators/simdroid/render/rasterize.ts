import { createCanvas, Path2D, type Canvas, type SKRSContext2D } from '@napi-rs/canvas';
import type { Frame, FrameWindow } from '../runtime/frame.js';
import type { LaidNode } from '../view/layout.js';
import { drawSelection } from './selection.js';
import { drawPicture } from './pictures.js';
import { DEFAULT_TEXT_SIZE, displayText } from '../view/layout.js';
import { insets, W, type ViewSpec } from '../view/spec.js';
import { FONT_FAMILY, lineHeight, wrapText } from '../view/text-metrics.js';
import { resolveColor, type Palette } from '../view/theme.js';
import { FILLED, ICONS } from './icons.js';
import { encodePng } from '../../../core/util/png.js';
import { encodePngAsync } from '../../../core/util/png-async.js';

/**
 * Draws a frame with a real 2D rasterizer (Skia through @napi-rs/canvas): backgrounds, text in
 * DejaVu Sans, icons, controls in their checked/focused/selected states, dialog scrims, the keyboard,
 * toasts, and a press highlight where the last touch landed. Works in dp with a scale transform,
 * so full and half resolution are the same drawing.
 */
const pathCache = new Map<string, Path2D>();

function iconPath(name: string): Path2D | undefined {
  let p = pathCache.get(name);
  if (!p) {
    const d = ICONS[name];
    if (!d) return undefined;
    p = new Path2D(d);
    pathCache.set(name, p);
  }
  return p;
}

function roundRect(g: SKRSContext2D, x: number, y: number, w: number, h: number, r: number): void {
  const rr = Math.max(0, Math.min(r, w / 2, h / 2));
  g.beginPath();
  g.moveTo(x + rr, y);
  g.arcTo(x + w, y, x + w, y + h, rr);
  g.arcTo(x + w, y + h, x, y + h, rr);
  g.arcTo(x, y + h, x, y, rr);
  g.arcTo(x, y, x + w, y, rr);
  g.closePath();
}

export function drawIcon(g: SKRSContext2D, name: string, cx: number, cy: number, size: number, color: string): void {
  const p = iconPath(name);
  g.save();
  g.translate(cx - size / 2, cy - size / 2);
  g.scale(size / 24, size / 24);
  g.strokeStyle = color;
  g.fillStyle = color;
  g.lineWidth = 2;
  g.lineCap = 'round';
  g.lineJoin = 'round';
  if (p) {
    if (FILLED.has(name)) g.fill(p);
    g.stroke(p);
  } else {
    // Unknown icon names draw as a letter, so a typo is visible rather than silent.
    g.font = `bold 14px "${FONT_FAMILY}"`;
    g.textAlign = 'center';
    g.textBaseline = 'middle';
    g.fillText(name.slice(0, 1).toUpperCase(), 12, 12);
  }
  g.restore();
}

interface Ctx {
  g: SKRSContext2D;
  pal: Palette;
  win: FrameWindow;
}

function drawText(c: Ctx, spec: ViewSpec, value: string, box: { x: number; y: number; w: number; h: number }, color: string, center = false): void {
  const size = spec.style?.size ?? DEFAULT_TEXT_SIZE;
  const bold = spec.style?.bold ?? false;
  const lh = lineHeight(size);
  let lines = wrapText(value, Math.max(1, box.w), size, bold);
  const maxLines = spec.cls === W.EditText && !spec.multiline ? 1 : spec.style?.lines;
  if (maxLines !== undefined && lines.length > maxLines) {
    lines = lines.slice(0, maxLines);
    lines[maxLines - 1] = `${lines[maxLines - 1]!.replace(/.$/, '')}…`;
  }
  const total = lines.length * lh;
  const align = center ? 'center' : spec.style?.textAlign ?? 'left';
  let y = box.y + Math.max(0, (box.h - total) / 2);
  c.g.font = `${bold ? 'bold ' : ''}${size}px "${FONT_FAMILY}"`;
  c.g.fillStyle = color;
  c.g.textBaseline = 'middle';
  c.g.textAlign = align;
  const x = align === 'center' ? box.x + box.w / 2 : align === 'right' ? box.x + box.w : box.x;
  for (const line of lines) {
    c.g.fillText(line, x, y + lh / 2);
    y += lh;
  }
}

/** Classes that paint a control of their own even with no style or text. */
const CONTROL_CLASSES: ReadonlySet<string> = new Set([W.EditText, W.CheckBox, W.RadioButton, W.Switch, W.SeekBar]);

/**
 * Whether drawNode paints anything for the node itself. Layout containers do not, and need no
 * save/clip/restore (13 of the app drawer's 115 a frame); the pixels are the same without them.
 */
function paintsItself(n: LaidNode): boolean {
  const s = n.spec;
  const st = s.style;
  if (s.text || s.image || s.strokes || CONTROL_CLASSES.has(s.cls)) return true;
  return st !== undefined && (st.variant !== undefined || !!st.bg || !!st.elevation || !!st.icon || !!st.divider || !!st.border);
}

function drawNode(c: Ctx, n: LaidNode): void {
  if (!paintsItself(n)) {
    for (const child of n.children) drawNode(c, child);
    drawScrollbar(c.g, n);
    return;
  }
  const { g, pal } = c;
  const s = n.spec;
  const st = s.style ?? {};
  const { x, y, w, h } = n.rect;
  const [pt, pr, pb, pl] = insets(s.pad);
  const fg = resolveColor(st.fg, pal, pal.onSurface);
  const enabled = s.enabled !== false;
  g.save();
  g.beginPath();
  g.rect(n.clip.x, n.clip.y, n.clip.w, n.clip.h);
  g.clip();
  if (!enabled) g.globalAlpha = 0.45;

  const radius = st.radius ?? 0;
  const fillBox = (color: string, r = radius) => {
    g.fillStyle = color;
    roundRect(g, x, y, w, h, r);
    g.fill();
  };
  let textColor = fg;
  let center = false;

  switch (st.variant) {
    case 'filled':
      fillBox(resolveColor(st.bg ?? 'primary', pal, pal.primary));
      textColor = resolveColor(st.fg ?? 'onPrimary', pal, pal.onPrimary);
      center = true;
      break;
    case 'tonal':
      fillBox(pal.primaryContainer);
      textColor = pal.onPrimaryContainer;
      center = true;
      break;
    case 'outlined':
      g.strokeStyle = pal.outline;
      g.lineWidth = 1;
      roundRect(g, x + 0.5, y + 0.5, w - 1, h - 1, radius);
      g.stroke();
      textColor = pal.primary;
      center = true;
      break;
    case 'text':
      textColor = pal.primary;
      center = true;
      break;
    case 'fab':
      fillBox(pal.primaryContainer, st.radius ?? 16);
      textColor = pal.onPrimaryContainer;
      break;
    case 'chip':
      if (s.checked) fillBox(pal.primaryContainer, radius);
      g.strokeStyle = pal.outline;
      g.lineWidth = 1;
      roundRect(g, x + 0.5, y + 0.5, w - 1, h - 1, radius);
      g.stroke();
      center = true;
      break;
    case 'avatar':
      g.fillStyle = resolveColor(st.bg, pal, pal.primary);
      g.beginPath();
      g.arc(x + w / 2, y + h / 2, Math.min(w, h) / 2, 0, Math.PI * 2);
      g.fill();
      center = true;
      break;
    case 'appicon': {
      // A launcher icon: a coloured disc with the glyph, the label under it.
      const r = 28;
      g.fillStyle = resolveColor(st.bg, pal, pal.primary);
      g.beginPath();
      g.arc(x + w / 2, y + 8 + r, r, 0, Math.PI * 2);
      g.fill();
      if (st.icon) drawIcon(g, st.icon, x + w / 2, y + 8 + r, 30, '#FFFFFF');
      g.restore();
      g.save();
      g.beginPath();
      g.rect(n.clip.x, n.clip.y, n.clip.w, n.clip.h);
      g.clip();
      drawText(c, { ...s, style: { ...st, icon: undefined } } as ViewSpec, s.text ?? '', { x: x + pl, y: y + pt, w: w - pl - pr, h: h - pt - pb }, fg, true);
      g.restore();
      return;
    }
    case 'card':
      fillBox(resolveColor(st.bg ?? 'surface', pal, pal.surface), radius || 12);
      break;
    default:
      if (st.bg) fillBox(resolveColor(st.bg, pal, pal.background));
  }
  if (st.elevation) {
    g.strokeStyle = 'rgba(0,0,0,0.18)';
    g.lineWidth = 1;
    roundRect(g, x + 0.5, y + 0.5, w - 1, h - 1, radius);
    g.stroke();
  }
  // EditText draws its own outline (focused or not), below.
  if (st.border && s.cls !== W.EditText) {
    g.strokeStyle = resolveColor(st.border, pal, pal.outline);
    g.lineWidth = 1;
    roundRect(g, x + 0.5, y + 0.5, w - 1, h - 1, radius);
    g.stroke();
  }

  const content = { x: x + pl, y: y + pt, w: Math.max(0, w - pl - pr), h: Math.max(0, h - pt - pb) };
  let label = s.text ?? '';
  if (s.image || s.strokes) drawPicture(g, s, content);

  switch (s.cls) {
    case W.EditText: {
      const focused = s.field !== undefined && c.win.view.focus === s.field;
      if (st.border) {
        g.strokeStyle = focused ? pal.primary : resolveColor(st.border, pal, pal.outline);
        g.lineWidth = focused ? 2 : 1;
        roundRect(g, x + 1, y + 1, w - 2, h - 2, radius);
        g.stroke();
      } else if (!st.bg) {
        g.fillStyle = focused ? pal.primary : pal.outline;
        g.fillRect(x, y + h - (focused ? 2 : 1), w, focused ? 2 : 1);
      }
      const d = n.display ?? displayText(s, c.win.view);
      const box = s.multiline ? { ...content, h: Math.min(content.h, (wrapText(d.text || ' ', content.w, st.size ?? DEFAULT_TEXT_SIZE).length) * lineHeight(st.size ?? DEFAULT_TEXT_SIZE)) } : content;
      if (focused) drawSelection(c.g, c.pal, s, d.isHint ? '' : d.text, content, c.win.view, true);
      drawText(c, s, d.text, box, d.isHint ? pal.onSurfaceVariant : fg);
      if (focused) drawSelection(c.g, c.pal, s, d.isHint ? '' : d.text, content, c.win.view, false);
      label = '';
      break;
    }
    case W.CheckBox:
    case W.RadioButton: {
      if (st.variant === 'chip') break;
      const bx = content.x + 12;
      const by = y + h / 2;
      g.strokeStyle = s.checked ? pal.primary : pal.onSurfaceVariant;
      g.fillStyle = pal.primary;
      g.lineWidth = 2;
      if (s.cls === W.CheckBox) {
        roundRect(g, bx - 9, by - 9, 18, 18, 2);
        if (s.checked) {
          g.fill();
          drawIcon(g, 'check', bx, by, 16, pal.onPrimary);
        } else g.stroke();
      } else {
        g.beginPath();
        g.arc(bx, by, 9, 0, Math.PI * 2);
        g.stroke();
        if (s.checked) {
          g.beginPath();
          g.arc(bx, by, 5, 0, Math.PI * 2);
          g.fill();
        }
      }
      content.x += 40;
      content.w -= 40;
      break;
    }
    case W.Switch: {
      const tw = 52;
      const th = 32;
      const tx = x + w - tw - 4;
      const ty = y + (h - th) / 2;
      g.fillStyle = s.checked ? pal.primary : pal.surfaceVariant;
      roundRect(g, tx, ty, tw, th, th / 2);
      g.fill();
      if (!s.checked) {
        g.strokeStyle = pal.outline;
        g.lineWidth = 2;
        roundRect(g, tx + 1, ty + 1, tw - 2, th - 2, th / 2);
        g.stroke();
      }
      g.fillStyle = s.checked ? pal.onPrimary : pal.outline;
      g.beginPath();
      g.arc(s.checked ? tx + tw - 16 : tx + 16, ty + th / 2, s.checked ? 12 : 8, 0, Math.PI * 2);
      g.fill();
      content.w -= 60;
      break;
    }
    case W.SeekBar: {
      const p = Math.min(1, Math.max(0, st.progress ?? 0));
      const cy = y + h / 2;
      g.fillStyle = pal.surfaceVariant;
      g.fillRect(content.x, cy - 2, content.w, 4);
      g.fillStyle = pal.primary;
      g.fillRect(content.x, cy - 2, content.w * p, 4);
      g.beginPath();
      g.arc(content.x + content.w * p, cy, 10, 0, Math.PI * 2);
      g.fill();
      break;
    }
    default:
      break;
  }

  if (st.icon) {
    const size = st.iconSize ?? (st.variant === 'fab' && !label ? 24 : 24);
    const color = resolveColor(st.iconColor, pal, st.variant === 'fab' ? pal.onPrimaryContainer : textColor);
    if (label) {
      drawIcon(g, st.icon, content.x + size / 2, y + h / 2, size, color);
      content.x += size + 8;
      content.w -= size + 8;
    } else {
      drawIcon(g, st.icon, x + w / 2, y + h / 2, size, color);
    }
  }
  if (label) drawText(c, s, label, content, textColor, center && !st.icon);

  if (st.variant === 'tab' && s.selected) {
    g.fillStyle = pal.primary;
    g.fillRect(x + w * 0.2, y + h - 3, w * 0.6, 3);
  }
  if (st.divider) {
    g.fillStyle = pal.surfaceVariant;
    g.fillRect(x, y + h - 1, w, 1);
  }
  g.restore();

  for (const child of n.children) drawNode(c, child);
  drawScrollbar(g, n);
}

function drawScrollbar(g: SKRSContext2D, n: LaidNode): void {
  if (!n.scroll || n.scroll.max <= 0) return;
  // A thin scrollbar so the pixels show there is more to scroll, as Android flashes one.
  const viewH = n.clip.h;
  const thumb = Math.max(24, (viewH * viewH) / (viewH + n.scroll.max));
  const ty = n.clip.y + ((viewH - thumb) * n.scroll.offset) / n.scroll.max;
  g.fillStyle = 'rgba(127,127,127,0.5)';
  g.fillRect(n.clip.x + n.clip.w - 4, ty, 3, thumb);
}

export function drawFrame(g: SKRSContext2D, frame: Frame): void {
  const base = frame.windows[0]?.palette;
  g.fillStyle = base?.background ?? '#FFFFFF';
  g.fillRect(0, 0, frame.widthDp, frame.heightDp);
  for (const win of frame.windows) {
    if (win.kind === 'dialog' || win.kind === 'prompt') {
      g.fillStyle = 'rgba(0,0,0,0.32)';
      g.fillRect(0, 0, frame.widthDp, frame.heightDp);
    }
    drawNode({ g, pal: win.palette, win }, win.root);
  }
  if (frame.toast) {
    g.font = `14px "${FONT_FAMILY}"`;
    const tw = Math.min(frame.widthDp - 48, g.measureText(frame.toast).width + 32);
    const th = 44;
    const tx = (frame.widthDp - tw) / 2;
    const ty = frame.heightDp - 48 - 64 - th;
    g.fillStyle = frame.dark ? '#E6E1E5' : '#3C3B3F';
    roundRect(g, tx, ty, tw, th, th / 2);
    g.fill();
    g.fillStyle = frame.dark ? '#1C1B1F' : '#FFFFFF';
    g.textAlign = 'center';
    g.textBaseline = 'middle';
    g.fillText(frame.toast, frame.widthDp / 2, ty + th / 2, tw - 24);
  }
}

const MAX_CANVASES = 4;

/** Renders frames to PNG, reusing one canvas per output size (the few sizes used last). */
export class FrameRenderer {
  private readonly canvases = new Map<string, Canvas>();

  private canvas(w: number, h: number): Canvas {
    const key = `${w}x${h}`;
    let c = this.canvases.get(key);
    if (c) {
      // Most recently used last, so the eviction below drops the size unused the longest.
      this.canvases.delete(key);
    } else {
      c = createCanvas(w, h);
      // gRPC clients may ask for any size: keep a few canvases, not one per size ever asked.
      if (this.canvases.size >= MAX_CANVASES) this.canvases.delete(this.canvases.keys().next().value!);
    }
    this.canvases.set(key, c);
    return c;
  }

  /** Draws into the canvas for the output size and returns it (raw pixels or PNG are read from it). */
  draw(frame: Frame, width: number, height: number, scale: number): Canvas {
    const c = this.canvas(width, height);
    const g = c.getContext('2d');
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.clearRect(0, 0, width, height);
    g.setTransform(frame.scale * scale, 0, 0, frame.scale * scale, 0, 0);
    drawFrame(g, frame);
    return c;
  }

  png(frame: Frame, width: number, height: number, scale: number): Buffer {
    const canvas = this.draw(frame, width, height, scale);
    return encodePng(canvas.getContext('2d').getImageData(0, 0, width, height).data, width, height);
  }

  /**
   * png() with the deflate on the thread pool. The frame is drawn and its pixels read before this
   * returns (band by band, each band deflating while the next is read), so the canvas is free again.
   */
  pngAsync(frame: Frame, width: number, height: number, scale: number): Promise<Buffer> {
    const g = this.draw(frame, width, height, scale).getContext('2d');
    return encodePngAsync((y0, y1) => g.getImageData(0, y0, width, y1 - y0).data, width, height);
  }
}
