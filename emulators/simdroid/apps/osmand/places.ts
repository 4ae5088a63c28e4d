import { COUNTRY, PLACES, type Place } from '../../../../core/seed-data/liechtenstein.js';

export { COUNTRY, PLACES, type Place } from '../../../../core/seed-data/liechtenstein.js';

/** OsmAnd's search over the preloaded map's places (core/seed-data/liechtenstein.ts is its gazetteer). */

/** Lower case without accents, so "schonberg" finds Schönberg. */
function fold(s: string): string {
  return s.normalize('NFD').replace(/\p{Diacritic}/gu, '').toLowerCase().trim();
}

/** A "lat, lon" pair as typed in the search box, or null. */
export function parseCoordinates(query: string): { lat: number; lon: number } | null {
  const m = /^\s*(-?\d{1,2}(?:\.\d+)?)\s*[,;\s]\s*(-?\d{1,3}(?:\.\d+)?)\s*$/.exec(query);
  if (!m) return null;
  const lat = Number(m[1]);
  const lon = Number(m[2]);
  return Math.abs(lat) <= 90 && Math.abs(lon) <= 180 ? { lat, lon } : null;
}

/**
 * Places matching a query: a name's start, word for word ("Balzers, Liechtenstein" finds Balzers:
 * the part after a comma may name the country), best matches first.
 */
export function searchPlaces(query: string): Place[] {
  const [head = '', ...rest] = query.split(',');
  const q = fold(head);
  if (!q) return [];
  const region = fold(rest.join(','));
  if (region && !fold(COUNTRY).startsWith(region)) return [];
  return PLACES.filter((p) => fold(p.name).startsWith(q) || fold(p.name).split(/\s+/).some((w) => w.startsWith(q)))
    .sort((a, b) => Number(fold(b.name) === q) - Number(fold(a.name) === q) || a.name.localeCompare(b.name));
}

/** "47.06888, 9.50616", as OsmAnd writes a point's coordinates. */
export function formatCoordinates(lat: number, lon: number): string {
  return `${lat.toFixed(5)}, ${lon.toFixed(5)}`;
}
