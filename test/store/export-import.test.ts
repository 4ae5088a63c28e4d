import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getScreenshot } from '../../core/store/content.js';
import { openStore, type WritableDB } from '../../core/store/db.js';
import { ImportAssetError, ImportLineError, ImportManifestError } from '../../core/store/errors.js';
import { exportEpisodes } from '../../core/store/export.js';
import { EpisodeLine } from '../../core/store/format.js';
import type { EpisodeId } from '../../core/store/ids.js';
import { importEpisodes } from '../../core/store/import.js';
import { listEpisodes } from '../../core/store/queries.js';
import { putRewards } from '../../core/store/rewards.js';
import { createRun, listRuns } from '../../core/store/runs.js';
import { loadTrajectory, type Trajectory } from '../../core/store/trajectory.js';
import { device } from '../helpers/simdroid.js';
import { recordEpisode, scriptedPolicy, tempDir } from './helpers.js';

const d = device();
const tmp = tempDir('awb-export-');
let source: WritableDB;
const recorded: EpisodeId[] = [];
const exportDir = join(tmp.dir, 'export');

beforeAll(async () => {
  source = openStore(join(tmp.dir, 'source.db'));
  const run = createRun(source, { kind: 'suite', name: 'to export' });
  for (const [template, seed] of [['ContactsAddContact', 1], ['ClockNextAlarmQuestion', 2], ['ContactsAddContact', 2]] as const) {
    recorded.push((await recordEpisode(source, run.id, d, template, seed)).id);
  }
  recorded.push((await recordEpisode(source, run.id, d, 'ClockAddAlarm', 1, scriptedPolicy('mixed', [
    { action: { action_type: 'open_app', app_name: 'Clock' }, thought: 'Open the clock.', candidates: [{ action: { action_type: 'navigate_home' }, score: -1 }] },
    { action: 'click the plus' },
  ]))).id);
  recorded.push((await recordEpisode(source, run.id, d, 'ClockAddAlarm', 2, scriptedPolicy('crashy', [
    { action: { action_type: 'navigate_home' } }, new TypeError('tokenizer missing'),
  ]))).id);
  putRewards(source, recorded[0]!, 'progrm', [{ step: 1, value: 0.5, explanation: 'halfway' }]);
  exportEpisodes(source, recorded, exportDir);
});

afterAll(() => {
  source.close();
  d.close();
  tmp.cleanup();
});

/** A trajectory without the ids that are local to one store. */
function portable(t: Trajectory) {
  const { id: _id, runId: _runId, ...episode } = t.episode;
  return { ...t, episode };
}

function freshStore(): WritableDB {
  return openStore(':memory:');
}

/** A copy of the export with episodes.jsonl edited line by line. */
function editedExport(name: string, edit: (lines: string[]) => string[]): string {
  const dir = join(tmp.dir, name);
  cpSync(exportDir, dir, { recursive: true });
  const file = join(dir, 'episodes.jsonl');
  writeFileSync(file, `${edit(readFileSync(file, 'utf8').trimEnd().split('\n')).join('\n')}\n`);
  return dir;
}

async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

