import type { AwUiElement } from '../../../a11y/androidworld-elements.js';
import { pngSize, type Size } from '../geometry.js';
import { validUiElement } from './androidworld-text.js';

/**
 * AndroidWorld's M3A set-of-marks (m3a_utils.add_ui_element_mark, add_screenshot_label), drawn on a screenshot: for
 * each element the agent lists (validate_ui_element), in index order, a green box on its bounds, a white label box at
 * its top left corner and its index in black; the summary's after-screenshot also gets a white box with "after" in the
 * bottom right corner. The geometry is AndroidWorld's, for a portrait screen whose logical size is its physical frame
 * (an emulator's): with the screenshot's scale s = (shot width / screen width, shot height / screen height) and
 * |s| = √(sx² + sy²), the box is from int(corner · s), its line int(2|s|) pixels thick, the label box the rows
 * top + int(sy) … top + int(25 sy) and columns left + int(sx) … left + int(35 sx) (numpy's slice rules), the index at
 * (left + int(sx), top + int(20 sy)) on the baseline.
 *
 * What differs, measured against AndroidWorld's own functions (docs/policy-vlm.md "Presets"): OpenCV writes the
 * index and "after" in its Hershey stroke font (FONT_HERSHEY_SIMPLEX, scale 0.7|s|, not anti-aliased); here they are
 * DejaVu Sans at the Hershey digits' height, anti-aliased. Boxes and label boxes are the same pixels.
 */
const GREEN = 'rgb(0,255,0)';
/** FONT_HERSHEY_SIMPLEX's digit height at scale 1 (cv2.getTextSize('0', …, 1, 1): 21 pixels above the baseline). */
const HERSHEY_DIGIT_HEIGHT = 21;
/** DejaVu Sans' digit height per pixel of font size (its figures are 0.729 em tall). */
const DEJAVU_DIGIT_EM = 0.729;

export interface MarksOptions {
  /** The logical screen the elements' bounds are in (the device's screen). */
  screen: Size;
  /** Add the "after" label (M3A's summary call, the after-screenshot). */
  afterLabel?: boolean;
}

/** Python's slice start:stop on a length n: negative counts from the end, both clipped to [0, n]. */
function pySlice(start: number, stop: number, n: number): [number, number] {
  const norm = (i: number) => Math.min(n, Math.max(0, i < 0 ? i + n : i));
  return [norm(start), norm(stop)];
}

export async function drawSetOfMarks(png: Uint8Array, elements: readonly AwUiElement[], o: MarksOptions): Promise<Uint8Array> {
  const size = pngSize(png);
  if (!size) throw new Error('set-of-marks: the screenshot is not a PNG');
  const { loadImage, createCanvas } = await import('@napi-rs/canvas');
  const img = await loadImage(Buffer.from(png.buffer, png.byteOffset, png.byteLength));
  const c = createCanvas(size.width, size.height);
  const g = c.getContext('2d');
  g.drawImage(img, 0, 0);
  const sx = size.width / o.screen.width;
  const sy = size.height / o.screen.height;
  const iso = Math.sqrt(sx * sx + sy * sy);
  const thickness = Math.trunc(2 * iso);
  const text = (s: string, x: number, y: number, scale: number) => {
    g.fillStyle = 'rgb(0,0,0)';
    g.font = `${(HERSHEY_DIGIT_HEIGHT * scale) / DEJAVU_DIGIT_EM}px "DejaVu Sans"`;
    g.textBaseline = 'alphabetic';
    g.fillText(s, x, y);
  };
  elements.forEach((e, index) => {
    if (!validUiElement(e, o.screen)) return;
    const b = e.bbox_pixels;
    // _logical_to_physical with the logical screen as the physical frame, then the screenshot's scale.
    const phys = (x: number, y: number) => [Math.trunc((x * o.screen.width) / o.screen.width), Math.trunc((y * o.screen.height) / o.screen.height)] as const;
    const [x0p, y0p] = phys(Math.trunc(b.x_min), Math.trunc(b.y_min));
    const [x1p, y1p] = phys(Math.trunc(b.x_max), Math.trunc(b.y_max));
    const [x0, y0, x1, y1] = [Math.trunc(x0p * sx), Math.trunc(y0p * sy), Math.trunc(x1p * sx), Math.trunc(y1p * sy)];
    rectangle(g, x0, y0, x1, y1, thickness);
    const [r0, r1] = pySlice(y0 + Math.trunc(sy), y0 + Math.trunc(25 * sy), size.height);
    const [c0, c1] = pySlice(x0 + Math.trunc(sx), x0 + Math.trunc(35 * sx), size.width);
    g.fillStyle = 'rgb(255,255,255)';
    if (r1 > r0 && c1 > c0) g.fillRect(c0, r0, c1 - c0, r1 - r0);
    text(String(index), x0 + Math.trunc(sx), y0 + Math.trunc(20 * sy), 0.7 * iso);
  });
  if (o.afterLabel) {
    const { width: w, height: h } = size;
    const [r0, r1] = pySlice(h - 30, h, h);
    const [c0, c1] = pySlice(w - 150, w, w);
    g.fillStyle = 'rgb(255,255,255)';
    g.fillRect(c0, r0, c1 - c0, r1 - r0);
    text('after', w - 120, h - 5, 1);
  }
  return c.encode('png');
}

/**
 * cv2.rectangle(img, (x0, y0), (x1, y1), green, thickness) as OpenCV draws it for the thicknesses M3A uses: 1 (a
 * screenshot smaller than the screen) is each side's line of pixels, corners included; 2 (a full-size one) is a band
 * of 3 pixels centred on each side (OpenCV's thick lines reach thickness/2 either side), whose four outermost corner
 * pixels stay undrawn (its round line ends). A larger thickness (a screenshot larger than the screen) is drawn as
 * bands of that width.
 */
function rectangle(g: { fillStyle: unknown; fillRect(x: number, y: number, w: number, h: number): void }, x0: number, y0: number, x1: number, y1: number, t: number): void {
  const half = t === 1 ? 0 : t === 2 ? 1 : Math.floor(t / 2);
  const w = 2 * half + 1;
  const [l, r] = [Math.min(x0, x1), Math.max(x0, x1)];
  const [top, bottom] = [Math.min(y0, y1), Math.max(y0, y1)];
  g.fillStyle = GREEN;
  const cut = t === 2 ? 1 : 0; // the outer corner pixel of each side's end
  g.fillRect(l - half + cut, top - half, r - l + w - 2 * cut, w); // top
  g.fillRect(l - half + cut, bottom - half, r - l + w - 2 * cut, w); // bottom
  g.fillRect(l - half, top - half + cut, w, bottom - top + w - 2 * cut); // left
  g.fillRect(r - half, top - half + cut, w, bottom - top + w - 2 * cut); // right
}
