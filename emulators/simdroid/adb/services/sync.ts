import { normalizePath } from '../../system/fs.js';
import { pushFile, pushRefusal, PushRefusedError } from '../../system/push.js';
import type { Service, ServiceContext, ServiceFactory, ServiceStream } from '../service.js';
import {
  S_IFLNK, S_IFMT, SYNC_DATA_MAX, SYNC_MAX_PATH, SyncId, dirEntry, failure, fileInfo, header, listing, parseMode, statV1, statV2,
} from './sync-format.js';

/** Largest file one SEND may carry (SimDroid keeps files in memory). */
export const MAX_PUSH = 256 * 1024 * 1024;

const PATH_REQUESTS = new Set<number>([SyncId.STAT, SyncId.STA2, SyncId.LST2, SyncId.LIST, SyncId.LIS2, SyncId.RECV, SyncId.SEND]);

interface Upload {
  path: string;
  chunks: Buffer[];
  size: number;
  /** Set when the file cannot be written: the data is drained and this is the reply, as adbd does. */
  refusal: string | null;
}

export function syncService(ctx: ServiceContext): ServiceFactory {
  return (stream) => new SyncSession(ctx, stream);
}

function hex8(n: number): string {
  return n.toString(16).padStart(8, '0');
}

/**
 * `sync:` — the file transfer protocol of adb push/pull/ls (v1 plus stat_v2/ls_v2). Requests are
 * an id, a u32 length and a path; any error is a FAIL that ends the session, as in adbd.
 */
class SyncSession implements Service {
  private buf: Buffer = Buffer.alloc(0);
  private upload: Upload | null = null;
  private ended = false;

  constructor(private readonly ctx: ServiceContext, private readonly stream: ServiceStream) {}

  onData(chunk: Buffer): void {
    if (this.ended) return;
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    while (!this.ended && this.buf.length >= 8) {
      const id = this.buf.readUInt32LE(0);
      const len = this.buf.readUInt32LE(4);
      if (this.upload) {
        if (!this.uploadStep(id, len)) return;
        continue;
      }
      if (id === SyncId.QUIT) return this.finish();
      if (!PATH_REQUESTS.has(id)) return this.fail(`unknown command ${hex8(id)}`);
      if (len > SYNC_MAX_PATH) return this.fail('path too long');
      if (this.buf.length < 8 + len) return;
      const path = this.buf.subarray(8, 8 + len).toString('utf8');
      this.buf = this.buf.subarray(8 + len);
      this.request(id, path);
    }
  }

  onClose(): void {
    this.ended = true;
  }

  private request(id: number, path: string): void {
    const dev = this.ctx.device;
    switch (id) {
      case SyncId.STAT:
        return this.stream.write(statV1(fileInfo(dev, path)));
      case SyncId.STA2:
      case SyncId.LST2:
        // SimDroid has no symlinks, so stat and lstat agree.
        return this.stream.write(statV2(id, fileInfo(dev, path)));
      case SyncId.LIST:
      case SyncId.LIS2: {
        const v2 = id === SyncId.LIS2;
        for (const e of listing(dev, path)) this.stream.write(dirEntry(v2, e.info, e.name));
        return this.stream.write(dirEntry(v2, null, ''));
      }
      case SyncId.RECV:
        return this.send(path);
      case SyncId.SEND:
        return this.startUpload(path);
    }
  }

  /** RECV: the file in DATA chunks, then DONE. */
  private send(path: string): void {
    const p = normalizePath(path);
    const e = this.ctx.device.fs.stat(p);
    if (!e) return this.fail('open failed: No such file or directory');
    if (e.type === 'dir') return this.fail('read failed: Is a directory');
    const data = e.type === 'sqlite' ? this.ctx.device.dbs.serialize(p) : e.data;
    for (let at = 0; at < data.length; at += SYNC_DATA_MAX) {
      const part = data.subarray(at, at + SYNC_DATA_MAX);
      this.stream.write(Buffer.concat([header(SyncId.DATA, part.length), part]));
    }
    this.stream.write(header(SyncId.DONE, 0));
  }

  private startUpload(spec: string): void {
    const comma = spec.lastIndexOf(',');
    if (comma < 0) return this.fail('missing , in ID_SEND');
    const path = normalizePath(spec.slice(0, comma));
    const mode = parseMode(spec.slice(comma + 1));
    this.upload = { path, chunks: [], size: 0, refusal: this.refusal(path, mode) };
  }

  /** Why a file cannot be created at `path`, in adbd's words; null when it can. */
  private refusal(path: string, mode: number): string | null {
    if ((mode & S_IFMT) === S_IFLNK) return "couldn't create symlink: Operation not supported";
    return pushRefusal(this.ctx.device, path);
  }

  /** One DATA or DONE of a SEND. Returns false when more bytes are needed. */
  private uploadStep(id: number, len: number): boolean {
    const up = this.upload!;
    if (id === SyncId.DATA) {
      if (len > SYNC_DATA_MAX) {
        this.fail('data too large');
        return false;
      }
      if (this.buf.length < 8 + len) return false;
      const data = Buffer.from(this.buf.subarray(8, 8 + len));
      this.buf = this.buf.subarray(8 + len);
      if (up.refusal) return true;
      up.size += data.length;
      if (up.size > MAX_PUSH) {
        up.refusal = 'write failed: No space left on device';
        up.chunks = [];
      } else {
        up.chunks.push(data);
      }
      return true;
    }
    if (id !== SyncId.DONE) {
      this.fail('invalid data message');
      return false;
    }
    this.buf = this.buf.subarray(8);
    this.upload = null;
    if (up.refusal) {
      this.fail(up.refusal);
      return false;
    }
    try {
      pushFile(this.ctx.device, up.path, Buffer.concat(up.chunks, up.size), len * 1000);
    } catch (e) {
      if (!(e instanceof PushRefusedError)) throw e;
      this.fail(e.reason);
      return false;
    }
    this.stream.write(header(SyncId.OKAY, 0));
    return true;
  }

  private fail(message: string): void {
    this.stream.write(failure(message));
    this.finish();
  }

  private finish(): void {
    this.ended = true;
    this.buf = Buffer.alloc(0);
    this.stream.end();
  }
}