describe('export', () => {
  it('writes one line per episode, each screenshot and tree once, and a manifest with the counts', () => {
    const lines = readFileSync(join(exportDir, 'episodes.jsonl'), 'utf8').trimEnd().split('\n').map((l) => EpisodeLine.parse(JSON.parse(l)));
    expect(lines.map((l) => l.template)).toEqual(['ContactsAddContact', 'ClockNextAlarmQuestion', 'ContactsAddContact', 'ClockAddAlarm', 'ClockAddAlarm']);
    expect(lines.map((l) => l.status)).toEqual(['success', 'success', 'success', 'failure', 'error']);
    expect(lines[1]!.answer).toEqual(expect.any(String));
    expect(lines[0]!.steps[1]!.rewards).toEqual({ progrm: { value: 0.5, explanation: 'halfway' } });

    const shots = new Set(lines.flatMap((l) => [...l.steps.map((s) => s.screenshot), l.final_screenshot]).filter(Boolean));
    const trees = new Set(lines.flatMap((l) => [...l.steps.map((s) => s.tree), l.final_tree]).filter(Boolean));
    expect(readdirSync(join(exportDir, 'screenshots')).map((f) => `screenshots/${f}`).sort()).toEqual([...shots].sort());
    expect(readdirSync(join(exportDir, 'trees')).map((f) => `trees/${f}`).sort()).toEqual([...trees].sort());
    const manifest = JSON.parse(readFileSync(join(exportDir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      format: 'awb-trajectories', version: 1,
      counts: { episodes: 5, steps: lines.reduce((n, l) => n + l.steps.length, 0), screenshots: shots.size, trees: trees.size },
    });
    const firstShot = lines[0]!.steps[0]!.screenshot!;
    expect(readFileSync(join(exportDir, firstShot)).equals(getScreenshot(source, firstShot.slice(12, -4)))).toBe(true);
  });

  it('exports the episodes a filter selects', () => {
    const dir = join(tmp.dir, 'successes');
    const { manifest } = exportEpisodes(source, { status: 'success', templateId: 'ContactsAddContact' }, dir);
    expect(manifest.counts.episodes).toBe(2);
    expect(readFileSync(join(dir, 'episodes.jsonl'), 'utf8').trimEnd().split('\n')).toHaveLength(2);
  });
});

describe('import', () => {
  it('reads an export back into a run of kind import, trajectory for trajectory', async () => {
    const target = freshStore();
    const summary = await importEpisodes(target, exportDir);
    expect(summary).toMatchObject({ skipped: 0, run: { kind: 'import', status: 'finished' } });
    expect(summary.imported).toHaveLength(5);
    summary.imported.forEach((id, i) => {
      expect(portable(loadTrajectory(target, id))).toEqual(portable(loadTrajectory(source, recorded[i]!)));
    });
    const shot = loadTrajectory(target, summary.imported[0]!).steps[0]!.screenshot!;
    expect(getScreenshot(target, shot).equals(getScreenshot(source, shot))).toBe(true);
    target.close();
  });

  it('is idempotent by episode uid: a second import adds nothing', async () => {
    const target = freshStore();
    await importEpisodes(target, exportDir);
    const counts = () => target.prepare('SELECT (SELECT count(*) FROM episodes), (SELECT count(*) FROM steps), (SELECT count(*) FROM runs), (SELECT count(*) FROM screenshots)').raw().get();
    const before = counts();
    expect(await importEpisodes(target, exportDir)).toEqual({ run: null, imported: [], skipped: 5 });
    expect(counts()).toEqual(before);
    expect((await importEpisodes(source, exportDir)).skipped).toBe(5);
    target.close();
  });

  it('keeps an episode of a template this build does not know, with what the file says about it', async () => {
    const dir = editedExport('unknown-template', (lines) => lines.slice(0, 1).map((l) => {
      const ep = JSON.parse(l);
      return JSON.stringify({ ...ep, uid: 'imported-from-the-future', template: 'ContactsTeleport', difficulty: 'hard', tags: ['complex_ui'] });
    }));
    const target = freshStore();
    const { imported } = await importEpisodes(target, dir);
    expect(loadTrajectory(target, imported[0]!).instance.template).toEqual({
      id: 'ContactsTeleport', app: 'Contacts', apps: ['Contacts'], difficulty: 'hard', kind: 'completion', tags: ['complex_ui'], template: null,
    });
    expect(listEpisodes(target, { app: 'Contacts' }).rows.map((r) => r.uid)).toEqual(['imported-from-the-future']);
    target.close();
  });

  it('reports a line that is not JSON, or not a trajectory, by its number, and imports nothing', async () => {
    const notJson = editedExport('not-json', (lines) => [lines[0]!, '{"uid": "broken', ...lines.slice(1)]);
    const target = freshStore();
    const e1 = await caught(importEpisodes(target, notJson));
    expect(e1).toBeInstanceOf(ImportLineError);
    expect(e1).toMatchObject({ line: 2, issues: [expect.stringContaining('not JSON')] });

    const badStatus = editedExport('bad-status', (lines) => lines.map((l, i) => (i === 2 ? l.replace('"status":"success"', '"status":"exploded"') : l)));
    expect(await caught(importEpisodes(target, badStatus))).toMatchObject({ name: 'ImportLineError', line: 3, issues: [expect.stringMatching(/^status: /)] });

    const escape = editedExport('escape', (lines) => lines.map((l, i) => (i === 3 ? l.replace(/"final_tree":"[^"]+"/, '"final_tree":"../../etc/passwd"') : l)));
    expect(await caught(importEpisodes(target, escape))).toMatchObject({ name: 'ImportLineError', line: 4, issues: [expect.stringMatching(/^final_tree: /)] });

    expect(listRuns(target)).toEqual([]);
    expect(target.prepare('SELECT count(*) FROM episodes').pluck().get()).toBe(0);
    target.close();
  });

  it('refuses a missing or altered screenshot or tree', async () => {
    const missing = editedExport('missing-asset', (lines) => lines);
    const shot = readdirSync(join(missing, 'screenshots'))[0]!;
    rmSync(join(missing, 'screenshots', shot));
    const target = freshStore();
    expect(await caught(importEpisodes(target, missing))).toBeInstanceOf(ImportAssetError);

    const altered = editedExport('altered-asset', (lines) => lines);
    const tree = readdirSync(join(altered, 'trees'))[0]!;
    writeFileSync(join(altered, 'trees', tree), '<hierarchy rotation="0"/>');
    expect(await caught(importEpisodes(target, altered))).toMatchObject({ name: 'ImportAssetError', asset: `trees/${tree}`, reason: expect.stringContaining('hash') });
    expect(target.prepare('SELECT count(*) FROM episodes').pluck().get()).toBe(0);
    target.close();
  });

  it('refuses a directory without a manifest, or from a newer format', async () => {
    const target = freshStore();
    expect(await caught(importEpisodes(target, join(tmp.dir, 'nowhere')))).toBeInstanceOf(ImportManifestError);
    const newer = editedExport('newer', (lines) => lines);
    const manifest = JSON.parse(readFileSync(join(newer, 'manifest.json'), 'utf8'));
    writeFileSync(join(newer, 'manifest.json'), JSON.stringify({ ...manifest, version: 2 }));
    expect(await caught(importEpisodes(target, newer))).toMatchObject({ name: 'ImportManifestError', reason: expect.stringContaining('version 2') });
    target.close();
  });
});
