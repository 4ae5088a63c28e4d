/**
 * The places OsmAnd's search finds on this device: the map AndroidWorld preloads is Liechtenstein's,
 * and its OsmAnd templates name twelve of its settlements with their coordinates
 * (osmand.py's _PRELOADED_MAP_LOCATIONS, copied here as facts). A few more villages, with rounded
 * coordinates, make the search and the map less of a lookup table.
 */
export interface Place {
  name: string;
  kind: 'Village' | 'Town' | 'Hamlet' | 'City';
  lat: number;
  lon: number;
}

export const COUNTRY = 'Liechtenstein';

export const PLACES: readonly Place[] = [
  { name: 'Balzers', kind: 'Village', lat: 47.0688832, lon: 9.5061564 },
  { name: 'Bendern', kind: 'Village', lat: 47.2122151, lon: 9.5062101 },
  { name: 'Malbun', kind: 'Village', lat: 47.1026191, lon: 9.6083057 },
  { name: 'Nendeln', kind: 'Village', lat: 47.1973857, lon: 9.5430636 },
  { name: 'Oberplanken', kind: 'Hamlet', lat: 47.1784977, lon: 9.5450163 },
  { name: 'Planken', kind: 'Village', lat: 47.1858882, lon: 9.5452201 },
  { name: 'Rotenboden', kind: 'Hamlet', lat: 47.1275785, lon: 9.5387131 },
  { name: 'Ruggell', kind: 'Village', lat: 47.23976, lon: 9.5262837 },
  { name: 'Schaan', kind: 'Town', lat: 47.1663432, lon: 9.5103085 },
  { name: 'Schaanwald', kind: 'Village', lat: 47.2165476, lon: 9.5699984 },
  { name: 'Schönberg', kind: 'Hamlet', lat: 47.1303814, lon: 9.5930117 },
  { name: 'Triesen', kind: 'Village', lat: 47.106997, lon: 9.5274854 },
  // Approximate (rounded) positions; no template names them.
  { name: 'Vaduz', kind: 'City', lat: 47.1415, lon: 9.5215 },
  { name: 'Eschen', kind: 'Village', lat: 47.2107, lon: 9.5225 },
  { name: 'Mauren', kind: 'Village', lat: 47.218, lon: 9.544 },
  { name: 'Triesenberg', kind: 'Village', lat: 47.118, lon: 9.543 },
  { name: 'Gamprin', kind: 'Village', lat: 47.22, lon: 9.509 },
  { name: 'Schellenberg', kind: 'Village', lat: 47.231, lon: 9.547 },
];

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
