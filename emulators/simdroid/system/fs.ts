/**
 * The device filesystem: /sdcard (= /storage/emulated/0) shared storage, app data under
 * /data/data/<package>, and a few system paths. Entries are immutable values in a map, so a
 * snapshot is a shallow copy of the map.
 */
export type FsEntry =
  | { readonly type: 'dir'; readonly mtime: number }
  | { readonly type: 'file'; readonly data: Buffer; readonly mtime: number }
  /** An SQLite database file; its bytes live in the database registry. */
  | { readonly type: 'sqlite'; readonly mtime: number };

export const EXTERNAL_STORAGE = '/storage/emulated/0';

const ALIASES: Array<[string, string]> = [
  ['/sdcard', EXTERNAL_STORAGE],
  ['/mnt/sdcard', EXTERNAL_STORAGE],
  ['/storage/self/primary', EXTERNAL_STORAGE],
  ['/mnt/user/0/primary', EXTERNAL_STORAGE],
  // The FUSE-backed path root sees (AndroidWorld reads OsmAnd's files through it).
  ['/data/media/0', EXTERNAL_STORAGE],
];

export class FsError extends Error {
  override name = 'FsError';
  constructor(readonly path: string, readonly reason: 'ENOENT' | 'ENOTDIR' | 'EISDIR' | 'EEXIST' | 'ENOTEMPTY' | 'EINVAL') {
    const text = {
      ENOENT: 'No such file or directory',
      ENOTDIR: 'Not a directory',
      EISDIR: 'Is a directory',
      EEXIST: 'File exists',
      ENOTEMPTY: 'Directory not empty',
      EINVAL: 'Invalid argument',
    }[reason];
    super(`${path}: ${text}`);
  }
}

/** Normalises a path: absolute, no "." or "..", no trailing slash, storage aliases resolved. */
export function normalizePath(path: string, cwd = '/'): string {
  let p = path.startsWith('/') ? path : `${cwd.replace(/\/$/, '')}/${path}`;
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') parts.pop();
    else parts.push(seg);
  }
  p = `/${parts.join('/')}`;
  for (const [alias, real] of ALIASES) {
    if (p === alias || p.startsWith(`${alias}/`)) return real + p.slice(alias.length);
  }
  return p;
}

export function dirname(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

export class FileSystem {
  entries: Map<string, FsEntry>;

  constructor(private readonly clock: { now(): number }, entries?: Map<string, FsEntry>) {
    this.entries = entries ?? new Map([['/', { type: 'dir', mtime: clock.now() }]]);
  }

  stat(path: string): FsEntry | undefined {
    return this.entries.get(normalizePath(path));
  }

  exists(path: string): boolean {
    return this.entries.has(normalizePath(path));
  }

  mkdirp(path: string): void {
    const p = normalizePath(path);
    if (p === '/') return;
    const existing = this.entries.get(p);
    if (existing) {
      if (existing.type !== 'dir') throw new FsError(p, 'ENOTDIR');
      return;
    }
    this.mkdirp(dirname(p));
    this.entries.set(p, { type: 'dir', mtime: this.clock.now() });
  }

  mkdir(path: string): void {
    const p = normalizePath(path);
    if (this.entries.has(p)) throw new FsError(p, 'EEXIST');
    this.requireDir(dirname(p));
    this.entries.set(p, { type: 'dir', mtime: this.clock.now() });
  }

  private requireDir(p: string): void {
    const e = this.entries.get(p);
    if (!e) throw new FsError(p, 'ENOENT');
    if (e.type !== 'dir') throw new FsError(p, 'ENOTDIR');
  }

  writeFile(path: string, data: string | Buffer, opts: { mtime?: number; parents?: boolean } = {}): void {
    const p = normalizePath(path);
    const cur = this.entries.get(p);
    if (cur?.type === 'dir') throw new FsError(p, 'EISDIR');
    if (opts.parents) this.mkdirp(dirname(p));
    else this.requireDir(dirname(p));
    this.entries.set(p, { type: 'file', data: Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8'), mtime: opts.mtime ?? this.clock.now() });
  }

  appendFile(path: string, data: string | Buffer): void {
    const p = normalizePath(path);
    const cur = this.entries.get(p);
    const prev = cur?.type === 'file' ? cur.data : Buffer.alloc(0);
    this.writeFile(p, Buffer.concat([prev, Buffer.isBuffer(data) ? data : Buffer.from(data, 'utf8')]));
  }

  readFile(path: string): Buffer {
    const p = normalizePath(path);
    const e = this.entries.get(p);
    if (!e) throw new FsError(p, 'ENOENT');
    if (e.type === 'dir') throw new FsError(p, 'EISDIR');
    if (e.type === 'sqlite') throw new FsError(p, 'EINVAL');
    return e.data;
  }

  readText(path: string): string {
    return this.readFile(path).toString('utf8');
  }

  /** Names directly inside a directory, sorted. */
  list(path: string): string[] {
    const p = normalizePath(path);
    this.requireDir(p);
    const prefix = p === '/' ? '/' : `${p}/`;
    const names: string[] = [];
    for (const key of this.entries.keys()) {
      if (key !== p && key.startsWith(prefix) && !key.slice(prefix.length).includes('/')) names.push(key.slice(prefix.length));
    }
    return names.sort((a, b) => a.localeCompare(b));
  }

  /** Removes a file, or a directory (recursively when asked). */
  remove(path: string, recursive = false): void {
    const p = normalizePath(path);
    const e = this.entries.get(p);
    if (!e) throw new FsError(p, 'ENOENT');
    if (e.type === 'dir') {
      if (p === '/') throw new FsError(p, 'EINVAL');
      const prefix = `${p}/`;
      const inside = [...this.entries.keys()].filter((k) => k.startsWith(prefix));
      if (inside.length && !recursive) throw new FsError(p, 'ENOTEMPTY');
      for (const k of inside) this.entries.delete(k);
    }
    this.entries.delete(p);
  }

  rename(from: string, to: string): void {
    const a = normalizePath(from);
    let b = normalizePath(to);
    const e = this.entries.get(a);
    if (!e) throw new FsError(a, 'ENOENT');
    if (this.entries.get(b)?.type === 'dir') b = `${b}/${basename(a)}`;
    this.requireDir(dirname(b));
    if (e.type === 'dir') {
      const prefix = `${a}/`;
      for (const [k, v] of [...this.entries]) {
        if (k.startsWith(prefix)) {
          this.entries.delete(k);
          this.entries.set(b + k.slice(a.length), v);
        }
      }
    }
    this.entries.delete(a);
    this.entries.set(b, e);
  }

  touch(path: string): void {
    const p = normalizePath(path);
    const e = this.entries.get(p);
    if (!e) this.writeFile(p, '');
    else this.entries.set(p, { ...e, mtime: this.clock.now() });
  }

  size(path: string): number {
    const e = this.stat(path);
    return e?.type === 'file' ? e.data.length : 4096;
  }

  /** Every file below a directory (recursively), as full paths. */
  walk(path: string): string[] {
    const p = normalizePath(path);
    const prefix = p === '/' ? '/' : `${p}/`;
    return [...this.entries.keys()].filter((k) => k.startsWith(prefix) && this.entries.get(k)!.type !== 'dir').sort();
  }
}
