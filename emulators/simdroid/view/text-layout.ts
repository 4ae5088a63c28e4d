import { insets, W, type ViewSpec } from './spec.js';
import { DEFAULT_TEXT_SIZE, type LaidNode, type Rect } from './layout.js';
import { lineHeight, textWidth, wrapText } from './text-metrics.js';

/**
 * Where an EditText's characters are on screen, for what needs offsets: a long press that selects
 * the word under the finger, and the drawing of the caret, the selection highlight and its handles.
 * It lays the text out exactly as the rasterizer draws it (the same wrap, one line for a single-line
 * field, a multi-line field's text from the top, a single line centred), and maps each drawn line
 * back to its offset in the field's text.
 */
export interface TextLine {
  /** Offset of the line's first character in the field's text. */
  from: number;
  text: string;
  /** Top of the line, dp. */
  y: number;
}

export interface EditLayout {
  lines: TextLine[];
  /** Left edge of the text, dp. */
  x: number;
  lineHeight: number;
  size: number;
  bold: boolean;
}

/** The text box inside an EditText's padding. */
export function contentBox(n: LaidNode): Rect {
  const [t, r, b, l] = insets(n.spec.pad);
  return { x: n.rect.x + l, y: n.rect.y + t, w: Math.max(0, n.rect.w - l - r), h: Math.max(0, n.rect.h - t - b) };
}

/** The lines of `value` as an EditText laid out in `n` draws them. */
export function editLayout(spec: ViewSpec, value: string, box: Rect): EditLayout {
  const size = spec.style?.size ?? DEFAULT_TEXT_SIZE;
  const bold = spec.style?.bold ?? false;
  const lh = lineHeight(size);
  let wrapped = wrapText(value, Math.max(1, box.w), size, bold);
  const single = spec.cls === W.EditText && !spec.multiline;
  if (single) wrapped = wrapped.slice(0, 1);
  else if (spec.style?.lines !== undefined) wrapped = wrapped.slice(0, spec.style.lines);
  const top = single ? box.y + Math.max(0, (box.h - lh) / 2) : box.y;
  const lines: TextLine[] = [];
  let at = 0;
  wrapped.forEach((text, i) => {
    // Wrapping drops the spaces at a break and keeps words whole: each line is found, in order, in the text.
    const from = text === '' ? nextLineStart(value, at, i > 0) : value.indexOf(text, at);
    const start = from < 0 ? at : from;
    lines.push({ from: start, text, y: top + i * lh });
    at = start + text.length;
  });
  return { lines, x: box.x, lineHeight: lh, size, bold };
}

/** Where an empty drawn line begins: after the newline that ends the previous one. */
function nextLineStart(value: string, at: number, afterLine: boolean): number {
  if (!afterLine) return at;
  const nl = value.indexOf('\n', at);
  return nl < 0 ? at : nl + 1;
}

/** The x (dp) of the gap before character `offset` of the layout's text. */
export function offsetX(l: EditLayout, offset: number): { x: number; line: TextLine } {
  let line = l.lines[0] ?? { from: 0, text: '', y: 0 };
  for (const candidate of l.lines) {
    if (candidate.from <= offset) line = candidate;
    else break;
  }
  const within = Math.max(0, Math.min(line.text.length, offset - line.from));
  return { x: l.x + textWidth(line.text.slice(0, within), l.size, l.bold), line };
}

/**
 * The character offset nearest to (x, y) dp, or null past the end of the text (below its last
 * line, or right of the last line's end), where a long press places the caret instead of a word.
 */
export function offsetAt(l: EditLayout, x: number, y: number, length: number): number | null {
  if (l.lines.length === 0) return null;
  const index = Math.floor((y - l.lines[0]!.y) / l.lineHeight);
  if (index >= l.lines.length) return null;
  const line = l.lines[Math.max(0, index)]!;
  let prev = 0;
  for (let i = 1; i <= line.text.length; i++) {
    const w = textWidth(line.text.slice(0, i), l.size, l.bold);
    if (l.x + (prev + w) / 2 > x) return line.from + i - 1;
    prev = w;
  }
  const isLast = index >= l.lines.length - 1;
  return isLast && line.from + line.text.length >= length ? null : Math.max(0, line.from + line.text.length - 1);
}

const WORD = /[\p{L}\p{N}_'’]/u;

/** The word around offset `at` (letters, digits, apostrophes), or the single character there if it is not in a word. */
export function wordAt(value: string, at: number): { start: number; end: number } {
  const chars = [...value];
  // Offsets are UTF-16 code units, as Android's; walk code points and keep both counts.
  const units: number[] = [];
  let u = 0;
  for (const c of chars) {
    units.push(u);
    u += c.length;
  }
  let i = units.findIndex((start, k) => at >= start && at < start + chars[k]!.length);
  if (i < 0) i = chars.length - 1;
  if (i < 0) return { start: 0, end: 0 };
  if (!WORD.test(chars[i]!)) return { start: units[i]!, end: units[i]! + chars[i]!.length };
  let s = i;
  while (s > 0 && WORD.test(chars[s - 1]!)) s--;
  let e = i;
  while (e < chars.length - 1 && WORD.test(chars[e + 1]!)) e++;
  return { start: units[s]!, end: units[e]! + chars[e]!.length };
}
