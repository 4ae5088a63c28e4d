import { afterAll, describe, expect, it } from 'vitest';
import { resetForTask } from '../../core/episode/runner.js';
import { Favorite, Marker, Track } from '../../core/tasks/families/osmand/places.js';
import { FAVORITES_GPX, locationCoords, MARKERS_DB_PATH, TRACKS_DIR, trackPasses } from '../../core/tasks/families/osmand/osmand-data.js';
import { instantiate } from '../../core/tasks/instance.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { sqlExec } from '../../core/tasks/validators/sqlite.js';
import { device, sh } from '../helpers/simdroid.js';

/** The OsmAnd checkers use AndroidWorld's matching: a name containing the location, or coordinates within 0.001°. */
const d = device();
afterAll(() => d.close());
const none = { actions: [] };

async function start<P>(t: TaskTemplate<P>, seed = 0): Promise<P> {
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return inst.params;
}

const wpt = (name: string, lat: number, lon: number) => `<wpt lat="${lat}" lon="${lon}"><name>${name}</name></wpt>`;
const writeFavorites = (...wpts: string[]) => sh(d, `echo -n '<gpx xmlns="http://www.topografix.com/GPX/1/1">${wpts.join('')}</gpx>' > ${FAVORITES_GPX}`);

describe('locations', () => {
  it('reads coordinates or a place of the preloaded map, and nothing else', () => {
    expect(locationCoords('47.0688832, 9.5061564')).toEqual({ lat: 47.0688832, lon: 9.5061564 });
    expect(locationCoords('Triesen, Liechtenstein')).toEqual({ lat: 47.106997, lon: 9.5274854 });
    expect(locationCoords('Triesen')).toBeNull();
    expect(() => Favorite.params.parse({ location: 'Atlantis' })).toThrow(/preloaded map/);
  });

  it('a track passes waypoints in order, with points between', () => {
    const [a, b, c] = [{ lat: 1, lon: 1 }, { lat: 2, lon: 2 }, { lat: 3, lon: 3 }];
    expect(trackPasses([a, { lat: 5, lon: 5 }, b, c], [a, b, c])).toBe(true);
    expect(trackPasses([a, c, b], [a, b, c])).toBe(false);
  });
});

describe('OsmAndFavorite', () => {
  it('accepts a favourite within 0.001° or one whose name contains the location; rejects one 0.002° off', async () => {
    const p = { location: 'Balzers, Liechtenstein' };
    await resetForTask(d, { ...instantiate(Favorite, 0), params: p });
    expect((await Favorite.check(d, p, none)).ok).toBe(false);
    writeFavorites(wpt('Home', 47.0708832, 9.5061564));
    expect((await Favorite.check(d, p, none)).ok).toBe(false);
    writeFavorites(wpt('Home', 47.0692, 9.5058));
    expect((await Favorite.check(d, p, none)).ok).toBe(true);
    writeFavorites(wpt('Balzers, Liechtenstein', 0, 0));
    expect((await Favorite.check(d, p, none)).ok).toBe(true);
  });
});

describe('OsmAndMarker', () => {
  it('accepts a marker at the location only', async () => {
    const p = await start(Marker, 2);
    const c = locationCoords(p.location)!;
    await sqlExec(d, MARKERS_DB_PATH, `INSERT INTO map_markers (marker_id, marker_lat, marker_lon, marker_active) VALUES ('x', ${c.lat + 0.01}, ${c.lon}, 1);`);
    expect((await Marker.check(d, p, none)).ok).toBe(false);
    await sqlExec(d, MARKERS_DB_PATH, `INSERT INTO map_markers (marker_id, marker_lat, marker_lon, marker_active) VALUES ('y', ${c.lat}, ${c.lon + 0.0005}, 1);`);
    expect((await Marker.check(d, p, none)).ok).toBe(true);
  });
});

describe('OsmAndTrack', () => {
  it('accepts a track through the waypoints in order, rejects them reversed', async () => {
    const p = await start(Track, 1);
    const pts = p.waypoints.map((w) => locationCoords(w)!);
    const gpx = (order: typeof pts) => `<gpx xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>${order.map((c) => `<trkpt lat="${c.lat}" lon="${c.lon}"/>`).join('')}</trkseg></trk></gpx>`;
    sh(d, `echo -n '${gpx([...pts].reverse())}' > ${TRACKS_DIR}/back.gpx`);
    expect((await Track.check(d, p, none)).ok).toBe(false);
    sh(d, `echo -n '${gpx(pts)}' > ${TRACKS_DIR}/route.gpx`);
    expect((await Track.check(d, p, none)).ok).toBe(true);
  });
});
