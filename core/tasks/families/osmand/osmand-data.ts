import type { Device } from '../../../device/device.js';
import { shellOk } from '../../../device/device.js';
import { shellCommand } from '../../../device/shell-quote.js';
import { AW_LOCATIONS, awLocationName } from '../../../seed-data/liechtenstein.js';
import { parseTrackPoints, parseWaypoints, type GpxPoint } from '../../../util/gpx.js';
import type { Rng } from '../../../util/rng.js';
import { listDir, readText, SDCARD, writeText } from '../../validators/files.js';
import { sqlExec, sqlObjects, sqlNumber } from '../../validators/sqlite.js';

/**
 * OsmAnd's state where AndroidWorld reads it (osmand.py): favourites in favorites.gpx under the app's
 * external files, map markers in map_markers_db, saved tracks as GPX files in tracks/. A location is
 * named as AndroidWorld's goals name it: "Balzers, Liechtenstein", or "47.0688832, 9.5061564".
 */
export const OSMAND_PKG = 'net.osmand';
export const OSMAND_FILES = `${SDCARD}/Android/data/net.osmand/files`;
export const FAVORITES_GPX = `${OSMAND_FILES}/favorites/favorites.gpx`;
export const TRACKS_DIR = `${OSMAND_FILES}/tracks`;
export const MARKERS_DB_PATH = '/data/data/net.osmand/databases/map_markers_db';
/** AndroidWorld's tolerance: 0.001° on latitude and on longitude (Chebyshev), 50–100 m. */
export const DELTA_DEG = 0.001;

export interface Coords { lat: number; lon: number }

/** The coordinates a location names: two numbers in it, or a place AndroidWorld's map holds. */
export function locationCoords(location: string): Coords | null {
  const nums = location.match(/-?\d*\.?\d+/g);
  if (nums?.length === 2) return { lat: Number(nums[0]), lon: Number(nums[1]) };
  const p = AW_LOCATIONS.find((l) => awLocationName(l) === location);
  return p ? { lat: p.lat, lon: p.lon } : null;
}

export function near(a: Coords, b: Coords): boolean {
  return Math.abs(a.lat - b.lat) < DELTA_DEG && Math.abs(a.lon - b.lon) < DELTA_DEG;
}

/** A location as a goal names it: the place's "Name, Liechtenstein" or, half the time, its coordinates. */
export function drawLocation(rng: Rng): string {
  const p = rng.pick(AW_LOCATIONS);
  return rng.chance(0.5) ? awLocationName(p) : `${p.lat}, ${p.lon}`;
}

export function drawPlaceNames(rng: Rng, n: number): string[] {
  return rng.sample(AW_LOCATIONS, n).map(awLocationName);
}

export async function favorites(device: Device): Promise<GpxPoint[]> {
  const xml = await readText(device, FAVORITES_GPX);
  return xml === null ? [] : parseWaypoints(xml);
}

/** A favourite matching the location: its name contains the location's text, or it lies within the tolerance. */
export function favoriteMatches(w: GpxPoint, location: string): boolean {
  if (w.name.includes(location)) return true;
  const c = locationCoords(location);
  return c !== null && near(w, c);
}

/** Favourites emptied (the file kept, as AndroidWorld's _clear_favorites leaves it). */
export async function clearFavorites(device: Device): Promise<void> {
  await writeText(device, FAVORITES_GPX, `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<gpx version="1.1" creator="OsmAnd~ 4.6.13" xmlns="http://www.topografix.com/GPX/1/1" xmlns:osmand="https://osmand.net">
  <metadata>
    <name>favorites</name>
  </metadata>
</gpx>
`);
}

export async function markerCoords(device: Device): Promise<Coords[]> {
  const rows = await sqlObjects(device, MARKERS_DB_PATH, ['marker_lat', 'marker_lon'] as const, 'map_markers');
  return rows.map((r) => ({ lat: sqlNumber(r, 'marker_lat'), lon: sqlNumber(r, 'marker_lon') }));
}

export async function clearMarkers(device: Device): Promise<void> {
  await sqlExec(device, MARKERS_DB_PATH, 'DELETE FROM map_markers;');
}

/** Each saved track's points, in order, by file name. */
export async function tracks(device: Device): Promise<Array<{ file: string; points: GpxPoint[] }>> {
  const out: Array<{ file: string; points: GpxPoint[] }> = [];
  for (const f of (await listDir(device, TRACKS_DIR)) ?? []) {
    const xml = await readText(device, `${TRACKS_DIR}/${f}`);
    if (xml !== null) out.push({ file: f, points: parseTrackPoints(xml) });
  }
  return out;
}

export async function clearTracks(device: Device): Promise<void> {
  await shellOk(device, `${shellCommand('mkdir', '-p', TRACKS_DIR)} && rm -rf ${shellCommand(TRACKS_DIR)}/*`);
}

/** The waypoints appear in the track in order, any points between them (AndroidWorld's _track_matches). */
export function trackPasses(points: readonly Coords[], waypoints: readonly Coords[]): boolean {
  let i = 0;
  for (const p of points) {
    if (i < waypoints.length && near(p, waypoints[i]!)) i++;
  }
  return i === waypoints.length;
}
