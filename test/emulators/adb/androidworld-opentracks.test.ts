import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHost } from '../../../emulators/simdroid/host.js';
import { connectedAdb, type AdbCli } from './helpers.js';

/**
 * OpenTracks' tracks as AndroidWorld's activity_app_utils seeds them, through Debian's real adb:
 * sqlite_utils pulls database.db, deletes every row and inserts its SportsActivity rows by column
 * name with SQLite on the host, pushes the file back and closes the app; the track list then shows
 * them in `uiautomator dump`.
 */
const DB = '/data/data/de.dennisguse.opentracks/databases/database.db';
const LIST = 'de.dennisguse.opentracks/de.dennisguse.opentracks.TrackListActivity';

let host: EmulatorHost;
let adb: AdbCli;
let sh: (...args: string[]) => ReturnType<AdbCli['run']>;
let scratch: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ host, adb, sh, scratch, close } = await connectedAdb('awb-aw-opentracks-'));
});
afterAll(() => close());

/** SportsActivity's fields (android_world/task_evals/utils/sqlite_schema_utils.py), less the _id it leaves out. */
const FIELDS = ['name', 'description', 'category', 'activity_type', 'starttime', 'stoptime', 'numpoints', 'totaldistance', 'totaltime',
  'movingtime', 'avgspeed', 'avgmovingspeed', 'maxspeed', 'minelevation', 'maxelevation', 'elevationgain', 'icon', 'uuid', 'elevationloss',
  'starttime_offset'];

function activity(name: string, category: string, start: number, minutes: number, meters: number): unknown[] {
  const ms = minutes * 60_000;
  return [name, '', category, category, start, start + ms, 0, meters, ms, ms, meters / ms, meters / ms, 0, 0, 0, 120, null, randomBytes(16), 80, 0];
}

describe('OpenTracks as AndroidWorld seeds it', () => {
  it('has the tracks table with every SportsActivity column', async () => {
    const local = join(scratch, 'columns.db');
    await adb.ok(['-s', host.address, 'pull', DB, local]);
    const db = new Database(local, { readonly: true });
    const cols = (db.prepare('PRAGMA table_info(tracks)').all() as Array<{ name: string }>).map((c) => c.name);
    db.close();
    expect(cols).toEqual(expect.arrayContaining(['_id', ...FIELDS]));
  });

  it('pull, delete, insert by name, push: the list shows the new tracks and nothing else', async () => {
    expect((await sh(`sqlite3 ${DB} "SELECT name FROM sqlite_master WHERE type='table' AND name='tracks'"`)).out.trim()).toBe('tracks');
    const local = join(scratch, 'database.db');
    await adb.ok(['-s', host.address, 'pull', DB, local]);
    const db = new Database(local);
    db.prepare('DELETE FROM tracks').run();
    const insert = db.prepare(`INSERT INTO tracks (${FIELDS.map((f) => `"${f}"`).join(', ')}) VALUES (${FIELDS.map(() => '?').join(', ')})`);
    insert.run(...activity('Lunch Break Fitness', 'snow boarding', Date.UTC(2023, 9, 15, 9, 45), 90, 8417));
    insert.run(...activity('Slow day', 'kayaking', Date.UTC(2023, 9, 11, 17, 30), 40, 483));
    db.close();
    await adb.ok(['-s', host.address, 'push', local, DB]);
    expect((await sh('am force-stop de.dennisguse.opentracks')).code).toBe(0);
    expect((await sh(`am start -n ${LIST}`)).code).toBe(0);
    const xml = (await sh('uiautomator dump /dev/tty')).out;
    expect(xml).toContain('text="Lunch Break Fitness"');
    expect(xml).toContain('content-desc="snow boarding"');
    expect(xml).toContain('text="1:30:00 (5.23 mi)"');
    expect(xml).toContain('text="Today"');
    expect(xml).toContain('text="Slow day"');
    expect(xml).toContain('text="40:00 (1584.65 ft)"');
    expect(xml).toContain('text="Oct 11, 2023"');
    expect((xml.match(/resource-id="de\.dennisguse\.opentracks:id\/track_list_item_name"/g) ?? []).length).toBe(2);
    expect((await sh(`sqlite3 ${DB} "SELECT COUNT(*) FROM tracks"`)).out.trim()).toBe('2');
  });
});
