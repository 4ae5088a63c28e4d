import { closeSync, openSync, writeSync } from 'node:fs';
import { createHash, type Hash } from 'node:crypto';
import { Header, Parser, Pax, type ReadEntry } from 'tar';

/**
 * The bundle's tar archive, written and read with node-tar (the `tar` package npm itself uses): its Header writes each
 * POSIX ustar header (and a PAX extended header before one whose path does not fit ustar's fields), its Parser reads
 * archives back. This file only streams the blocks to a file, hashing them as they go, so the bundle's sha256 costs
 * no second pass over a large file. The trainer reads the bundle with Python's tarfile.
 */

const BLOCK = 512;

export class TarEntryError extends Error {
  override name = 'TarEntryError';
  constructor(readonly entry: string, reason: string) {
    super(`Tar entry ${JSON.stringify(entry)}: ${reason}`);
  }
}

/**
 * Streams a tar archive to a file (or, with path null, into memory: `bytes()`); `finish()` writes the two zero blocks
 * and returns size and sha256.
 */
export class TarWriter {
  private readonly fd: number | null;
  private readonly chunks: Buffer[] = [];
  private readonly hash: Hash = createHash('sha256');
  private size = 0;
  private readonly names = new Set<string>();
  private closed = false;
  private digest: string | null = null;

  constructor(readonly path: string | null, private readonly mtimeS: number) {
    this.fd = path === null ? null : openSync(path, 'w');
  }

  private write(b: Buffer): void {
    if (this.fd === null) this.chunks.push(b);
    else writeSync(this.fd, b);
    this.hash.update(b);
    this.size += b.length;
  }

  add(name: string, data: Buffer | string): void {
    if (this.closed) throw new TarEntryError(name, 'archive already finished');
    if (!name || name.startsWith('/') || name.split('/').includes('..')) throw new TarEntryError(name, 'must be a relative path without ".."');
    if (this.names.has(name)) throw new TarEntryError(name, 'added twice');
    this.names.add(name);
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    const fields = { path: name, mode: 0o644, uid: 0, gid: 0, size: bytes.length, mtime: new Date(Math.floor(this.mtimeS) * 1000), uname: 'awb', gname: 'awb' };
    const header = new Header({ ...fields, type: 'File' });
    const block = Buffer.alloc(BLOCK);
    // encode() says whether ustar's fields could not hold it all (a long path): then a PAX header goes first, as node-tar's own Pack writes one.
    if (header.encode(block, 0)) this.write(new Pax(fields).encode());
    this.write(block);
    this.write(bytes);
    const pad = (BLOCK - (bytes.length % BLOCK)) % BLOCK;
    if (pad) this.write(Buffer.alloc(pad));
  }

  finish(): { size: number; sha256: string } {
    if (!this.closed) {
      this.write(Buffer.alloc(BLOCK * 2));
      if (this.fd !== null) closeSync(this.fd);
      this.closed = true;
      this.digest = this.hash.digest('hex');
    }
    return { size: this.size, sha256: this.digest! };
  }

  /** The finished archive of an in-memory writer. */
  bytes(): Buffer {
    if (this.fd !== null || !this.closed) throw new TarEntryError('(archive)', 'bytes() is for a finished in-memory archive');
    return Buffer.concat(this.chunks);
  }

  /** Closes the file without finishing (an error while building: the caller deletes it). */
  abort(): void {
    if (!this.closed) {
      if (this.fd !== null) closeSync(this.fd);
      this.closed = true;
    }
  }
}

/**
 * An archive's regular files (path → bytes), read by node-tar's Parser in strict mode: a bad header checksum or a
 * truncated entry is a TarEntryError, not a shorter map.
 */
export function readTar(buf: Buffer): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  let failure: Error | null = null;
  let ended = false;
  const parser = new Parser({
    strict: true,
    onReadEntry: (entry: ReadEntry) => {
      const chunks: Buffer[] = [];
      entry.on('data', (c: Buffer) => chunks.push(c));
      entry.on('end', () => {
        if (entry.type === 'File' || entry.type === 'OldFile') out.set(entry.path, Buffer.concat(chunks));
      });
    },
  });
  parser.on('error', (e: Error) => (failure ??= e));
  parser.on('end', () => (ended = true));
  parser.end(buf);
  if (failure) throw new TarEntryError('(archive)', (failure as Error).message);
  if (!ended) throw new TarEntryError('(archive)', 'the parser did not reach the end of the archive');
  return out;
}
