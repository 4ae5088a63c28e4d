import { createCanvas } from '@napi-rs/canvas';

/**
 * Text measurement for layout (line wrapping) that matches what the rasterizer draws: advance
 * widths of DejaVu Sans measured once per process with the same canvas library, then summed.
 * Summing per-character advances ignores kerning; the error is well under a character per line.
 */
export const FONT_FAMILY = 'DejaVu Sans';
const REF = 100;
const tables = new Map<boolean, Float64Array>();
const ctx = createCanvas(8, 8).getContext('2d');

function table(bold: boolean): Float64Array {
  let t = tables.get(bold);
  if (!t) {
    t = new Float64Array(256);
    ctx.font = `${bold ? 'bold ' : ''}${REF}px "${FONT_FAMILY}"`;
    for (let c = 32; c < 256; c++) t[c] = ctx.measureText(String.fromCharCode(c)).width / REF;
    tables.set(bold, t);
  }
  return t;
}

const wideCache = new Map<string, number>();
function wideAdvance(ch: string, bold: boolean): number {
  const key = `${bold ? 'b' : 'r'}${ch}`;
  let w = wideCache.get(key);
  if (w === undefined) {
    ctx.font = `${bold ? 'bold ' : ''}${REF}px "${FONT_FAMILY}"`;
    w = ctx.measureText(ch).width / REF;
    wideCache.set(key, w);
  }
  return w;
}

/** Width of a single line of text at `size` (same unit in, same unit out). */
export function textWidth(text: string, size: number, bold = false): number {
  const t = table(bold);
  let w = 0;
  for (const ch of text) {
    const c = ch.charCodeAt(0);
    w += c < 256 && ch.length === 1 ? t[c]! : wideAdvance(ch, bold);
  }
  return w * size;
}

export function lineHeight(size: number): number {
  return size * 1.35;
}

/** Greedy word wrap; breaks inside words only when one word is wider than the line. */
export function wrapText(text: string, maxWidth: number, size: number, bold = false): string[] {
  const lines: string[] = [];
  for (const para of text.split('\n')) {
    if (para === '') {
      lines.push('');
      continue;
    }
    let line = '';
    for (const word of para.split(/(\s+)/)) {
      if (word === '') continue;
      const candidate = line + word;
      if (textWidth(candidate, size, bold) <= maxWidth || line === '') {
        if (textWidth(candidate, size, bold) <= maxWidth) {
          line = candidate;
          continue;
        }
        // A single word wider than the line: split it by characters.
        let chunk = line;
        for (const ch of word) {
          if (textWidth(chunk + ch, size, bold) > maxWidth && chunk !== '') {
            lines.push(chunk);
            chunk = '';
          }
          chunk += ch;
        }
        line = chunk;
        continue;
      }
      lines.push(line.trimEnd());
      line = /^\s+$/.test(word) ? '' : word;
    }
    lines.push(line.trimEnd());
  }
  return lines;
}
