import { createCanvas } from '@napi-rs/canvas';
import type { Stroke } from '../../view/spec.js';
import { drawStrokes } from '../../render/pictures.js';

/**
 * A drawing written to a file as Simple Draw saves it: PNG or JPEG pixels of the canvas (white
 * background, the strokes), or an SVG of the same paths. Sizes in px of a 1080×1920 phone's canvas area.
 */
export const DRAW_EXTENSIONS = ['png', 'svg', 'jpg'] as const;
export type DrawExtension = (typeof DRAW_EXTENSIONS)[number];

export const CANVAS_PX = { w: 1080, h: 1500 } as const;
/** dp to px on the 420 dpi phone SimDroid shows (stroke widths are in dp). */
const PX_PER_DP = 420 / 160;

function svgOf(strokes: readonly Stroke[]): string {
  const { w, h } = CANVAS_PX;
  const paths = strokes.filter((s) => s.points.length >= 2).map((s) => {
    const pts: string[] = [];
    for (let i = 0; i + 1 < s.points.length; i += 2) pts.push(`${(s.points[i]! * w).toFixed(1)},${(s.points[i + 1]! * h).toFixed(1)}`);
    const d = `M${pts[0]}${pts.slice(1).map((p) => ` L${p}`).join('')}${pts.length === 1 ? ` L${pts[0]}` : ''}`;
    return `  <path d="${d}" fill="none" stroke="${s.color}" stroke-width="${(s.width * PX_PER_DP).toFixed(1)}" stroke-linecap="round" stroke-linejoin="round"/>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">\n`
    + `  <rect width="100%" height="100%" fill="#FFFFFF"/>\n${paths.join('\n')}\n</svg>\n`;
}

export function encodeDrawing(strokes: readonly Stroke[], ext: DrawExtension): Buffer {
  if (ext === 'svg') return Buffer.from(svgOf(strokes), 'utf8');
  const { w, h } = CANVAS_PX;
  const canvas = createCanvas(w, h);
  const g = canvas.getContext('2d');
  g.fillStyle = '#FFFFFF';
  g.fillRect(0, 0, w, h);
  drawStrokes(g, strokes.map((s) => ({ ...s, width: s.width * PX_PER_DP })), { x: 0, y: 0, w, h });
  return ext === 'png' ? canvas.encodeSync('png') : canvas.encodeSync('jpeg', 90);
}
