import type { SimDroid } from '../simdroid.js';
import { isSqliteFile } from './databases.js';
import { basename, dirname, FsError, normalizePath } from './fs.js';

/**
 * Writing a whole file into place as adbd's sync SEND does (`adb push`), shared by the sync
 * service and SimDroid's in-process writeFile so both behave alike: parent folders are created,
 * a SQLite file becomes a live database, and the refusals use adbd's words.
 */
export class PushRefusedError extends Error {
  override name = 'PushRefusedError';
  constructor(readonly path: string, readonly reason: string) {
    super(`${path}: ${reason}`);
  }
}

/** Why a file cannot be created at `path`, in adbd's words; null when it can. */
export function pushRefusal(dev: SimDroid, path: string): string | null {
  const p = normalizePath(path);
  const e = dev.fs.stat(p);
  if (e?.type === 'dir' || basename(p) === '') return "couldn't create file: Is a directory";
  for (let d = dirname(p); d !== '/'; d = dirname(d)) {
    const parent = dev.fs.stat(d);
    if (parent && parent.type !== 'dir') return 'secure_mkdirs failed: Not a directory';
  }
  return null;
}

/** Puts `bytes` at `path` (mtime in ms); throws PushRefusedError with adbd's reason. */
export function pushFile(dev: SimDroid, path: string, bytes: Buffer, mtimeMs: number): void {
  const p = normalizePath(path);
  const refusal = pushRefusal(dev, p);
  if (refusal) throw new PushRefusedError(p, refusal);
  const live = dev.fs.stat(p)?.type === 'sqlite';
  try {
    if (isSqliteFile(bytes)) {
      // A database pushed into place becomes the app's data as on a device once the app is
      // force-stopped and restarted: its owner is stopped, the registry opens the new file.
      const owner = /^\/data\/data\/([^/]+)\//.exec(p)?.[1];
      if (owner && dev.wm.apps.has(owner)) dev.wm.forceStop(owner);
      dev.fs.mkdirp(dirname(p));
      try {
        dev.dbs.load(p, bytes);
      } catch (e) {
        throw new PushRefusedError(p, `couldn't create file: ${(e as Error).message}`);
      }
    } else if (live) {
      // Anything else over a live database would corrupt it under its open connection.
      throw new PushRefusedError(p, "couldn't create file: Text file busy");
    } else {
      dev.fs.writeFile(p, bytes, { mtime: mtimeMs, parents: true });
    }
  } catch (e) {
    if (!(e instanceof FsError)) throw e;
    throw new PushRefusedError(p, `couldn't create file: ${e.message.split(': ').pop()}`);
  }
  dev.changed();
}
