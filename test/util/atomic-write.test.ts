import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { copyFileAtomic, fillFileAtomic, temporaryPathFor, writeFileAtomic } from '../../core/util/atomic-write.js';
import { scratch } from '../helpers/scratch.js';

const tmp = scratch('awb-atomic-');
afterAll(() => tmp.cleanup());

const WRITER = join(import.meta.dirname, 'fixtures', 'write-often.ts');

/** Runs one writer process; resolves with its exit code and stderr. */
function writer(file: string, tag: string, n: number): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', WRITER, file, tag, String(n)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
}

describe('writeFileAtomic', () => {
  it('writes and replaces a file, leaving only the file in its folder', () => {
    const dir = tmp.dir();
    const file = join(dir, 'settings.json');
    writeFileAtomic(file, 'one\n');
    writeFileAtomic(file, Buffer.from('two\n'));
    expect(readFileSync(file, 'utf8')).toBe('two\n');
    expect(readdirSync(dir)).toEqual(['settings.json']);
  });

  it('leaves no temporary file and the old content when writing fails', () => {
    const dir = tmp.dir();
    const file = join(dir, 'model.json');
    writeFileSync(file, 'old');
    expect(() => fillFileAtomic(file, () => {
      throw new Error('disk full');
    })).toThrow('disk full');
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['model.json']);
    // The rename fails: a folder is in the way.
    const blocked = join(dir, 'blocked');
    mkdirSync(join(blocked, 'inside'), { recursive: true });
    expect(() => writeFileAtomic(blocked, 'x')).toThrow();
    expect(readdirSync(dir).sort()).toEqual(['blocked', 'model.json']);
    // A missing folder: nothing is created.
    expect(() => writeFileAtomic(join(dir, 'nope', 'f.json'), 'x')).toThrow(/ENOENT/);
    expect(readdirSync(dir).sort()).toEqual(['blocked', 'model.json']);
  });

  it('sets the mode exactly, whatever the umask', () => {
    const dir = tmp.dir();
    writeFileAtomic(join(dir, 'secrets.json'), '{}', { mode: 0o600 });
    expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
    // A file first written 0600, replaced with 0644: the new mode, not the old file's.
    writeFileAtomic(join(dir, 'secrets.json'), '{}', { mode: 0o644 });
    expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o644);
    // 0666 is narrowed by the usual umask (022) when written plainly; the mode given is kept.
    writeFileAtomic(join(dir, 'shared.json'), '{}', { mode: 0o666 });
    expect(statSync(join(dir, 'shared.json')).mode & 0o777).toBe(0o666);
  });

  it('gives every write its own temporary name beside the target', () => {
    const names = new Set(Array.from({ length: 1000 }, () => temporaryPathFor('/data/trainers.json')));
    expect(names.size).toBe(1000);
    for (const n of names) expect(n).toMatch(new RegExp(`^/data/\\.trainers\\.json\\.${process.pid}-[0-9a-f]{12}\\.tmp$`));
  });

  // With one fixed temporary name, a writer truncates or renames away another's half-written file:
  // a reader sees a torn file, or the other writer's rename fails with ENOENT.
  it('concurrent writers in several processes never clobber each other: every read is one whole write', async () => {
    const dir = tmp.dir();
    const file = join(dir, 'profiles.json');
    writeFileAtomic(file, 'start 0\nstart 0\n');
    const writers = Promise.all(['a', 'b', 'c'].map((tag) => writer(file, tag, 80)));
    let done = false;
    void writers.then(() => (done = true));
    let reads = 0;
    while (!done) {
      const lines = readFileSync(file, 'utf8').split('\n');
      expect(lines[0]).toMatch(/^(start|a|b|c) \d+$/);
      expect(lines.at(-2)).toBe(lines[0]);
      reads++;
      await new Promise((r) => setImmediate(r));
    }
    for (const r of await writers) expect(r, r.stderr).toMatchObject({ code: 0 });
    expect(reads).toBeGreaterThan(0);
    expect(readdirSync(dir)).toEqual(['profiles.json']);
  });
});

describe('copyFileAtomic', () => {
  it('copies whole, keeping the source mode, and leaves nothing behind when the source is missing', () => {
    const dir = tmp.dir();
    writeFileAtomic(join(dir, 'policy.json'), '{"w":[1]}', { mode: 0o640 });
    copyFileAtomic(join(dir, 'policy.json'), join(dir, 'copy.json'));
    expect(readFileSync(join(dir, 'copy.json'), 'utf8')).toBe('{"w":[1]}');
    expect(statSync(join(dir, 'copy.json')).mode & 0o777).toBe(0o640);
    expect(() => copyFileAtomic(join(dir, 'missing.json'), join(dir, 'copy.json'))).toThrow(/ENOENT/);
    expect(readdirSync(dir).sort()).toEqual(['copy.json', 'policy.json']);
  });
});
