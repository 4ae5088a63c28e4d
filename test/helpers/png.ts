import * as zlib from 'node:zlib';

/** The zlib stream inside a PNG's IDAT chunks, inflated (throws on a bad stream or Adler-32). */
export function idatInflated(png: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const len = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') parts.push(png.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  return zlib.inflateSync(Buffer.concat(parts));
}
