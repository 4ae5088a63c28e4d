import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { contentStats, getScreenshot, getTree, pngSize, putScreenshot, putTree, sha256 } from '../../core/store/content.js';
import { openStore, type WritableDB } from '../../core/store/db.js';
import { ScreenshotFormatError, ScreenshotNotFoundError, TreeNotFoundError } from '../../core/store/errors.js';
import { createRun } from '../../core/store/runs.js';
import { loadTrajectory } from '../../core/store/trajectory.js';
import { device } from '../helpers/simdroid.js';
import { recordEpisode, tinyPng } from './helpers.js';

const d = device();
afterAll(() => d.close());
let db: WritableDB;
beforeEach(() => {
  db = openStore(':memory:');
});

describe('content-addressed screenshots and trees', () => {
  it('stores an identical frame once, under the SHA-256 of its bytes', () => {
    const png = d.screenshotSync(0.5);
    const a = putScreenshot(db, png);
    const b = putScreenshot(db, Buffer.from(png));
    expect(a).toBe(b);
    expect(a).toBe(sha256(png));
    putScreenshot(db, tinyPng(7));
    expect(contentStats(db).screenshots).toEqual({ count: 2, bytes: png.length + tinyPng(7).length });
    expect(getScreenshot(db, a).equals(png)).toBe(true);
  });

  it('reads width and height from the PNG header', () => {
    const sha = putScreenshot(db, d.screenshotSync(1));
    expect(db.prepare('SELECT width, height FROM screenshots WHERE sha256 = ?').get(sha)).toEqual({ width: 1080, height: 2400 });
    expect(pngSize(tinyPng(0, 3, 5))).toEqual({ width: 3, height: 5 });
  });

  it('refuses bytes that are not a PNG', () => {
    expect(() => putScreenshot(db, Buffer.from('GIF89a not a png at all, really'))).toThrow(ScreenshotFormatError);
    expect(contentStats(db).screenshots.count).toBe(0);
  });

  it('compresses trees, stores each once and gives the XML back exactly', () => {
    const xml = d.uiXml();
    const sha = putTree(db, xml);
    expect(putTree(db, xml)).toBe(sha);
    const stats = contentStats(db).trees;
    expect(stats).toMatchObject({ count: 1, bytes: Buffer.byteLength(xml) });
    expect(stats.storedBytes).toBeLessThan(stats.bytes / 5);
    expect(getTree(db, sha)).toBe(xml);
  });

  it('keeps one copy of the frames two identical episodes saw', async () => {
    const run = createRun(db, { kind: 'single', name: 'dedup' });
    const first = await recordEpisode(db, run.id, d, 'ContactsAddContact', 1);
    const after1 = contentStats(db);
    const second = await recordEpisode(db, run.id, d, 'ContactsAddContact', 1);
    expect(contentStats(db)).toEqual(after1);
    const [a, b] = [loadTrajectory(db, first.id), loadTrajectory(db, second.id)];
    expect(b.steps.map((s) => s.screenshot)).toEqual(a.steps.map((s) => s.screenshot));
    expect(new Set(a.steps.map((s) => s.screenshot)).size).toBeLessThanOrEqual(after1.screenshots.count);
    expect(db.prepare('SELECT count(*) FROM steps').pluck().get()).toBe(2 * a.steps.length);
  });

  it('names a missing hash in its error', () => {
    expect(() => getScreenshot(db, 'f'.repeat(64))).toThrow(ScreenshotNotFoundError);
    expect(() => getTree(db, 'e'.repeat(64))).toThrow(expect.objectContaining({ name: 'TreeNotFoundError', sha256: 'e'.repeat(64) }));
    expect(() => getTree(db, 'e'.repeat(64))).toThrow(TreeNotFoundError);
  });
});
