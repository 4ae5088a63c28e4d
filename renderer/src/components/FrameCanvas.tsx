import { useEffect, useRef } from 'react';

/**
 * A live mirror's frames painted on a canvas. An <img> with a new object URL per frame made
 * Chromium load every frame through its blob machinery, and an image replaced before it loaded was
 * never shown (18 of 43 a second presented; ~34 ms of CPU a frame over its processes against ~28
 * here: BENCHMARKS.md, "Workbench UI in the browser"). Here each PNG is decoded off the main thread
 * by createImageBitmap and handed to the canvas without a copy (bitmaprenderer). Frames that arrive
 * while one is decoding (or waiting for the display to show the last) are skipped but the newest,
 * as the mirrors upstream do.
 * `data-frame` counts the frames painted (for tests and benches).
 */
export const canPaintFrames = typeof createImageBitmap === 'function' && typeof ImageBitmapRenderingContext !== 'undefined';

export function FrameCanvas({ png }: { png: Uint8Array }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const queue = useRef({ next: null as Uint8Array | null, busy: false, painted: 0 });

  useEffect(() => {
    const q = queue.current;
    q.next = png;
    if (q.busy) return;
    q.busy = true;
    void (async () => {
      try {
        while (q.next) {
          const bytes = q.next;
          q.next = null;
          const bitmap = await createImageBitmap(new Blob([bytes as BlobPart], { type: 'image/png' })).catch(() => null);
          const el = canvas.current;
          // A frame that does not decode is skipped; the next one replaces it.
          if (!bitmap) continue;
          if (!el) {
            bitmap.close();
            break;
          }
          paint(el, bitmap);
          q.painted++;
          el.dataset.frame = String(q.painted);
          // The next decode waits for the display to take this frame: a frame painted over in the
          // same refresh is never seen, and decoding it was wasted (9 a second in the ui bench).
          await nextAnimationFrame();
        }
      } finally {
        q.busy = false;
      }
    })();
  }, [png]);

  return <canvas ref={canvas} role="img" aria-label="device screen" style={{ width: '100%', height: '100%', display: 'block' }} />;
}

function nextAnimationFrame(): Promise<void> {
  return new Promise((resolve) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(() => resolve()) : resolve()));
}

/** Hands the bitmap to the canvas, which takes it over and sizes itself to it. */
function paint(el: HTMLCanvasElement, bitmap: ImageBitmap): void {
  const renderer = el.getContext('bitmaprenderer');
  if (renderer) renderer.transferFromImageBitmap(bitmap);
  else bitmap.close();
}
