import { createCanvas, loadImage } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { encodePng, halveRgba } from '../../core/util/png.js';

describe('encodePng', () => {
  it('writes a PNG that a decoder reads back pixel for pixel', async () => {
    const w = 7;
    const h = 5;
    const rgba = new Uint8Array(w * h * 4);
    for (let i = 0; i < rgba.length; i++) rgba[i] = i % 4 === 3 ? 255 : (i * 37) % 256;
    const img = await loadImage(encodePng(rgba, w, h));
    const c = createCanvas(w, h);
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    expect([...g.getImageData(0, 0, w, h).data]).toEqual([...rgba]);
  });

  it('refuses a buffer of the wrong size', () => {
    expect(() => encodePng(new Uint8Array(10), 2, 2)).toThrow('encodePng: 10 bytes for 2x2 RGBA');
  });
});

describe('halveRgba', () => {
  it('averages 2x2 blocks', () => {
    // 2x2 image: one grey pixel value per channel set, alpha opaque.
    const rgba = new Uint8Array([0, 0, 0, 255, 100, 100, 100, 255, 200, 200, 200, 255, 100, 100, 100, 255]);
    const half = halveRgba(rgba, 2, 2);
    expect([half.width, half.height]).toEqual([1, 1]);
    expect([...half.rgba]).toEqual([100, 100, 100, 255]);
  });

  it('matches a per-channel reference on odd sizes and an unaligned buffer', () => {
    const w = 13;
    const h = 9;
    const backing = new Uint8Array(w * h * 4 + 1);
    let x = 12345;
    for (let i = 0; i < backing.length; i++) {
      x = (x * 1103515245 + 12345) >>> 0;
      backing[i] = x >>> 24;
    }
    const rgba = backing.subarray(1); // byteOffset 1: not word aligned
    const half = halveRgba(rgba, w, h);
    expect([half.width, half.height]).toEqual([6, 4]);
    const want: number[] = [];
    for (let y = 0; y < 4; y++) {
      for (let xx = 0; xx < 6; xx++) {
        for (let c = 0; c < 4; c++) {
          const at = (yy: number, xi: number) => rgba[(yy * w + xi) * 4 + c]!;
          want.push((at(2 * y, 2 * xx) + at(2 * y, 2 * xx + 1) + at(2 * y + 1, 2 * xx) + at(2 * y + 1, 2 * xx + 1) + 2) >> 2);
        }
      }
    }
    expect([...half.rgba]).toEqual(want);
  });

  it('refuses a buffer smaller than its size', () => {
    expect(() => halveRgba(new Uint8Array(12), 2, 2)).toThrow('halveRgba: 12 bytes for 2x2 RGBA');
  });
});
