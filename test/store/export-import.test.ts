import { createHash } from 'node:crypto';
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
import { putRewardValues, putSubgoalProgress } from '../../core/store/reward-annotations.js';
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
  // The reward framework's annotations: a kind unscored on some steps and scored on others, a recorder
  // row replaced by the unscored reason, and ground-truth subgoal progress.
  const shepherdSteps = loadTrajectory(source, recorded[1]!).steps.length;
  putRewardValues(source, recorded[1]!, 'shepherd', Array.from({ length: shepherdSteps }, (_, i) => (
    i === 0 ? { step: i, value: null, explanation: 'unjudged: endpoint timed out' } : { step: i, value: 0.75, explanation: 'P = 0.75' })));
  const errorSteps = loadTrajectory(source, recorded[4]!).steps.length;
  putRewardValues(source, recorded[4]!, 'outcome', Array.from({ length: errorSteps }, (_, i) => ({ step: i, value: null, explanation: 'no checker verdict' })));
  const steps0 = loadTrajectory(source, recorded[0]!).steps.length;
  putSubgoalProgress(source, recorded[0]!, { names: ['open', 'fill', 'save'], done: Array.from({ length: steps0 }, (_, i) => Math.min(3, i)) });
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
/** A copy of the export with its lines edited, and its manifest's counts made to match them (as a careful editor would). */
function editedExport(name: string, edit: (lines: string[]) => string[], opts: { keepCounts?: boolean } = {}): string {
  const dir = join(tmp.dir, name);
  cpSync(exportDir, dir, { recursive: true });
  const file = join(dir, 'episodes.jsonl');
  const lines = edit(readFileSync(file, 'utf8').trimEnd().split('\n'));
  writeFileSync(file, `${lines.join('\n')}\n`);
  if (!opts.keepCounts) {
    const refs = (kind: RegExp) => new Set(lines.flatMap((l) => l.match(kind) ?? [])).size;
    const manifestFile = join(dir, 'manifest.json');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8'));
    let steps = 0;
    for (const l of lines) {
      try {
        steps += (JSON.parse(l) as { steps?: unknown[] }).steps?.length ?? 0;
      } catch {
        // a line the test breaks on purpose
      }
    }
    manifest.counts = { episodes: lines.length, steps, screenshots: refs(/screenshots\/[0-9a-f]{64}\.png/g), trees: refs(/trees\/[0-9a-f]{64}\.xml/g) };
    writeFileSync(manifestFile, JSON.stringify(manifest));
  }
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

  it('carries the unscored reasons and the ground-truth subgoal progress', async () => {
    const lines = readFileSync(join(exportDir, 'episodes.jsonl'), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    expect(lines[1].steps[0].unscored).toEqual({ shepherd: 'unjudged: endpoint timed out' });
    expect(lines[1].steps[1]).toMatchObject({ unscored: {}, rewards: { shepherd: { value: 0.75 } } });
    expect(lines[4].steps.at(-1).unscored).toEqual({ outcome: 'no checker verdict' });
    expect(lines[4].steps.at(-1).rewards.outcome).toBeUndefined();
    expect(lines[0].subgoals.names).toEqual(['open', 'fill', 'save']);
    expect(lines[1].subgoals).toBeNull();

    const target = freshStore();
    const { imported } = await importEpisodes(target, exportDir);
    const shepherd = loadTrajectory(target, imported[1]!).steps;
    expect(shepherd[0]!.unscored).toEqual({ shepherd: 'unjudged: endpoint timed out' });
    expect(shepherd[0]!.rewards.shepherd).toBeUndefined();
    expect(shepherd.slice(1).map((s) => s.rewards.shepherd?.value)).toEqual(Array(shepherd.length - 1).fill(0.75));
    expect(loadTrajectory(target, imported[0]!).subgoals).toEqual(loadTrajectory(source, recorded[0]!).subgoals);
    expect(loadTrajectory(target, imported[1]!).subgoals).toBeUndefined();
    target.close();
  });

  it('still reads a file written before unscored reasons and subgoal progress were exported', async () => {
    const old = editedExport('pre-annotations', (lines) => lines.map((l) => {
      const { subgoals: _s, ...ep } = JSON.parse(l);
      return JSON.stringify({ ...ep, steps: ep.steps.map(({ unscored: _u, ...step }: Record<string, unknown>) => step) });
    }));
    expect(readFileSync(join(old, 'episodes.jsonl'), 'utf8')).not.toMatch(/unscored|subgoals/);
    const target = freshStore();
    const { imported } = await importEpisodes(target, old);
    expect(imported).toHaveLength(5);
    expect(imported.map((id) => loadTrajectory(target, id).subgoals)).toEqual(Array(5).fill(undefined));
    expect(imported.flatMap((id) => loadTrajectory(target, id).steps).some((s) => s.unscored)).toBe(false);
    target.close();
  });

  it('refuses subgoal progress that does not fit the steps, or a kind both scored and unscored, importing nothing', async () => {
    const target = freshStore();
    const short = editedExport('short-subgoals', (lines) => lines.map((l, i) => {
      const ep = JSON.parse(l);
      return JSON.stringify(i === 2 ? { ...ep, subgoals: { names: ['a'], done: [0] } } : ep);
    }));
    expect(await caught(importEpisodes(target, short))).toMatchObject({ name: 'ImportLineError', line: 3, issues: [expect.stringMatching(/^subgoals\.done: expected one count per step/)] });
    const decreasing = editedExport('decreasing-subgoals', (lines) => lines.map((l, i) => {
      const ep = JSON.parse(l);
      return JSON.stringify(i === 0 ? { ...ep, subgoals: { names: ['a', 'b'], done: ep.steps.map((_: unknown, k: number) => (k === 0 ? 2 : 1)) } } : ep);
    }));
    expect(await caught(importEpisodes(target, decreasing))).toMatchObject({ line: 1, issues: [expect.stringMatching(/step 1 count 1 decreases/)] });
    const both = editedExport('scored-and-unscored', (lines) => lines.map((l, i) => {
      const ep = JSON.parse(l);
      if (i === 1) ep.steps[1].unscored = { shepherd: 'timed out' };
      return JSON.stringify(ep);
    }));
    expect(await caught(importEpisodes(target, both))).toMatchObject({ line: 2, issues: [expect.stringMatching(/^steps\.1\.unscored: .*not both/)] });
    const blank = editedExport('blank-reason', (lines) => lines.map((l) => l.replace('"unjudged: endpoint timed out"', '" "')));
    expect(await caught(importEpisodes(target, blank))).toMatchObject({ line: 2, issues: [expect.stringMatching(/needs a reason/)] });
    expect(target.prepare('SELECT count(*) FROM episodes').pluck().get()).toBe(0);
    target.close();
  });

  it('is idempotent by episode uid: a second import adds nothing', async () => {
    const target = freshStore();
    await importEpisodes(target, exportDir);
    const counts = () => target.prepare('SELECT (SELECT count(*) FROM episodes), (SELECT count(*) FROM steps), (SELECT count(*) FROM runs), (SELECT count(*) FROM screenshots)').raw().get();
    const before = counts();
    expect(await importEpisodes(target, exportDir)).toEqual({ run: null, imported: [], skipped: 5, duplicates: [] });
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

  // Issue 16, D2: a tree of invalid UTF-8 named by the hash of its raw bytes passed the checks, was re-encoded on the
  // way in (stored under another hash), and the import failed on a FOREIGN KEY after committing earlier episodes.
  it('refuses a tree that is not UTF-8 even when its name is the hash of its bytes, importing nothing', async () => {
    const bad = Buffer.concat([Buffer.from('<hierarchy rotation="0"><node text="'), Buffer.from([0xe0, 0xa4]), Buffer.from('"/></hierarchy>')]);
    const sha = createHash('sha256').update(bad).digest('hex');
    const dir = editedExport('non-utf8-tree', (lines) => lines.map((line, k) => {
      if (k !== 2) return line;
      const ep = JSON.parse(line) as { steps: Array<{ tree: string | null }> };
      ep.steps[0]!.tree = `trees/${sha}.xml`;
      return JSON.stringify(ep);
    }));
    writeFileSync(join(dir, 'trees', `${sha}.xml`), bad);
    const target = freshStore();
    expect(await caught(importEpisodes(target, dir))).toMatchObject({ name: 'ImportAssetError', asset: `trees/${sha}.xml`, reason: expect.stringContaining('UTF-8') });
    expect(target.prepare('SELECT count(*) FROM episodes').pluck().get()).toBe(0);
    expect(listRuns(target).filter((r) => r.kind === 'import')).toEqual([]);
    target.close();
  });

  it('is all or nothing when writing fails part-way: no episode and no run left behind', async () => {
    const target = freshStore();
    // SQLite refuses the third episode: the two before it and the run must go with it.
    target.exec("CREATE TRIGGER third_fails BEFORE INSERT ON episodes WHEN (SELECT count(*) FROM episodes) >= 2 BEGIN SELECT RAISE(ABORT, 'disk full, say'); END");
    expect(await caught(importEpisodes(target, exportDir))).toMatchObject({ message: expect.stringContaining('disk full') });
    expect(target.prepare('SELECT count(*) FROM episodes').pluck().get()).toBe(0);
    expect(target.prepare('SELECT count(*) FROM steps').pluck().get()).toBe(0);
    expect(listRuns(target)).toEqual([]);
    target.exec('DROP TRIGGER third_fails');
    expect((await importEpisodes(target, exportDir)).imported).toHaveLength(recorded.length);
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
