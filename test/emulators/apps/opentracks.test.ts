import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { addTracks, clearTracks, listTracks, TRACKS_DB, type NewTrack } from '../../../core/tasks/families/opentracks/tracks-db.js';
import { formatDistance, formatElapsed, listDate } from '../../../emulators/simdroid/apps/opentracks/format.js';
import { device, elements, find, get, scroll, sh, tap } from '../../helpers/simdroid.js';

/** OpenTracks in SimDroid: the track list and a track's statistics, over the tracks table AndroidWorld seeds. */
const d = device();
afterAll(() => d.close());

const PKG = 'de.dennisguse.opentracks';
const NOW = Date.UTC(2023, 9, 15, 15, 34);
const at = (day: number, hour: number, minute = 0) => Date.UTC(2023, 9, day, hour, minute);
const open = () => sh(d, `am start -n ${PKG}/${PKG}.TrackListActivity`);
const track = (o: Partial<NewTrack> & { name: string; start: number }): NewTrack => ({
  description: '', category: 'running', duration: 30, distance: 5000, elevationGain: 10, elevationLoss: 20, ...o,
});
const ids = (id: string) => elements(d).filter((e) => e.node.resourceId === `${PKG}:id/${id}`).map((e) => e.node.text || e.node.contentDesc);

beforeEach(async () => {
  await d.loadSnapshot(BOOT_SNAPSHOT);
});
afterEach(() => {
  expect(d.wm.state.crashes).toEqual([]);
});

describe('OpenTracks: formats', () => {
  it('words distances in miles over half a mile and in feet below, times as elapsed time, days relative to today', () => {
    expect(formatDistance(8417)).toBe('5.23 mi');
    expect(formatDistance(805)).toBe('0.50 mi');
    expect(formatDistance(804)).toBe('2637.80 ft');
    expect(formatDistance(0)).toBe('0.00 ft');
    expect(formatElapsed(45 * 60_000)).toBe('45:00');
    expect(formatElapsed(90 * 60_000)).toBe('1:30:00');
    expect(formatElapsed(61_000)).toBe('01:01');
    expect(listDate(at(15, 8), NOW)).toBe('Today');
    expect(listDate(at(14, 23, 59), NOW)).toBe('Yesterday');
    expect(listDate(at(12, 10), NOW)).toBe('Oct 12, 2023');
  });
});

describe('OpenTracks: the track list', () => {
  it('boots with a few tracks and opens on the list', async () => {
    open();
    expect((await listTracks(d)).length).toBeGreaterThanOrEqual(3);
    expect(get(d, { resourceId: 'toolbar_title' }).node.text).toBe('OpenTracks');
    expect(ids('track_list_item_name').length).toBeGreaterThanOrEqual(3);
  });

  it('lists tracks newest first with type, day, total time, distance and start time', async () => {
    await clearTracks(d);
    await addTracks(d, [
      track({ name: 'Old ride', category: 'cycling', start: at(12, 7, 15), duration: 90, distance: 8417 }),
      track({ name: 'Short swim', category: 'swimming', start: at(15, 6, 30), duration: 45, distance: 300 }),
      track({ name: 'Evening walk', category: 'snow boarding', start: at(14, 19, 5), duration: 125, distance: 12_000 }),
    ]);
    open();
    expect(ids('track_list_item_name')).toEqual(['Short swim', 'Evening walk', 'Old ride']);
    expect(ids('track_list_item_icon')).toEqual(['swimming', 'snow boarding', 'cycling']);
    expect(ids('track_list_item_date')).toEqual(['Today', 'Yesterday', 'Oct 12, 2023']);
    expect(ids('track_list_item_time_distance')).toEqual(['45:00 (984.25 ft)', '2:05:00 (7.46 mi)', '1:30:00 (5.23 mi)']);
    expect(ids('track_list_item_time')).toEqual(['06:30', '19:05', '07:15']);
  });

  it('shows tracks AndroidWorld wrote straight into the table (its columns, by name)', async () => {
    await clearTracks(d);
    sh(d, `sqlite3 ${TRACKS_DB} "INSERT INTO tracks (name, description, category, activity_type, starttime, stoptime, numpoints, totaldistance, totaltime, movingtime, avgspeed, avgmovingspeed, maxspeed, minelevation, maxelevation, elevationgain, icon, uuid, elevationloss, starttime_offset) VALUES ('Quick outing', 'Slow day', 'hiking', 'hiking', ${at(10, 9)}, ${at(10, 10)}, 0, 3219.0, 3600000, 3600000, 0.0009, 0.0009, 0.0, 0.0, 0.0, 100, NULL, X'00112233445566778899AABBCCDDEEFF', 50, 0)"`);
    open();
    expect(ids('track_list_item_name')).toEqual(['Quick outing']);
    expect(ids('track_list_item_time_distance')).toEqual(['1:00:00 (2.00 mi)']);
  });

  it('scrolls a long list to its end', async () => {
    await clearTracks(d);
    await addTracks(d, Array.from({ length: 22 }, (_, i) => track({ name: `Run ${i + 1}`, start: at(15, 12) - i * 12 * 3_600_000 })));
    open();
    const seen = new Set(ids('track_list_item_name'));
    expect(seen.size).toBeLessThan(22);
    for (let i = 0; i < 10 && !seen.has('Run 22'); i++) {
      scroll(d, 'down');
      for (const n of ids('track_list_item_name')) seen.add(n);
    }
    expect(seen.size).toBe(22);
  });

  it('opens a track\'s statistics on a tap, and Back returns to the list', async () => {
    await clearTracks(d);
    await addTracks(d, [track({ name: 'Hill Walk', category: 'hiking', description: 'Windy at the top', start: at(11, 8), duration: 75, distance: 6437 })]);
    open();
    tap(d, { text: 'Hill Walk' });
    expect(d.wm.foreground()?.activity).toBe(`${PKG}.TrackRecordedActivity`);
    expect(get(d, { resourceId: 'stats_activity_type' }).node.text).toBe('hiking');
    expect(get(d, { resourceId: 'stats_start_date' }).node.text).toBe('Wednesday, October 11, 2023');
    expect(get(d, { resourceId: 'stats_total_time' }).node.text).toBe('1:15:00');
    expect(get(d, { resourceId: 'stats_distance' }).node.text).toBe('4.00 mi');
    expect(get(d, { resourceId: 'stats_description' }).node.text).toBe('Windy at the top');
    tap(d, { contentDesc: 'Navigate up' });
    expect(find(d, { text: 'Hill Walk', resourceId: 'track_list_item_name' })).toBeDefined();
  });

  it('shows an empty list when AndroidWorld has cleared the table', async () => {
    await clearTracks(d);
    open();
    expect(find(d, { resourceId: 'track_list_empty_view' })).toBeDefined();
    expect(ids('track_list_item_name')).toEqual([]);
  });
});
