import { createHash } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { prepare, type ReadableDB, type WritableDB } from './db.js';
import { ScreenshotFormatError, ScreenshotNotFoundError, TreeNotFoundError } from './errors.js';

/**
 * Content-addressed screenshots and accessibility trees. Consecutive observations often repeat (a
 * tap that changed nothing, the launcher every episode starts on), so each distinct PNG or XML is
 * stored once, keyed by the SHA-256 of its bytes.
 *
 * Trees are raw DEFLATE, level 6: on SimDroid trees (≈25 KB of XML) it keeps 6.3% of the bytes in
 * 0.18 ms; brotli q5 keeps 5.4% in 0.21 ms, but the PNGs dominate the store's size either way and
 * Python reads DEFLATE with the standard library (`zlib.decompress(b, -15)`).
 */
export const TREE_DEFLATE_LEVEL = 6;

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from the PNG's IHDR chunk (always the first, right after the signature). */
export function pngSize(png: Buffer, sha?: string): { width: number; height: number } {
  // The hash only names a bad PNG in the error: mirror frames pass here at up to 60 a second.
  if (png.length < 24 || !png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new ScreenshotFormatError(sha ?? sha256(png), 'no PNG signature');
  if (png.toString('latin1', 12, 16) !== 'IHDR') throw new ScreenshotFormatError(sha ?? sha256(png), 'the first chunk is not IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** Stores a PNG unless an identical one is there; returns its hash. */
export function putScreenshot(db: WritableDB, png: Buffer): string {
  const sha = sha256(png);
  if (!hasScreenshot(db, sha)) {
    const { width, height } = pngSize(png, sha);
    prepare(db, 'INSERT INTO screenshots (sha256, png, width, height, bytes) VALUES (?, ?, ?, ?, ?)').run(sha, png, width, height, png.length);
  }
  return sha;
}

/** Stores an accessibility tree unless an identical one is there (compressing only new ones); returns its hash. */
export function putTree(db: WritableDB, xml: string): string {
  const bytes = Buffer.from(xml, 'utf8');
  const sha = sha256(bytes);
  if (!hasTree(db, sha)) {
    prepare(db, 'INSERT INTO ui_trees (sha256, xml_deflate, bytes) VALUES (?, ?, ?)')
      .run(sha, deflateRawSync(bytes, { level: TREE_DEFLATE_LEVEL }), bytes.length);
  }
  return sha;
}

export function hasScreenshot(db: ReadableDB, sha: string): boolean {
  return prepare(db, 'SELECT 1 FROM screenshots WHERE sha256 = ?').get(sha) !== undefined;
}

export function hasTree(db: ReadableDB, sha: string): boolean {
  return prepare(db, 'SELECT 1 FROM ui_trees WHERE sha256 = ?').get(sha) !== undefined;
}

export function getScreenshot(db: ReadableDB, sha: string): Buffer {
  const png = prepare<[string], Buffer>(db, 'SELECT png FROM screenshots WHERE sha256 = ?').pluck().get(sha);
  if (!png) throw new ScreenshotNotFoundError(sha);
  return png;
}

/** The tree's XML, inflated. */
export function getTree(db: ReadableDB, sha: string): string {
  const z = prepare<[string], Buffer>(db, 'SELECT xml_deflate FROM ui_trees WHERE sha256 = ?').pluck().get(sha);
  if (!z) throw new TreeNotFoundError(sha);
  return inflateRawSync(z).toString('utf8');
}

export interface ContentStats {
  screenshots: { count: number; bytes: number };
  /** `bytes` uncompressed XML, `storedBytes` after DEFLATE. */
  trees: { count: number; bytes: number; storedBytes: number };
}

export function contentStats(db: ReadableDB): ContentStats {
  const s = prepare<[], { count: number; bytes: number | null }>(db, 'SELECT count(*) AS count, sum(bytes) AS bytes FROM screenshots').get()!;
  const t = prepare<[], { count: number; bytes: number | null; stored: number | null }>(
    db, 'SELECT count(*) AS count, sum(bytes) AS bytes, sum(length(xml_deflate)) AS stored FROM ui_trees',
  ).get()!;
  return {
    screenshots: { count: s.count, bytes: s.bytes ?? 0 },
    trees: { count: t.count, bytes: t.bytes ?? 0, storedBytes: t.stored ?? 0 },
  };
}
