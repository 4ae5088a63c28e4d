import type { AppDef } from '../../runtime/app.js';
import { MAP_ACTIVITY, mapActivity } from './main.js';
import { MARKERS_DB, MARKERS_SCHEMA, OSMAND_FILES, OSMAND_PKG, TRACKS_DIR } from './storage.js';

/**
 * OsmAnd (net.osmand), offline maps with Liechtenstein's map loaded (as AndroidWorld's setup leaves
 * it): search, favourites (a GPX file), map markers (SQLite) and Plan a route saved as tracks.
 */
export const osmandApp: AppDef = {
  package: OSMAND_PKG,
  label: 'OsmAnd',
  icon: { glyph: 'map', color: '#F57C00' },
  accent: '#FF8800',
  launchActivity: MAP_ACTIVITY,
  activities: [mapActivity],
  databases: [{ path: MARKERS_DB, schema: MARKERS_SCHEMA }],
  boot: ({ sys }) => {
    // The folders the first run leaves (the downloaded map itself is not simulated: places.ts is its gazetteer).
    sys.fs.mkdirp(`${OSMAND_FILES}/favorites`);
    sys.fs.mkdirp(TRACKS_DIR);
  },
};
