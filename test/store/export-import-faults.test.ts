import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type WritableDB } from '../../core/store/db.js';
import { EpisodeNotFoundError, ExportExistsError, ImportAssetError, ImportFileError, ImportManifestError, ImportRecordError } from '../../core/store/errors.js';
import { exportEpisodes } from '../../core/store/export.js';
import type { EpisodeId } from '../../core/store/ids.js';
import { importEpisodes } from '../../core/store/import.js';
import { createRun, listRuns } from '../../core/store/runs.js';
import { device } from '../helpers/simdroid.js';
import { recordEpisode, tempDir } from './helpers.js';

/**
 * Issue 32: an export is written whole or not at all and does not overwrite one without --force; an import reads only
 * regular files inside its folder, checks the manifest's counts, refuses records that contradict themselves and
 * reports a uid given twice.
 */
const d = device();
const tmp = tempDir('awb-export-faults-');
let source: WritableDB;
const ids: EpisodeId[] = [];
const exportDir = join(tmp.dir, 'export');

beforeAll(async () => {
  source = openStore(join(tmp.dir, 'source.db'));
  const run = createRun(source, { kind: 'suite', name: 'to export' });
  for (const seed of [1, 2]) ids.push((await recordEpisode(source, run.id, d, 'ContactsAddContact', seed)).id);
  exportEpisodes(source, ids, exportDir);
});

afterAll(() => {
  source.close();
  d.close();
  tmp.cleanup();
});

let n = 0;
function copyOfExport(edit?: (dir: string) => void): string {
  const dir = join(tmp.dir, `copy-${++n}`);
  cpSync(exportDir, dir, { recursive: true });
  edit?.(dir);
  return dir;
}

async function caught(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

const lines = (dir: string) => readFileSync(join(dir, 'episodes.jsonl'), 'utf8').trimEnd().split('\n');
const setLines = (dir: string, l: string[]) => writeFileSync(join(dir, 'episodes.jsonl'), `${l.join('\n')}\n`);
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { counts: Record<string, number> };

describe('export', () => {
  it('refuses a folder that holds an export, leaving it as it was; --force replaces it whole', () => {
    const dir = copyOfExport();
    writeFileSync(join(dir, 'notes.txt'), 'mine');
    const before = readdirSync(dir).sort();
    expect(() => exportEpisodes(source, [ids[0]!], dir)).toThrow(ExportExistsError);
    expect(() => exportEpisodes(source, [ids[0]!], dir)).toThrow(/is not empty \(an earlier export\); give --force to replace it/);
    expect(readdirSync(dir).sort()).toEqual(before);
    const { manifest } = exportEpisodes(source, [ids[0]!], dir, { force: true });
    expect(manifest.counts.episodes).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(['episodes.jsonl', 'manifest.json', 'screenshots', 'trees']);
    expect(lines(dir)).toHaveLength(1);
    // Nothing left beside it: no temporary or replaced folder.
    expect(readdirSync(tmp.dir).filter((f) => f.includes('.partial-') || f.includes('.replaced-'))).toEqual([]);
  });

  it('a failure part-way leaves no folder and no partial one', () => {
    const dir = join(tmp.dir, 'never');
    expect(() => exportEpisodes(source, [ids[0]!, 99_999 as EpisodeId], dir)).toThrow(EpisodeNotFoundError);
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(tmp.dir).filter((f) => f.startsWith('never'))).toEqual([]);
  });

  it('writes into an empty folder, and refuses a file', () => {
    const empty = join(tmp.dir, 'empty');
    mkdirSync(empty);
    expect(exportEpisodes(source, ids, empty).manifest.counts.episodes).toBe(2);
    const file = join(tmp.dir, 'a-file');
    writeFileSync(file, 'x');
    expect(() => exportEpisodes(source, ids, file)).toThrow(/a-file is a file, not a folder/);
  });
});

describe('import of a crafted export', () => {
  it('refuses a FIFO in place of episodes.jsonl before opening it (reading one would block forever)', async () => {
    const dir = copyOfExport((x) => {
      renameSync(join(x, 'episodes.jsonl'), join(x, 'old.jsonl'));
      execFileSync('mkfifo', [join(x, 'episodes.jsonl')]);
    });
    const e = await caught(importEpisodes(openStore(':memory:'), dir));
    expect(e).toBeInstanceOf(ImportFileError);
    expect(e.message).toMatch(/episodes\.jsonl: is not a regular file \(a FIFO\)/);
  });

  it('refuses a screenshot that links out of the folder (to a device, or to any file), and follows one inside it', async () => {
    const shot = (x: string) => join(x, 'screenshots', readdirSync(join(x, 'screenshots'))[0]!);
    const toDevice = copyOfExport((x) => {
      const f = shot(x);
      renameSync(f, `${f}.moved`);
      symlinkSync('/dev/zero', f);
    });
    const e = await caught(importEpisodes(openStore(':memory:'), toDevice));
    expect(e).toBeInstanceOf(ImportAssetError);
    expect(e.message).toMatch(/is a link out of the export folder \(to \/dev\/zero\)/);
    const inside = copyOfExport((x) => {
      const f = shot(x);
      renameSync(f, join(x, 'kept.png'));
      symlinkSync('../kept.png', f);
    });
    const db = openStore(':memory:');
    expect((await importEpisodes(db, inside)).imported).toHaveLength(2);
    db.close();
  });

  it('refuses an export whose manifest counts other episodes than episodes.jsonl holds (a truncated copy)', async () => {
    const dir = copyOfExport((x) => setLines(x, lines(x).slice(0, 1)));
    const db = openStore(':memory:');
    const e = await caught(importEpisodes(db, dir));
    expect(e).toBeInstanceOf(ImportManifestError);
    expect(e.message).toMatch(/counts do not match episodes\.jsonl \(episodes: 2 in the manifest, 1 found; steps: /);
    expect(listRuns(db)).toEqual([]);
  });

  it('refuses a record whose status and success contradict each other', async () => {
    const dir = copyOfExport((x) => setLines(x, lines(x).map((l, i) => (i === 1 ? l.replace('"success":true', '"success":false') : l))));
    const e = await caught(importEpisodes(openStore(':memory:'), dir));
    expect(e).toBeInstanceOf(ImportRecordError);
    expect(e.message).toMatch(/episodes\.jsonl:2: episode "[^"]+": status "success" with success false$/);
  });

  it('reports a uid given twice with the same record (imported once), and refuses one given twice with different records', async () => {
    const same = copyOfExport((x) => {
      const l = lines(x);
      setLines(x, [...l, l[0]!]);
      const m = manifestOf(x);
      m.counts.episodes = 3;
      m.counts.steps += JSON.parse(l[0]!).steps.length;
      writeFileSync(join(x, 'manifest.json'), JSON.stringify(m));
    });
    const db = openStore(':memory:');
    const r = await importEpisodes(db, same);
    expect(r.imported).toHaveLength(2);
    expect(r.duplicates).toEqual([{ uid: JSON.parse(lines(same)[0]!).uid, lines: [1, 3] }]);
    db.close();
    const other = copyOfExport((x) => {
      const l = lines(x);
      const second = JSON.parse(l[1]!);
      second.uid = JSON.parse(l[0]!).uid;
      setLines(x, [l[0]!, JSON.stringify(second)]);
    });
    const e = await caught(importEpisodes(openStore(':memory:'), other));
    expect(e).toBeInstanceOf(ImportRecordError);
    expect(e.message).toMatch(/episodes\.jsonl:2: episode "[^"]+": the uid is on line 1 too, with another record$/);
  });
});
