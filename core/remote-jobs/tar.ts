import { closeSync, openSync, writeSync } from 'node:fs';
import { createHash, type Hash } from 'node:crypto';

/**
 * A minimal POSIX ustar writer (and reader, for checks): regular files only, names ≤ 255 bytes
 * (split into prefix/name as ustar allows), sizes < 8 GiB (11 octal digits). The trainer reads the
 * bundle with Python's tarfile, which accepts exactly this. Writing hashes as it goes, so the
 * bundle's sha256 costs no second pass over a large file.
 */

const BLOCK = 512;

export class TarEntryError extends Error {
  override name = 'TarEntryError';
  constructor(readonly entry: string, reason: string) {
    super(`Tar entry ${JSON.stringify(entry)}: ${reason}`);
  }
}

/** Splits a path into ustar's (prefix, name) fields: name ≤ 100 bytes, prefix ≤ 155, split at a '/'. */
function splitName(path: string): { prefix: string; name: string } {
  if (Buffer.byteLength(path) <= 100) return { prefix: '', name: path };
  for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { prefix, name };
  }
  throw new TarEntryError(path, 'path too long for ustar (name ≤ 100 bytes, prefix ≤ 155)');
}

function octal(n: number, width: number): string {
  const s = n.toString(8);
  if (s.length > width - 1) throw new TarEntryError(String(n), `value does not fit ${width - 1} octal digits`);
  return `${s.padStart(width - 1, '0')}\0`;
}

/** One 512-byte ustar header for a regular file. */
export function tarHeader(path: string, size: number, mtimeS: number, mode = 0o644): Buffer {
  if (!path || path.startsWith('/') || path.split('/').includes('..')) throw new TarEntryError(path, 'must be a relative path without ".."');
  const { prefix, name } = splitName(path);
  const h = Buffer.alloc(BLOCK);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(mode, 8), 100, 8, 'ascii');
  h.write(octal(0, 8), 108, 8, 'ascii'); // uid
  h.write(octal(0, 8), 116, 8, 'ascii'); // gid
  h.write(octal(size, 12), 124, 12, 'ascii');
  h.write(octal(Math.floor(mtimeS), 12), 136, 12, 'ascii');
  h.write('        ', 148, 8, 'ascii'); // checksum counts as spaces while summing
  h.write('0', 156, 1, 'ascii'); // regular file
  h.write('ustar\0', 257, 6, 'ascii');
  h.write('00', 263, 2, 'ascii');
  h.write('awb', 265, 32, 'ascii');
  h.write('awb', 297, 32, 'ascii');
  h.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const b of h) sum += b;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return h;
}

/** Streams a tar archive to a file; `finish()` writes the two zero blocks and returns size and sha256. */
export class TarWriter {
  private readonly fd: number;
  private readonly hash: Hash = createHash('sha256');
  private size = 0;
  private readonly names = new Set<string>();
  private closed = false;

  constructor(readonly path: string, private readonly mtimeS: number) {
    this.fd = openSync(path, 'w');
  }

  private write(b: Buffer): void {
    writeSync(this.fd, b);
    this.hash.update(b);
    this.size += b.length;
  }

  add(name: string, data: Buffer | string): void {
    if (this.closed) throw new TarEntryError(name, 'archive already finished');
    if (this.names.has(name)) throw new TarEntryError(name, 'added twice');
    this.names.add(name);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    this.write(tarHeader(name, bytes.length, this.mtimeS));
    this.write(bytes);
    const pad = (BLOCK - (bytes.length % BLOCK)) % BLOCK;
    if (pad) this.write(Buffer.alloc(pad));
  }

  finish(): { size: number; sha256: string } {
    if (!this.closed) {
      this.write(Buffer.alloc(BLOCK * 2));
      closeSync(this.fd);
      this.closed = true;
    }
    return { size: this.size, sha256: this.hash.digest('hex') };
  }

  /** Closes the file without finishing (an error while building: the caller deletes it). */
  abort(): void {
    if (!this.closed) {
      closeSync(this.fd);
      this.closed = true;
    }
  }
}

/** Reads a ustar archive's regular files (name → bytes); checks each header's checksum. */
export function readTar(buf: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (let off = 0; off + BLOCK <= buf.length;) {
    const h = buf.subarray(off, off + BLOCK);
    if (h.every((b) => b === 0)) break;
    const field = (start: number, len: number) => h.subarray(start, start + len).toString('utf8').replace(/\0.*$/s, '');
    const name = field(0, 100);
    const prefix = field(345, 155);
    const path = prefix ? `${prefix}/${name}` : name;
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const want = parseInt(field(148, 8).trim(), 8);
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
    if (sum !== want) throw new TarEntryError(path, `header checksum ${sum} does not match ${want}`);
    if (off + BLOCK + size > buf.length) throw new TarEntryError(path, `truncated: ${size} bytes declared`);
    const type = String.fromCharCode(h[156]!);
    if (type === '0' || type === '\0') out.set(path, Buffer.from(buf.subarray(off + BLOCK, off + BLOCK + size)));
    off += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return out;
}
