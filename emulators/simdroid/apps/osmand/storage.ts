import type { Db } from '../../system/databases.js';
import type { FileSystem } from '../../system/fs.js';
import { EXTERNAL_STORAGE } from '../../system/fs.js';
import { escapeXml, parseWaypoints, type GpxPoint } from '../../../../core/util/gpx.js';

/**
 * Where OsmAnd keeps what AndroidWorld checks: favourites in a GPX file under the app's external
 * files folder (favorites/favorites.gpx), map markers in the `map_markers` table of
 * databases/map_markers_db (MapMarkersDbHelper's columns), and saved tracks as GPX files in tracks/.
 */
export const OSMAND_PKG = 'net.osmand';
export const OSMAND_FILES = `${EXTERNAL_STORAGE}/Android/data/net.osmand/files`;
export const FAVORITES_GPX = `${OSMAND_FILES}/favorites/favorites.gpx`;
export const TRACKS_DIR = `${OSMAND_FILES}/tracks`;
export const MARKERS_DB = '/data/data/net.osmand/databases/map_markers_db';

export const MARKERS_SCHEMA = `
CREATE TABLE map_markers (marker_id TEXT, marker_lat double, marker_lon double, marker_description TEXT, marker_active int,
  marker_added long, marker_visited long, group_name TEXT, group_key TEXT, marker_color int, marker_next_key TEXT,
  marker_disabled int, marker_selected int, marker_map_object_name TEXT, title TEXT);
CREATE TABLE map_markers_groups (group_name TEXT, group_marker_id TEXT, group_type int, group_disabled int, group_categories TEXT);
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
`;

const GPX_OPEN = `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<gpx version="1.1" creator="OsmAnd~ 4.6.13" xmlns="http://www.topografix.com/GPX/1/1" xmlns:osmand="https://osmand.net" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">`;

export type Point = GpxPoint;

export function readFavorites(fs: FileSystem): Point[] {
  return fs.stat(FAVORITES_GPX)?.type === 'file' ? parseWaypoints(fs.readText(FAVORITES_GPX)) : [];
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export function writeFavorites(fs: FileSystem, points: readonly Point[], now: number): void {
  const wpts = points.map((p) => `  <wpt lat="${p.lat}" lon="${p.lon}">
    <time>${iso(now)}</time>
    <name>${escapeXml(p.name)}</name>
    <extensions>
      <osmand:icon>special_star</osmand:icon>
      <osmand:background>circle</osmand:background>
      <osmand:color>#eecc22</osmand:color>
    </extensions>
  </wpt>
`).join('');
  fs.writeFile(FAVORITES_GPX, `${GPX_OPEN}
  <metadata>
    <name>favorites</name>
  </metadata>
${wpts}</gpx>
`, { parents: true });
}

export function addFavorite(fs: FileSystem, p: Point, now: number): void {
  writeFavorites(fs, [...readFavorites(fs), p], now);
}

export interface MarkerRow {
  marker_id: string;
  marker_lat: number;
  marker_lon: number;
  marker_description: string;
}

export function markers(db: Db): MarkerRow[] {
  return db.prepare('SELECT marker_id, marker_lat, marker_lon, marker_description FROM map_markers WHERE marker_active = 1 ORDER BY marker_added').all() as MarkerRow[];
}

/** A map marker as MapMarkersHelper stores one: its id is "lat,lon" rounded as the app does, the name in the description. */
export function addMarker(db: Db, p: Point, now: number): void {
  db.prepare(`INSERT INTO map_markers (marker_id, marker_lat, marker_lon, marker_description, marker_active, marker_added, marker_visited,
    group_name, group_key, marker_color, marker_next_key, marker_disabled, marker_selected, marker_map_object_name, title)
    VALUES (?, ?, ?, ?, 1, ?, 0, NULL, NULL, ?, NULL, 0, 0, NULL, NULL)`)
    .run(`${p.lat.toFixed(5)},${p.lon.toFixed(5)}`, p.lat, p.lon, p.name, now, markers(db).length % 7);
}

/** Saves a planned route as a track: one segment whose points are the route's points, in order. */
export function writeTrack(fs: FileSystem, name: string, points: readonly Point[], now: number): string {
  const path = `${TRACKS_DIR}/${name}.gpx`;
  const pts = points.map((p) => `      <trkpt lat="${p.lat}" lon="${p.lon}">
        <name>${escapeXml(p.name)}</name>
      </trkpt>
`).join('');
  fs.writeFile(path, `${GPX_OPEN}
  <metadata>
    <name>${escapeXml(name)}</name>
    <time>${iso(now)}</time>
  </metadata>
  <trk>
    <name>${escapeXml(name)}</name>
    <trkseg>
${pts}    </trkseg>
  </trk>
</gpx>
`, { parents: true });
  return path;
}

export function trackNames(fs: FileSystem): string[] {
  if (fs.stat(TRACKS_DIR)?.type !== 'dir') return [];
  return fs.list(TRACKS_DIR).filter((n) => n.endsWith('.gpx')).map((n) => n.slice(0, -4));
}

/** A file name OsmAnd accepts for a track: not empty, no path separators or reserved characters. */
export function trackNameProblem(name: string): string | null {
  if (!name.trim()) return 'Enter a name';
  if (/[\\/:*?"<>|]/.test(name)) return 'The name contains characters a file name cannot hold';
  return null;
}
