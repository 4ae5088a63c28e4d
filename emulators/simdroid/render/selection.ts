import type { SKRSContext2D } from '@napi-rs/canvas';
import type { ViewState } from '../view/layout.js';
import type { ViewSpec } from '../view/spec.js';
import { editLayout, offsetX } from '../view/text-layout.js';
import type { Palette } from '../view/theme.js';

/**
 * A focused field's caret, or its selection: the highlight behind the text (`behind`), then the
 * two selection handles over it, as Android's Editor draws them.
 */
export function drawSelection(g: SKRSContext2D, pal: Palette, spec: ViewSpec, value: string, content: { x: number; y: number; w: number; h: number }, view: ViewState, behind: boolean): void {
  const l = editLayout(spec, value, content);
  const sel = view.selection ?? { start: value.length, end: value.length };
  const start = Math.max(0, Math.min(value.length, Math.min(sel.start, sel.end)));
  const end = Math.max(0, Math.min(value.length, Math.max(sel.start, sel.end)));
  if (start === end) {
    if (behind) return;
    const { x, line } = offsetX(l, start);
    g.fillStyle = pal.primary;
    g.fillRect(x + 1, line.y + 2, 2, l.lineHeight - 4);
    return;
  }
  if (behind) {
    g.fillStyle = `${pal.primary}55`;
    for (const line of l.lines) {
      const a = Math.max(start, line.from);
      const b = Math.min(end, line.from + line.text.length);
      if (a >= b && !(a === b && line.text === '' && start <= line.from && end > line.from)) continue;
      const x0 = offsetX(l, a).x;
      const x1 = line.text === '' ? x0 + 6 : offsetX(l, b).x;
      g.fillRect(x0, line.y, Math.max(2, x1 - x0), l.lineHeight);
    }
    return;
  }
  for (const [at, side] of [[start, -1], [end, 1]] as const) {
    const { x, line } = offsetX(l, at);
    const y = line.y + l.lineHeight;
    g.fillStyle = pal.primary;
    g.beginPath();
    g.arc(x + side * 8, y + 8, 8, 0, Math.PI * 2);
    g.fill();
    g.fillRect(side < 0 ? x - 8 : x, y, 8, 8);
  }
}
