import * as zlib from 'node:zlib';
import { acquireScratch, filterRows, pngFile, releaseScratch } from './png.js';

/**
 * encodePng for large frames, off the calling thread and on two cores: the filtered rows are cut
 * into bands, each deflated (level 1) by Node's async zlib on the libuv thread pool, and the
 * pieces joined into one zlib stream. Every band but the last ends with a sync flush, which
 * byte-aligns it and leaves no block open, so the raw deflate data of consecutive bands
 * concatenates into one valid stream (zlib.h, Z_SYNC_FLUSH; pigz joins blocks the same way).
 * The stream's Adler-32 is combined from the bands' own, which zlib computes natively while
 * deflating (a JS Adler-32 of a half frame took longer than deflating it). The caller's thread is
 * free meanwhile, e.g. to answer other adb streams. Output decodes to the same pixels as encodePng.
 */

export type RowSource = Uint8Array | Uint8ClampedArray | ((y0: number, y1: number) => Uint8Array | Uint8ClampedArray);

export interface AsyncPngOptions {
  /** How many bands (default 2: the machines this runs on have few cores, and the caller waits). */
  bands?: number;
  /** Filtered images smaller than this are encoded synchronously: a thread hop costs more. */
  minParallelBytes?: number;
}

const BASE = 65521;
/** Largest n such that 255n(n+1)/2 + (n+1)(BASE-1) fits in 32 bits (zlib's NMAX). */
const NMAX = 5552;

/** Adler-32 of `buf`, continuing from `adler` (1 for a new stream). A reference for tests and checks. */
export function adler32(buf: Uint8Array, adler = 1): number {
  let a = adler & 0xffff;
  let b = adler >>> 16;
  for (let i = 0; i < buf.length;) {
    const end = Math.min(i + NMAX, buf.length);
    for (; i < end; i++) {
      a += buf[i]!;
      b += a;
    }
    a %= BASE;
    b %= BASE;
  }
  return (b * 65536 + a) >>> 0;
}

/**
 * The Adler-32 of A‖B from adler(A), adler(B) and B's length — zlib's adler32_combine_
 * (zlib 1.3, adler32.c). With a = 1 + Σx and b = n + Σ(n−i)x_i over bytes x_0…x_{n−1}, appending
 * B (length n2) gives a = a1 + a2 − 1 and b = b1 + b2 + n2·(a1 − 1), all mod BASE:
 *   rem  = n2 mod BASE
 *   sum1 = (a1 + a2 + BASE − 1) mod BASE
 *   sum2 = (rem·a1 mod BASE + b1 + b2 + BASE − rem) mod BASE
 */
export function adler32Combine(adler1: number, adler2: number, len2: number): number {
  if (!Number.isSafeInteger(len2) || len2 < 0) throw new RangeError(`adler32Combine: bad length ${len2}`);
  const rem = len2 % BASE;
  const a1 = adler1 & 0xffff;
  let sum2 = (rem * a1) % BASE;
  let sum1 = a1 + (adler2 & 0xffff) + BASE - 1;
  sum2 += (adler1 >>> 16) + (adler2 >>> 16) + BASE - rem;
  sum1 %= BASE;
  sum2 %= BASE;
  return (sum2 * 65536 + sum1) >>> 0;
}

interface Band {
  /** Raw deflate data: ends in a sync flush (non-final) or in the final block. */
  body: Buffer;
  adler: number;
  length: number;
}

class BandFormatError extends Error {}

const SYNC_MARK = Buffer.from([0x00, 0x00, 0xff, 0xff]);
/** A final fixed-Huffman block holding only end-of-block, as deflate writes it once byte-aligned. */
const EMPTY_FINAL = Buffer.from([0x03, 0x00]);
const CHUNK = 256 * 1024;

