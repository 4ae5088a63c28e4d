import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readTar, TarEntryError, TarWriter } from '../../core/util/tar.js';
import { scratch } from '../helpers/scratch.js';
import { PYTHON } from '../python-env.js';

/**
 * The bundle's tar (node-tar's headers, streamed and hashed here), judged by Python's tarfile, which the trainer reads
 * bundles with, and by node-tar's parser.
 */
const tmp = scratch('awb-tar-');
afterAll(() => tmp.cleanup());

const ENTRIES: Array<[string, Buffer]> = [
  ['manifest.json', Buffer.from('{"format":"awb-bundle"}\n')],
  ['empty.txt', Buffer.alloc(0)],
  ['screenshots/é-日本.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255])],
  // Past ustar's 100-byte name (split into its 155-byte prefix) and past both (a PAX header).
  [`${'d'.repeat(120)}/${'n'.repeat(90)}.bin`, Buffer.alloc(1000, 7)],
  [`${'x/'.repeat(150)}deep.json`, Buffer.from('[1,2,3]')],
  ['exactly-512.bin', Buffer.alloc(512, 1)],
];

function written(): { file: string; size: number; sha256: string } {
  const file = join(tmp.dir(), 'b.tar');
  const tar = new TarWriter(file, 1_700_000_000.9);
  for (const [name, data] of ENTRIES) tar.add(name, data);
  return { file, ...tar.finish() };
}

describe('the bundle tar', () => {
  it('writes what Python\'s tarfile reads: every name, byte for byte, mode 0644 and the mtime, and reports the file\'s size and sha256', () => {
    const { file, size, sha256 } = written();
    const bytes = readFileSync(file);
    expect(size).toBe(bytes.length);
    expect(sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    const py = `import hashlib, json, sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    print(json.dumps([[m.name, m.isfile(), oct(m.mode), m.mtime, hashlib.sha256(t.extractfile(m).read()).hexdigest()] for m in t.getmembers()]))`;
    const members = JSON.parse(execFileSync(PYTHON, ['-c', py, file]).toString()) as Array<[string, boolean, string, number, string]>;
    expect(members).toEqual(ENTRIES.map(([name, data]) => [name, true, '0o644', 1_700_000_000, createHash('sha256').update(data).digest('hex')]));
  });

  it('reads back with node-tar\'s parser', () => {
    expect([...readTar(readFileSync(written().file))]).toEqual(ENTRIES);
  });

  it('refuses a name twice, an absolute or ".." path, and an entry after finish', () => {
    const tar = new TarWriter(join(tmp.dir(), 'r.tar'), 0);
    tar.add('a', 'x');
    expect(() => tar.add('a', 'y')).toThrow(/added twice/);
    for (const bad of ['/etc/passwd', '../up', 'a/../../b', '']) expect(() => tar.add(bad, 'z'), bad).toThrow(TarEntryError);
    tar.finish();
    expect(() => tar.add('b', 'x')).toThrow(/already finished/);
  });

  it('readTar refuses a damaged header and a truncated entry', () => {
    const good = readFileSync(written().file);
    const damaged = Buffer.from(good);
    damaged[10] = damaged[10]! ^ 0xff; // inside the first header's name: its checksum no longer matches
    expect(() => readTar(damaged)).toThrow(TarEntryError);
    const cut = join(tmp.dir(), 'cut.tar');
    writeFileSync(cut, good.subarray(0, 512 + 10));
    expect(() => readTar(readFileSync(cut))).toThrow(TarEntryError);
  });
});
