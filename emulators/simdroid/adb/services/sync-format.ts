import type { SimDroid } from '../../simdroid.js';
import { dirname, normalizePath } from '../../system/fs.js';

/**
 * Wire formats of the sync service (AOSP adb/SYNC.TXT, file_sync_protocol.h): 4-letter ids with
 * little-endian u32 (v1) or u64 (v2) fields, and how SimDroid's files look through them.
 */
function id(name: string): number {
  return Buffer.from(name, 'latin1').readUInt32LE(0);
}

export const SyncId = {
  STAT: id('STAT'), STA2: id('STA2'), LST2: id('LST2'), LIST: id('LIST'), LIS2: id('LIS2'), SEND: id('SEND'),
  RECV: id('RECV'), DENT: id('DENT'), DNT2: id('DNT2'), DONE: id('DONE'), DATA: id('DATA'), OKAY: id('OKAY'),
  FAIL: id('FAIL'), QUIT: id('QUIT'),
} as const;

/** Largest DATA chunk either side may send. */
export const SYNC_DATA_MAX = 64 * 1024;
/** Longest path adbd accepts in a request. */
export const SYNC_MAX_PATH = 1024;

export const S_IFMT = 0o170000;
export const S_IFDIR = 0o040000;
export const S_IFREG = 0o100000;
export const S_IFLNK = 0o120000;
const ENOENT = 2;

/** What stat(2) would say about a SimDroid path. */
export interface FileInfo {
  mode: number;
  size: number;
  mtimeSec: number;
  nlink: number;
  ino: bigint;
}

/** An inode number that stays the same for a path, so tools that compare inodes behave. */
function inode(path: string): bigint {
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) h = Math.imul(h ^ path.charCodeAt(i), 0x01000193) >>> 0;
  return BigInt(h);
}

export function fileInfo(dev: SimDroid, path: string): FileInfo | null {
  const p = normalizePath(path);
  const e = dev.fs.stat(p);
  if (!e) return null;
  const mtimeSec = Math.floor(e.mtime / 1000);
  // Modes as SimDroid's `ls -l` shows them: drwxrws--- and -rw-rw----.
  if (e.type === 'dir') return { mode: S_IFDIR | 0o2770, size: 4096, mtimeSec, nlink: 2, ino: inode(p) };
  const size = e.type === 'file' ? e.data.length : dev.dbs.serialize(p).length;
  return { mode: S_IFREG | 0o660, size, mtimeSec, nlink: 1, ino: inode(p) };
}

export function header(syncId: number, value: number): Buffer {
  const b = Buffer.alloc(8);
  b.writeUInt32LE(syncId, 0);
  b.writeUInt32LE(value >>> 0, 4);
  return b;
}

/** `STAT` reply: mode, size, mtime; all zero when the path does not exist (v1 has no errno). */
export function statV1(info: FileInfo | null): Buffer {
  const b = Buffer.alloc(16);
  b.writeUInt32LE(SyncId.STAT, 0);
  if (info) {
    b.writeUInt32LE(info.mode, 4);
    b.writeUInt32LE(info.size >>> 0, 8);
    b.writeUInt32LE(info.mtimeSec >>> 0, 12);
  }
  return b;
}

/** The 68 bytes of struct stat_v2 after the id: error, dev, ino, mode, nlink, uid, gid, size, times. */
function statV2Body(info: FileInfo | null): Buffer {
  const b = Buffer.alloc(68);
  if (!info) {
    b.writeUInt32LE(ENOENT, 0);
    return b;
  }
  b.writeBigUInt64LE(0xfd00n, 4);
  b.writeBigUInt64LE(info.ino, 12);
  b.writeUInt32LE(info.mode, 20);
  b.writeUInt32LE(info.nlink, 24);
  // shell (2000) and the sdcard group, as for files an app or adb pushed.
  b.writeUInt32LE(2000, 28);
  b.writeUInt32LE(1015, 32);
  b.writeBigUInt64LE(BigInt(info.size), 36);
  for (const at of [44, 52, 60]) b.writeBigInt64LE(BigInt(info.mtimeSec), at);
  return b;
}

/** `STA2` / `LST2` reply. */
export function statV2(syncId: number, info: FileInfo | null): Buffer {
  const idBuf = Buffer.alloc(4);
  idBuf.writeUInt32LE(syncId);
  return Buffer.concat([idBuf, statV2Body(info)]);
}

/** One `DENT` (v1) or `DNT2` (v2) directory entry; with name '' and no info, the `DONE` that ends a listing. */
export function dirEntry(v2: boolean, info: FileInfo | null, name: string): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  const idBuf = Buffer.alloc(4);
  idBuf.writeUInt32LE(info ? (v2 ? SyncId.DNT2 : SyncId.DENT) : SyncId.DONE);
  const len = Buffer.alloc(4);
  len.writeUInt32LE(nameBytes.length);
  if (v2) {
    const body = statV2Body(info);
    // A DONE carries no errno.
    if (!info) body.writeUInt32LE(0, 0);
    return Buffer.concat([idBuf, body, len, nameBytes]);
  }
  const body = Buffer.alloc(12);
  if (info) {
    body.writeUInt32LE(info.mode, 0);
    body.writeUInt32LE(info.size >>> 0, 4);
    body.writeUInt32LE(info.mtimeSec >>> 0, 8);
  }
  return Buffer.concat([idBuf, body, len, nameBytes]);
}

/** A listing as readdir(3) gives it to adbd: ".", "..", then the entries. Empty when not a directory. */
export function listing(dev: SimDroid, path: string): Array<{ name: string; info: FileInfo }> {
  const p = normalizePath(path);
  if (dev.fs.stat(p)?.type !== 'dir') return [];
  const out: Array<{ name: string; info: FileInfo }> = [
    { name: '.', info: fileInfo(dev, p)! },
    { name: '..', info: fileInfo(dev, dirname(p))! },
  ];
  for (const name of dev.fs.list(p)) {
    const info = fileInfo(dev, p === '/' ? `/${name}` : `${p}/${name}`);
    if (info) out.push({ name, info });
  }
  return out;
}

/** `FAIL` with a message: the reply to anything that went wrong. */
export function failure(message: string): Buffer {
  const text = Buffer.from(message, 'utf8');
  return Buffer.concat([header(SyncId.FAIL, text.length), text]);
}

/** The mode after the comma of a SEND path, parsed like strtoul(s, nullptr, 0). */
export function parseMode(text: string): number {
  const t = text.trim();
  const n = /^0x[0-9a-f]+$/i.test(t) ? parseInt(t.slice(2), 16) : /^0[0-7]*$/.test(t) ? parseInt(t, 8) : /^\d+$/.test(t) ? parseInt(t, 10) : 0;
  return Number.isFinite(n) ? n >>> 0 : 0;
}
