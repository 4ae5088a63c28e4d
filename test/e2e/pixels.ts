/// <reference lib="dom" />
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Locator, Page } from 'playwright-core';

/** What the browser drew, read back from its pixels (charts and screens are canvases and images, not text). */

const DOCS_IMG = fileURLToPath(new URL('../../docs/img/', import.meta.url));

/**
 * Distinct colours on a canvas, and how many pixels are `rgb` (a chart's series colour), each channel within
 * `tolerance` (a line's antialiased core is near its colour, not on it).
 */
export async function canvasColours(canvas: Locator, rgb: [number, number, number] = [0, 0, 0], tolerance = 0): Promise<{ colours: number; matching: number }> {
  return canvas.evaluate((c: HTMLCanvasElement, [want, tol]: [number[], number]) => {
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set<number>();
    let matching = 0;
    for (let i = 0; i < d.length; i += 4) {
      seen.add((d[i]! << 16) | (d[i + 1]! << 8) | d[i + 2]!);
      if (Math.abs(d[i]! - want[0]!) <= tol && Math.abs(d[i + 1]! - want[1]!) <= tol && Math.abs(d[i + 2]! - want[2]!) <= tol && d[i + 3]! > 0) matching++;
    }
    return { colours: seen.size, matching };
  }, [rgb, tolerance] as [number[], number]);
}

/** The Live view's mirrored screen: a canvas (FrameCanvas) whose `data-frame` counts the frames painted. */
export const LIVE_FRAME = '[data-testid="live-screen"] canvas';
export const FRAME_COUNT = 'data-frame';

/**
 * Starts counting the Live view's frames in the page; the function returned stops and reads them:
 * `painted`, when each frame was painted (the canvas's frame counter changing), and
 * `presentedPerSecond`, animation frames that found a new one painted since the last (at most
 * the display's rate). The page needs `window.__name` when the caller's file is compiled by tsx.
 */
export async function countFrames(page: Page): Promise<() => Promise<{ painted: number[]; presentedPerSecond: number }>> {
  type Counter = { painted: number[]; presented: number; stop: boolean; t0: number };
  await page.evaluate(([sel, attr]) => {
    const c: Counter = { painted: [], presented: 0, stop: false, t0: performance.now() };
    (window as unknown as { frameCounter_: Counter }).frameCounter_ = c;
    const el = document.querySelector(sel)!;
    new MutationObserver(() => c.painted.push(performance.now())).observe(el, { attributes: true, attributeFilter: [attr] });
    let last = el.getAttribute(attr);
    const tick = () => {
      const now = el.getAttribute(attr);
      if (now !== last) c.presented++;
      last = now;
      if (!c.stop) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }, [LIVE_FRAME, FRAME_COUNT] as const);
  return () => page.evaluate(() => {
    const c = (window as unknown as { frameCounter_: Counter }).frameCounter_;
    c.stop = true;
    return { painted: c.painted, presentedPerSecond: c.presented / ((performance.now() - c.t0) / 1000) };
  });
}

/** Distinct colours in an <img> or a painted frame's canvas: a blank or failed image has one or two. */
export async function imageColours(img: Locator): Promise<number> {
  return img.evaluate(async (el: HTMLImageElement | HTMLCanvasElement) => {
    if (el instanceof HTMLImageElement) await el.decode();
    const c = document.createElement('canvas');
    c.width = el instanceof HTMLImageElement ? el.naturalWidth : el.width;
    c.height = el instanceof HTMLImageElement ? el.naturalHeight : el.height;
    const g = c.getContext('2d')!;
    g.drawImage(el, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set<number>();
    for (let i = 0; i < d.length; i += 4 * 97) seen.add((d[i]! << 16) | (d[i + 1]! << 8) | d[i + 2]!);
    return seen.size;
  });
}

/** A README picture of the page: `npm run docs:screenshots` refreshes them; a plain test run leaves docs/ alone. */
export async function shot(page: Page, name: string): Promise<void> {
  if (process.env.AWB_DOCS_SCREENSHOTS !== '1') return;
  mkdirSync(DOCS_IMG, { recursive: true });
  await page.screenshot({ path: `${DOCS_IMG}ui-${name}.png` });
}
