import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../core/store/db.js';
import { StoreFileError } from '../../core/store/errors.js';
import { createRun } from '../../core/store/runs.js';
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/scratch.js';
import { device } from '../helpers/simdroid.js';
import { recordEpisode } from './helpers.js';

/**
 * Issue 16, D3: `--db` at something that is not a usable store printed an SqliteError with its stack (and some
 * cases wrote to the file). Each must give one line, a non-zero exit, and leave the file as it was.
 */
const tmp = scratch('awb-badstore-');
afterAll(tmp.cleanup);
let dir: string;
let good: string;

const digest = (p: string) => (statSync(p).isDirectory() ? readdirSync(p).join(',') : createHash('sha256').update(readFileSync(p)).digest('hex'));

beforeAll(async () => {
  dir = tmp.dir();
  good = join(dir, 'good.db');
  const db = openStore(good);
  const d = device();
  const run = createRun(db, { kind: 'single', name: 'seed' });
  for (let seed = 0; seed < 4; seed++) await recordEpisode(db, run.id, d, 'ContactsAddContact', seed);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  d.close();
});

function variant(name: string, make: (path: string) => void): string {
  const p = join(dir, name);
  make(p);
  return p;
}

describe('a --db that is not a usable trajectory store', () => {
  const cases: Array<[string, (p: string) => void, RegExp]> = [
    ['random bytes', (p) => writeFileSync(p, Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919 + 13) & 0xff))), /not an SQLite database/],
    ['a text file', (p) => writeFileSync(p, 'episode_id,status\n1,success\n'), /not an SQLite database/],
    ['a truncated database', (p) => (copyFileSync(good, p), truncateSync(p, Math.floor(statSync(good).size / 2))), /damaged \(database disk image is malformed\)/],
    ['a database whose schema page is damaged', (p) => {
      copyFileSync(good, p);
      const bytes = readFileSync(p);
      bytes.fill(0xa5, 100, 4096); // page 1 after the header: sqlite_master's b-tree
      writeFileSync(p, bytes);
    }, /damaged/],
    ['a folder', (p) => mkdirSync(p), /is a folder/],
  ];

  for (const [what, make, message] of cases) {
    it(`${what}: one line, exit non-zero, the file untouched`, async () => {
      const path = variant(what.replace(/\W+/g, '-'), make);
      const before = digest(path);
      const listing = readdirSync(dir).sort();
      for (const argv of [['episodes', 'list', '--db', path], ['suite', 'run', '--part', 'test', '--limit', '1', '--db', path]]) {
        const r = await runCli(...argv);
        expect(r.code, argv.join(' ')).not.toBe(0);
        expect(r.err.split('\n')).toHaveLength(1);
        expect(r.err).toMatch(message);
        expect(r.err).not.toMatch(/\n\s+at /);
        expect(digest(path)).toBe(before);
        expect(readdirSync(dir).sort()).toEqual(listing); // no -wal / -shm / journal left beside it
      }
      expect(() => openStore(path)).toThrow(StoreFileError);
    });
  }

  it('a missing file or an empty one is a new store', () => {
    const empty = variant('empty.db', (p) => writeFileSync(p, ''));
    openStore(empty).close();
    openStore(join(dir, 'new.db')).close();
    expect(statSync(empty).size).toBeGreaterThan(0);
  });
});
