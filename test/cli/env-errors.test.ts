import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { atPath, environmentLine } from '../../core/cli/env-errors.js';
import { openStore, openStoreReadonly } from '../../core/store/index.js';
import { runCli } from '../helpers/cli.js';
import { scratch } from '../helpers/scratch.js';

/**
 * Issue 32: what the environment does wrong is said in one line, never a stack: a store another process keeps locked
 * (after a bounded wait, naming the holder), a full disk, a store that cannot be opened, a path of the wrong kind, a
 * port in use. A run such a fault stops is interrupted and resumable, and the line says how.
 */
const tmp = scratch('awb-env-errors-');
afterAll(() => tmp.cleanup());
const AWB = fileURLToPath(new URL('../../bin/awb.js', import.meta.url));

function statuses(db: string) {
  const ro = openStoreReadonly(db);
  try {
    return {
      runs: ro.prepare('SELECT status FROM runs ORDER BY id').pluck().all(),
      episodes: Object.fromEntries((ro.prepare('SELECT status, count(*) AS n FROM episodes GROUP BY status').all() as Array<{ status: string; n: number }>).map((r) => [r.status, r.n])),
    };
  } finally {
    ro.close();
  }
}

describe('environment errors', () => {
  it('a store another process keeps locked: `awb run` waits the bounded busy timeout, then names the holder in one line; no run is created', async () => {
    const db = join(tmp.dir(), 't.db');
    openStore(db).close();
    // Another process takes the write lock and keeps it.
    const holder = spawn(process.execPath, ['-e', `const D = require(${JSON.stringify(require.resolve('better-sqlite3'))}); const db = new D(process.argv[1]);
      db.prepare('BEGIN IMMEDIATE').run(); db.prepare("UPDATE runs SET name = name").run(); console.log('locked'); setInterval(() => {}, 1000);`, db], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((r) => holder.stdout!.once('data', () => r()));
      const t0 = Date.now();
      const r = await runCli('run', '--task', 'ContactsAddContact', '--seed', '1', '--db', db);
      const waited = Date.now() - t0;
      expect(r.code).toBe(1);
      expect(r.err).toMatch(new RegExp(`^awb: ${db.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} stayed locked by another writer for 5 s \\(SQLITE_BUSY\\): held by process ${holder.pid} \\(.*node.*\\); nothing was written, try again when it is done$`));
      expect(waited).toBeGreaterThanOrEqual(5000);
    } finally {
      holder.kill('SIGKILL');
    }
    await new Promise((r) => holder.once('exit', r));
    expect(statuses(db)).toEqual({ runs: [], episodes: {} });
  });

  // A real full disk: a 2 MB tmpfs mounted in a user and mount namespace of the suite's own.
  it.skipIf(process.platform !== 'linux')('a full disk mid-suite: one line with how to resume, the run interrupted; resumed elsewhere it records every instance once', () => {
    const dir = tmp.dir();
    const mnt = join(dir, 'small');
    const copy = join(dir, 'copy');
    mkdirSync(mnt);
    mkdirSync(copy);
    const script = `mount -t tmpfs -o size=2m tmpfs "$1" || exit 99
"$2" "$3" suite run --split all --part test --limit 20 --screenshots half --db "$1/t.db" --json >/dev/null 2>"$4/stderr"
echo $? > "$4/code"; cp "$1"/t.db* "$4/"`;
    execFileSync('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', script, 'sh', mnt, process.execPath, AWB, copy], { cwd: fileURLToPath(new URL('../..', import.meta.url)) });
    expect(readFileSync(join(copy, 'code'), 'utf8').trim()).toBe('1');
    const err = readFileSync(join(copy, 'stderr'), 'utf8').trim();
    expect(err.split('\n'), err).toHaveLength(1);
    expect(err).toMatch(new RegExp(`^awb: the disk holding ${mnt}/t\\.db is full \\(SQLITE_FULL\\); free some space; run 1 (is interrupted|reads as interrupted once the store is opened again), what it recorded is kept; continue with: awb suite run --resume 1 --db ${mnt}/t\\.db$`));
    // The store as the full disk left it, opened where there is room: the run is interrupted (marked then, or now that
    // its process is gone), nothing is running.
    const db = join(copy, 't.db');
    openStore(db).close();
    const left = statuses(db);
    expect(left.runs).toEqual(['interrupted']);
    expect(left.episodes.running ?? 0).toBe(0);
    expect(left.episodes.success).toBeGreaterThan(0);
    expect(left.episodes.success).toBeLessThan(20);
    return runCli('suite', 'run', '--resume', '1', '--db', db).then((r) => {
      expect(r.code, r.err).toBe(0);
      const done = new Database(db, { readonly: true });
      expect(done.prepare("SELECT count(DISTINCT instance_id) FROM episodes WHERE status = 'success'").pluck().get()).toBe(20);
      expect(done.prepare("SELECT count(*) FROM episodes WHERE status = 'success'").pluck().get()).toBe(20);
      done.close();
    });
  });

  it.skipIf(process.platform !== 'linux')('a store on a read-only file system: one line naming the file system, for a store there and a new one', () => {
    const dir = tmp.dir();
    const mnt = join(dir, 'ro');
    const out = join(dir, 'out');
    mkdirSync(mnt);
    mkdirSync(out);
    // A store recorded, then its file system made read-only (EROFS; root's permissions do not matter there).
    const script = `mount -t tmpfs tmpfs "$1" || exit 99
"$2" "$3" run --task ContactsAddContact --seed 1 --db "$1/t.db" --json >/dev/null || exit 98
mount -o remount,ro "$1" || exit 97
"$2" "$3" run --task ContactsAddContact --seed 2 --db "$1/t.db" 2>"$4/existing"; echo $? >> "$4/codes"
"$2" "$3" episodes list --db "$1/new/t.db" 2>"$4/new"; echo $? >> "$4/codes"`;
    execFileSync('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', script, 'sh', mnt, process.execPath, AWB, out], { cwd: fileURLToPath(new URL('../..', import.meta.url)) });
    expect(readFileSync(join(out, 'codes'), 'utf8').trim().split('\n')).toEqual(['1', '1']);
    expect(readFileSync(join(out, 'existing'), 'utf8').trim()).toBe(`awb: cannot open ${mnt}/t.db (SQLITE_CANTOPEN): ${mnt} is on a read-only file system (EROFS)`);
    expect(readFileSync(join(out, 'new'), 'utf8').trim()).toBe(`awb: ${mnt} is on a read-only file system (EROFS) (ENOENT in mkdir)`);
  });

  it('ENOSPC writing a screenshot (a link to /dev/full): `awb run` stops in one line, its episode and run interrupted', async () => {
    const dir = tmp.dir();
    const shots = join(dir, 'shots');
    mkdirSync(shots);
    symlinkSync('/dev/full', join(shots, 'step-01.png'));
    const db = join(dir, 't.db');
    const r = await runCli('run', '--task', 'ContactsAddContact', '--seed', '1', '--screenshots', shots, '--db', db);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`^awb: the disk is full writing ${shots}/step-01\\.png; free some space \\(ENOSPC in write\\); run 1 is interrupted, what it recorded is kept$`));
    expect(statuses(db)).toEqual({ runs: ['interrupted'], episodes: { interrupted: 1 } });
  });

  it('says real errors of each kind in one line: a full database, a read-only one, a folder read as a file, a file as a folder, a busy port', async () => {
    const dir = tmp.dir();
    const full = new Database(join(dir, 'full.db'));
    full.pragma('max_page_count = 2');
    const err = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return e;
      }
      throw new Error('expected an error');
    };
    expect(environmentLine(err(() => full.exec('CREATE TABLE a (x); CREATE TABLE b (x); CREATE TABLE c (x)')), '/d/t.db')).toBe('the disk holding /d/t.db is full (SQLITE_FULL); free some space');
    full.close();
    cpSync(join(dir, 'full.db'), join(dir, 'ro.db'));
    const ro = new Database(join(dir, 'ro.db'), { readonly: true });
    expect(environmentLine(err(() => ro.exec('CREATE TABLE z (x)')), '/d/ro.db')).toMatch(/^\/d\/ro\.db is read-only \(SQLITE_READONLY\)/);
    ro.close();
    expect(environmentLine(err(() => atPath(dir, () => readFileSync(dir))))).toBe(`${dir} is a folder where a file is meant (EISDIR in read)`);
    expect(environmentLine(err(() => readFileSync(dir)))).toBe('a file is a folder where a file is meant (EISDIR in read)');
    writeFileSync(join(dir, 'f'), 'x');
    expect(environmentLine(err(() => writeFileSync(join(dir, 'f', 'g'), 'y')))).toBe(`${join(dir, 'f', 'g')}: part of this path is a file where a folder is meant (ENOTDIR in open)`);
    const a = createServer();
    await new Promise<void>((r) => a.listen(0, '127.0.0.1', r));
    const port = (a.address() as { port: number }).port;
    const b = createServer();
    const busy = await new Promise<Error>((r) => b.once('error', r).listen(port, '127.0.0.1'));
    a.close();
    expect(environmentLine(busy)).toBe(`port ${port} is in use by another program (127.0.0.1:${port}); choose another one`);
    // A bug keeps its stack: no line for it.
    expect(environmentLine(new TypeError('x is not a function'))).toBeNull();
  });
});
