/**
 * The two things read from GPX 1.1 files here (OsmAnd's favourites and tracks): waypoints and track
 * points, in document order. Namespace prefixes are accepted whatever they are, since Python's
 * ElementTree (which AndroidWorld rewrites favorites.gpx with) writes `ns0:wpt`.
 */
export interface GpxPoint {
  name: string;
  lat: number;
  lon: number;
}

export function unescapeXml(s: string): string {
  return s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, '&');
}

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function points(xml: string, tag: 'wpt' | 'trkpt'): GpxPoint[] {
  const out: GpxPoint[] = [];
  const re = new RegExp(`<(?:[\\w.-]+:)?${tag}\\b([^>]*?)(?:/>|>([\\s\\S]*?)</(?:[\\w.-]+:)?${tag}>)`, 'g');
  for (const m of xml.matchAll(re)) {
    const attr = (k: string) => Number(new RegExp(`\\b${k}="([^"]*)"`).exec(m[1] ?? '')?.[1]);
    const name = /<(?:[\w.-]+:)?name>([\s\S]*?)<\/(?:[\w.-]+:)?name>/.exec(m[2] ?? '')?.[1];
    const lat = attr('lat');
    const lon = attr('lon');
    if (Number.isFinite(lat) && Number.isFinite(lon)) out.push({ name: unescapeXml(name ?? ''), lat, lon });
  }
  return out;
}

export function parseWaypoints(xml: string): GpxPoint[] {
  return points(xml, 'wpt');
}

export function parseTrackPoints(xml: string): GpxPoint[] {
  return points(xml, 'trkpt');
}
