import * as zlib from 'node:zlib';

/**
 * A minimal PNG encoder for screenshots: 8-bit RGBA, no row filters, zlib level 1. UI frames are
 * mostly flat colour, so fast deflate alone compresses them well; this is ~3.5x faster than the
 * canvas library's default PNG encoder at full resolution (BENCHMARKS.md) and gives smaller files.
 */
const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let table: Uint32Array | undefined;
function crc32Fallback(buf: Uint8Array, crc = 0): number {
  if (!table) {
    table = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c >>> 0;
    }
  }
  let c = ~crc >>> 0;
  for (let i = 0; i < buf.length; i++) c = table[(c ^ buf[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

// zlib.crc32 exists from Node 20.15 / 22.2; older runtimes use the table.
const crc32: (b: Uint8Array, seed?: number) => number = (zlib as { crc32?: (b: Uint8Array, s?: number) => number }).crc32 ?? crc32Fallback;

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)) >>> 0, 8 + data.length);
  return out;
}

// Filtered images handed to deflate are reused between calls: allocating ~10 MB per full-size
// frame costs page faults every time. An async encode holds its buffer until it finishes, so
// idle ones wait in a small pool.
const idle: Buffer[] = [];
const MAX_IDLE = 2;

/** A buffer of at least `size` bytes for filtered rows; give it back with releaseScratch. */
export function acquireScratch(size: number): Buffer {
  const i = idle.findIndex((b) => b.length >= size);
  return i >= 0 ? idle.splice(i, 1)[0]! : Buffer.allocUnsafe(size);
}

export function releaseScratch(buf: Buffer): void {
  if (idle.length >= MAX_IDLE) idle.sort((a, b) => a.length - b.length).shift();
  idle.push(buf);
}

/** Writes rows [y0, y1) of `rgba` (which starts at row y0) into `raw`, each after filter byte 0 (None). */
export function filterRows(raw: Buffer, rgba: Uint8Array | Uint8ClampedArray, width: number, y0: number, y1: number): void {
  const stride = width * 4;
  for (let y = y0; y < y1; y++) {
    const at = y * (stride + 1);
    raw[at] = 0;
    raw.set(rgba.subarray((y - y0) * stride, (y - y0 + 1) * stride), at + 1);
  }
}

/** A PNG file of 8-bit RGBA pixels around an already compressed (zlib) IDAT stream. */
export function pngFile(width: number, height: number, zdata: Buffer): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 6; // colour type RGBA
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', zdata), chunk('IEND', Buffer.alloc(0))]);
}

export function encodePng(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): Buffer {
  if (rgba.length !== width * height * 4) throw new RangeError(`encodePng: ${rgba.length} bytes for ${width}x${height} RGBA`);
  const size = (width * 4 + 1) * height;
  const scratch = acquireScratch(size);
  try {
    const raw = scratch.subarray(0, size);
    filterRows(raw, rgba, width, 0, height);
    return pngFile(width, height, zlib.deflateSync(raw, { level: 1 }));
  } finally {
    releaseScratch(scratch);
  }
}

/**
 * Halves an RGBA image by averaging 2×2 blocks (a half-resolution screenshot from raw pixels),
 * rounding to nearest. Channels are summed two at a time in 16-bit lanes of a 32-bit word
 * (R and B, then G and A): four 8-bit values cannot overflow a lane, and it is ~4x faster than a
 * per-byte loop on a 1080×2400 frame.
 */
export function halveRgba(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number): { rgba: Uint8Array; width: number; height: number } {
  if (rgba.length < width * height * 4) throw new RangeError(`halveRgba: ${rgba.length} bytes for ${width}x${height} RGBA`);
  const w = Math.floor(width / 2);
  const h = Math.floor(height / 2);
  const out = new Uint8Array(w * h * 4);
  // Word access needs 4-byte alignment; a buffer that is not aligned is copied once.
  const aligned = rgba.byteOffset % 4 === 0 ? rgba : new Uint8Array(rgba);
  const src = new Uint32Array(aligned.buffer, aligned.byteOffset, width * height);
  const dst = new Uint32Array(out.buffer);
  const LANES = 0x00ff00ff;
  const ROUND = 0x00020002;
  for (let y = 0; y < h; y++) {
    let a = 2 * y * width;
    let b = a + width;
    let o = y * w;
    for (let x = 0; x < w; x++, a += 2, b += 2, o++) {
      const p0 = src[a]!, p1 = src[a + 1]!, p2 = src[b]!, p3 = src[b + 1]!;
      const rb = (((p0 & LANES) + (p1 & LANES) + (p2 & LANES) + (p3 & LANES) + ROUND) >>> 2) & LANES;
      const ga = ((((p0 >>> 8) & LANES) + ((p1 >>> 8) & LANES) + ((p2 >>> 8) & LANES) + ((p3 >>> 8) & LANES) + ROUND) >>> 2) & LANES;
      dst[o] = (rb | (ga << 8)) >>> 0;
    }
  }
  return { rgba: out, width: w, height: h };
}
