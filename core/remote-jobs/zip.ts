import { crc32 } from 'node:zlib';
import { RayPackageError } from './errors.js';

/**
 * Kept by hand rather than a library (issue 32, measured): the package's Ray name is the hash of its bytes, and the
 * trainer's ray_submit.py builds the same package with Python's zipfile, so the two must be byte-identical
 * (test/jobs/ray-jobs.test.ts). adm-zip 0.6.1 writes other bytes for the same three entries: version 10 where zipfile
 * writes 20, and the UTF-8 name flag on every entry, also after its header fields are set by hand (the first differing
 * byte: offset 7 of the first local header); yazl sets that flag on every entry too.
 *
 * A zip of stored (uncompressed) entries, deterministic: entries in the order given, every time 1980-01-01 00:00,
 * mode 0644, the UTF-8 flag only on a non-ASCII name: the bytes Python's zipfile writes for the same entries (as
 * awb_trainer/ray_submit.py sets them up), so both sides name a package alike. Enough for a Ray runtime_env package (APPNOTE.TXT 4.3: local headers, central directory,
 * end record); no zip64, so the whole package stays under 4 GiB (Ray's own cap, its gRPC message size, is far lower).
 */
export interface ZipEntry {
  name: string;
  data: Buffer;
}

const DOS_DATE_1980_01_01 = (0 << 9) | (1 << 5) | 1;
const UTF8_NAMES = 0x0800;
const VERSION = 20;
const UNIX = 3;
const LIMIT = 0xffffffff;

export function zipStored(entries: readonly ZipEntry[]): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const flags = /^[\x00-\x7f]*$/.test(e.name) ? 0 : UTF8_NAMES;
    const crc = crc32(e.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(VERSION, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt16LE(0, 10); // 00:00:00
    local.writeUInt16LE(DOS_DATE_1980_01_01, 12);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(e.data.length, 18);
    local.writeUInt32LE(e.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE((UNIX << 8) | VERSION, 4);
    dir.writeUInt16LE(VERSION, 6);
    dir.writeUInt16LE(flags, 8);
    dir.writeUInt16LE(0, 10);
    dir.writeUInt16LE(0, 12);
    dir.writeUInt16LE(DOS_DATE_1980_01_01, 14);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(e.data.length, 20);
    dir.writeUInt32LE(e.data.length, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    dir.writeUInt32LE(offset, 42);
    parts.push(local, name, e.data);
    central.push(dir, name);
    offset += local.length + name.length + e.data.length;
    if (offset > LIMIT) throw new RayPackageError(e.name, `the package passed 4 GiB at ${e.name} (this zip writer has no zip64)`);
  }
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  if (entries.length > 0xffff) throw new RayPackageError('entries', `${entries.length} entries (this zip writer stops at 65535)`);
  return Buffer.concat([...parts, cd, end]);
}
