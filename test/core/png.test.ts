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
});
