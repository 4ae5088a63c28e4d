import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { device, find, get, sh, tap, texts, typeInto } from '../../helpers/simdroid.js';
import { parseWaypoints } from '../../../core/util/gpx.js';

/** OsmAnd driven through its UI; favourites, markers and tracks read back where AndroidWorld reads them. */
const d = device();
afterAll(() => d.close());

const FILES = '/data/media/0/Android/data/net.osmand/files';
const FAVORITES = `${FILES}/favorites/favorites.gpx`;
const MARKERS_DB = '/data/data/net.osmand/databases/map_markers_db';

function search(query: string): void {
  tap(d, { contentDesc: 'Search' });
  typeInto(d, { resourceId: 'searchEditText' }, query);
}

beforeEach(() => {
  d.loadSnapshotSync(BOOT_SNAPSHOT);
  sh(d, 'am start -n net.osmand/net.osmand.plus.activities.MapActivity');
});

describe('OsmAnd', () => {
  it('draws the map with the settlements as labels, and opens one on tap', () => {
    expect(find(d, { contentDesc: 'Map' })).toBeDefined();
    expect(texts(d)).toEqual(expect.arrayContaining(['Vaduz', 'Schaan']));
    tap(d, { text: 'Schaan' });
    expect(get(d, { resourceId: 'context_menu_line1' }).node.text).toBe('Schaan');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('finds "Balzers, Liechtenstein" and saves it as a favourite in favorites.gpx, at its coordinates', () => {
    search('Balzers, Liechtenstein');
    tap(d, { text: 'Balzers', resourceId: 'title' });
    tap(d, { text: 'Favorite' });
    expect(get(d, { resourceId: 'name_edit' }).node.text).toBe('Balzers');
    tap(d, { text: 'Save' });
    expect(parseWaypoints(sh(d, `cat ${FAVORITES}`))).toEqual([{ name: 'Balzers', lat: 47.0688832, lon: 9.5061564 }]);
  });

  it('keeps favourites written back by Python\'s ElementTree (ns0: prefixes) and adds to them', () => {
    sh(d, `echo -n '<ns0:gpx xmlns:ns0="http://www.topografix.com/GPX/1/1"><ns0:wpt lat="47.1" lon="9.5"><ns0:name>Home</ns0:name></ns0:wpt></ns0:gpx>' > ${FAVORITES}`);
    search('47.1663432, 9.5103085');
    tap(d, { resourceId: 'title' });
    tap(d, { text: 'Favorite' });
    tap(d, { text: 'Save' });
    expect(parseWaypoints(sh(d, `cat ${FAVORITES}`))).toEqual([
      { name: 'Home', lat: 47.1, lon: 9.5 }, { name: '47.16634, 9.51031', lat: 47.1663432, lon: 9.5103085 },
    ]);
  });

  it('adds a map marker to map_markers_db with AndroidWorld\'s columns', () => {
    search('schonberg');
    tap(d, { text: 'Schönberg', resourceId: 'title' });
    tap(d, { text: 'Marker' });
    const rows = sh(d, `sqlite3 ${MARKERS_DB} "SELECT marker_lat, marker_lon, marker_description, marker_active FROM map_markers"`).trim();
    expect(rows).toBe('47.1303814|9.5930117|Schönberg|1');
    const columns = sh(d, `sqlite3 ${MARKERS_DB} "PRAGMA table_info(map_markers)"`).trim().split('\n').map((l) => l.split('|')[1]);
    expect(columns).toEqual(['marker_id', 'marker_lat', 'marker_lon', 'marker_description', 'marker_active', 'marker_added', 'marker_visited',
      'group_name', 'group_key', 'marker_color', 'marker_next_key', 'marker_disabled', 'marker_selected', 'marker_map_object_name', 'title']);
  });

  it('plans a route through searched places and saves it as a track GPX, points in order', () => {
    tap(d, { contentDesc: 'Back to menu' });
    tap(d, { text: 'Plan a route' });
    for (const place of ['Ruggell', 'Planken', 'Triesen']) {
      search(place);
      tap(d, { text: place, resourceId: 'title' });
      tap(d, { text: 'Add point' });
    }
    expect(get(d, { resourceId: 'plan_route_points' }).node.text).toBe('3 points');
    tap(d, { text: 'Save' });
    typeInto(d, { resourceId: 'track_name_edit' }, ' 1');
    tap(d, { resourceId: 'btn_save_track' });
    const names = sh(d, `ls ${FILES}/tracks`).trim().split('\n');
    expect(names).toEqual(['Ruggell - Triesen 1.gpx']);
    const gpx = sh(d, `cat "${FILES}/tracks/${names[0]}"`);
    const pts = [...gpx.matchAll(/<trkpt lat="([^"]+)" lon="([^"]+)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(pts).toEqual([[47.23976, 9.5262837], [47.1858882, 9.5452201], [47.106997, 9.5274854]]);
  });
});