/**
 * Deflates one band as a zlib stream, on the thread pool. A non-final band is sync-flushed and
 * then finished with no more input, so its tail is the sync mark, an empty final block and the
 * Adler-32; the empty final block is cut off (it would end the joined stream early).
 */
function deflateBand(data: Buffer, final: boolean): Promise<Band> {
  return new Promise((resolve, reject) => {
    const z = zlib.createDeflate({ level: 1, chunkSize: CHUNK });
    const parts: Buffer[] = [];
    let size = 0;
    z.on('data', (c: Buffer) => {
      parts.push(c);
      size += c.length;
    });
    z.on('error', reject);
    z.on('end', () => {
      const out = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
      const adler = out.readUInt32BE(out.length - 4);
      if (final) return resolve({ body: out.subarray(2, out.length - 4), adler, length: data.length });
      const tail = out.subarray(out.length - 10, out.length - 4);
      if (!tail.subarray(0, 4).equals(SYNC_MARK) || !tail.subarray(4).equals(EMPTY_FINAL)) {
        return reject(new BandFormatError(`unexpected band tail ${tail.toString('hex')}`));
      }
      resolve({ body: out.subarray(2, out.length - 6), adler, length: data.length });
    });
    if (final) {
      z.end(data);
    } else {
      z.write(data);
      // The flush waits for the write to drain; end() only after it, or the flush is dropped.
      z.flush(zlib.constants.Z_SYNC_FLUSH, () => z.end());
    }
  });
}

/** Joins bands into one zlib stream: header (deflate, 32K window, fastest), bodies, Adler-32. */
function joinBands(bands: Band[]): Buffer {
  let adler = 1;
  for (const b of bands) adler = adler32Combine(adler, b.adler, b.length);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(adler, 0);
  return Buffer.concat([Buffer.from([0x78, 0x01]), ...bands.map((b) => b.body), trailer]);
}

/**
 * A PNG of `height` rows of RGBA. `rows` is the whole image, or a function giving rows [y0, y1)
 * (called before this returns, band by band, so a band deflates while the next is read).
 * Falls back to one synchronous deflate if a band fails or comes out in a form it does not expect.
 */
export async function encodePngAsync(rows: RowSource, width: number, height: number, opts: AsyncPngOptions = {}): Promise<Buffer> {
  if (typeof rows !== 'function' && rows.length !== width * height * 4) {
    throw new RangeError(`encodePngAsync: ${rows.length} bytes for ${width}x${height} RGBA`);
  }
  const rowBytes = width * 4 + 1;
  const size = rowBytes * height;
  const n = size < (opts.minParallelBytes ?? 1 << 20) ? 1 : Math.max(1, Math.min(opts.bands ?? 2, height));
  const scratch = acquireScratch(size);
  const raw = scratch.subarray(0, size);
  const pending: Promise<Band>[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const y0 = Math.floor((i * height) / n);
      const y1 = Math.floor(((i + 1) * height) / n);
      const part = typeof rows === 'function' ? rows(y0, y1) : rows.subarray(y0 * width * 4, y1 * width * 4);
      if (part.length !== (y1 - y0) * width * 4) throw new RangeError(`encodePngAsync: rows ${y0}–${y1} came as ${part.length} bytes`);
      filterRows(raw, part, width, y0, y1);
      if (n > 1) pending.push(deflateBand(raw.subarray(y0 * rowBytes, y1 * rowBytes), i === n - 1));
    }
    if (n === 1) return pngFile(width, height, zlib.deflateSync(raw, { level: 1 }));
    const results = await Promise.allSettled(pending);
    const bands = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    // A band the thread pool could not deflate, or in an unexpected form: deflate it all here.
    const zdata = bands.length === n ? joinBands(bands) : zlib.deflateSync(raw, { level: 1 });
    return pngFile(width, height, zdata);
  } finally {
    // The thread pool may still be reading the buffer (if a row source threw): wait for it.
    await Promise.allSettled(pending);
    releaseScratch(scratch);
  }
}
