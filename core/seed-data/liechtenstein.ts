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

/** The twelve places AndroidWorld's OsmAnd templates draw from, as "Name, Liechtenstein" (osmand.py's keys). */
export const AW_LOCATIONS: readonly Place[] = PLACES.slice(0, 12);

export function awLocationName(p: Place): string {
  return `${p.name}, ${COUNTRY}`;
}
