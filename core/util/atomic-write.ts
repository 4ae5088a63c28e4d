import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Files that appear whole or not at all: written under a temporary name in the same folder (so the
 * rename stays on one file system), flushed, then renamed over the target. A reader sees the old
 * file or the new one, never a torn one, and a crash leaves at most a stray temporary file.
 *
 * The temporary name is unique per call (process id + random suffix): two writers of the same file,
 * in one process or several, never write into each other's temporary file; the last rename wins.
 */
export interface AtomicWriteOptions {
  /** The file's mode, set exactly (the umask does not narrow it); default 0o666 less the umask. */
  mode?: number;
}

/** `<folder>/.<name>.<pid>-<random>.tmp`: hidden, beside the target, unique per call. */
export function temporaryPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`);
}

/** Writes `data` to `path` atomically. The folder must exist. */
export function writeFileAtomic(path: string, data: string | Uint8Array, opts: AtomicWriteOptions = {}): void {
  fillFileAtomic(path, (fd) => writeFileSync(fd, data), opts);
}

/**
 * Writes `path` atomically through `fill`, which writes the content to the open temporary file
 * (for content written piece by piece, e.g. line by line, without holding it all in memory).
 */
export function fillFileAtomic(path: string, fill: (fd: number) => void, opts: AtomicWriteOptions = {}): void {
  const tmp = temporaryPathFor(path);
  try {
    // 'wx': never follows or reuses a file that is already there under this name.
    const fd = openSync(tmp, 'wx', opts.mode ?? 0o666);
    try {
      fill(fd);
      if (opts.mode !== undefined) fchmodSync(fd, opts.mode);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
  syncFolder(dirname(path));
}

/** Copies `src` to `dest` atomically, with the source's mode. The folder must exist. (Registered policies and reward models: small files.) */
export function copyFileAtomic(src: string, dest: string): void {
  writeFileAtomic(dest, readFileSync(src), { mode: statSync(src).mode & 0o777 });
}

/** Flushes a folder's entries (the rename) to disk; Windows cannot open a folder for this, and needs not. */
function syncFolder(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, 'r');
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // EINVAL / EISDIR / EPERM where folders cannot be fsynced: the rename is done, only its durability is the OS's.
  } finally {
    closeSync(fd);
  }
}
