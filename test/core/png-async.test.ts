import * as zlib from 'node:zlib';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import { describe, expect, it } from 'vitest';
import { encodePng } from '../../core/util/png.js';
import { idatInflated } from '../helpers/png.js';
import { adler32, adler32Combine, encodePngAsync } from '../../core/util/png-async.js';

function noise(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

/** An RGBA image with flat areas (as UI frames have) and noisy rows (so deflate must emit literals). */
function image(w: number, h: number, seed: number): Uint8Array {
  const rgba = noise(w * h * 4, seed);
  for (let y = 0; y < h; y++) if (y % 3 !== 0) rgba.fill((y * 7) & 0xff, y * w * 4, (y + 1) * w * 4);
  // Opaque, as screens are: the canvas that decodes for the check premultiplies alpha.
  for (let i = 3; i < rgba.length; i += 4) rgba[i] = 255;
  return rgba;
}

/** Whether a PNG decodes (by the canvas library) to exactly these pixels. */
async function decodesTo(png: Buffer, w: number, h: number, rgba: Uint8Array): Promise<boolean> {
  const c = createCanvas(w, h);
  c.getContext('2d').drawImage(await loadImage(png), 0, 0);
  const px = c.getContext('2d').getImageData(0, 0, w, h).data;
  return Buffer.from(px.buffer, px.byteOffset, px.byteLength).equals(rgba);
}

describe('adler32Combine', () => {
  const whole = (b: Uint8Array) => {
    const z = zlib.deflateSync(b, { level: 0 }); // the zlib trailer is the Adler-32 of the input
    return z.readUInt32BE(z.length - 4);
  };

  it('adler32 matches zlib', () => {
    for (const n of [0, 1, 5551, 5552, 5553, 65521, 100_000]) {
      const b = noise(n, n + 1);
      expect(adler32(b)).toBe(whole(b));
    }
    // All 0xff maximises the sums: checks the NMAX blocking cannot overflow.
    const ff = new Uint8Array(200_000).fill(0xff);
    expect(adler32(ff)).toBe(whole(ff));
  });

  it('combines the Adler-32s of two pieces into that of the whole, for any split', () => {
    const cases: Array<[number, number]> = [[0, 0], [0, 10], [10, 0], [1, 1], [65521, 3], [3, 65521], [65520, 65522], [131_042, 70_000], [5552, 5552]];
    for (const [n1, n2] of cases) {
      const a = noise(n1, n1 * 31 + 7);
      const b = noise(n2, n2 * 17 + 3);
      const ab = new Uint8Array(n1 + n2);
      ab.set(a);
      ab.set(b, n1);
      expect(adler32Combine(adler32(a), adler32(b), n2), `${n1}+${n2}`).toBe(whole(ab));
    }
  });

  it('is right when the sums sit near BASE (65521)', () => {
    // 0xff bytes push both sums close to BASE; check a range of lengths around the wrap points.
    for (const n1 of [256, 257, 65520, 65521, 65522]) {
      for (const n2 of [1, 255, 256, 257, 65520, 65521, 65522]) {
        const ab = new Uint8Array(n1 + n2).fill(0xff);
        ab.fill(0xfe, n1);
        expect(adler32Combine(adler32(ab.subarray(0, n1)), adler32(ab.subarray(n1)), n2), `${n1}+${n2}`).toBe(whole(ab));
      }
    }
  });

  it('refuses a negative length', () => {
    expect(() => adler32Combine(1, 1, -1)).toThrow(RangeError);
  });
});

describe('encodePngAsync', () => {
  it('decodes to the input pixels, with one to several bands, for odd and tiny sizes', async () => {
    for (const [w, h] of [[1, 1], [1, 2], [3, 1], [7, 5], [13, 9], [64, 33], [200, 101]] as const) {
      const rgba = image(w, h, w * 1000 + h);
      for (const bands of [1, 2, 3, 4]) {
        const png = await encodePngAsync(rgba, w, h, { bands, minParallelBytes: 0 });
        expect(await decodesTo(png, w, h, rgba), `${w}x${h} in ${bands} bands`).toBe(true);
      }
    }
  });

  it('inflates to the same filtered bytes as the single-thread encoder, its Adler-32 included', async () => {
    const [w, h] = [1080, 601];
    const rgba = image(w, h, 42);
    const single = idatInflated(encodePng(rgba, w, h));
    for (const bands of [2, 3]) {
      expect(idatInflated(await encodePngAsync(rgba, w, h, { bands, minParallelBytes: 0 })).equals(single)).toBe(true);
    }
  });

  it('reads rows from a function band by band', async () => {
    const [w, h] = [50, 41];
    const rgba = image(w, h, 5);
    const asked: Array<[number, number]> = [];
    const png = await encodePngAsync((y0, y1) => {
      asked.push([y0, y1]);
      return rgba.subarray(y0 * w * 4, y1 * w * 4);
    }, w, h, { minParallelBytes: 0 });
    expect(asked).toEqual([[0, 20], [20, 41]]);
    expect(await decodesTo(png, w, h, rgba)).toBe(true);
  });

  it('encodes concurrently without mixing up buffers', async () => {
    const imgs = [0, 1, 2, 3].map((i) => image(300, 200 + i, i));
    const pngs = await Promise.all(imgs.map((rgba, i) => encodePngAsync(rgba, 300, 200 + i, { minParallelBytes: 0 })));
    for (const [i, png] of pngs.entries()) expect(await decodesTo(png, 300, 200 + i, imgs[i]!)).toBe(true);
  });

  it('refuses a buffer of the wrong size', async () => {
    await expect(encodePngAsync(new Uint8Array(10), 2, 2)).rejects.toThrow('encodePngAsync: 10 bytes for 2x2 RGBA');
    await expect(encodePngAsync(() => new Uint8Array(3), 2, 2)).rejects.toThrow(RangeError);
  });
});
