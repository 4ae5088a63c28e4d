import { describe, expect, it } from 'vitest';
import { cellOf, DEFAULT_CAMERA, pan } from '../../../emulators/simdroid/apps/osmand/map-view.js';
import { parseCoordinates, searchPlaces } from '../../../emulators/simdroid/apps/osmand/places.js';

/** OsmAnd's gazetteer search and the map grid's geometry. */
describe('OsmAnd search', () => {
  it('finds a place by the start of its name, with or without the country, exact name first, accents aside', () => {
    expect(searchPlaces('Schaan').map((p) => p.name)).toEqual(['Schaan', 'Schaanwald']);
    expect(searchPlaces('planken, Liechtenstein').map((p) => p.name)).toEqual(['Planken']);
    expect(searchPlaces('schonb').map((p) => p.name)).toEqual(['Schönberg']);
    expect(searchPlaces('Balzers, Austria')).toEqual([]);
    expect(searchPlaces('  ')).toEqual([]);
  });

  it('reads "lat, lon" as coordinates and nothing else', () => {
    expect(parseCoordinates('47.0688832, 9.5061564')).toEqual({ lat: 47.0688832, lon: 9.5061564 });
    expect(parseCoordinates('-33.9,18.4')).toEqual({ lat: -33.9, lon: 18.4 });
    expect(parseCoordinates('Balzers')).toBeNull();
    expect(parseCoordinates('95, 10')).toBeNull();
  });
});

describe('the map grid', () => {
  it('puts north at the top and east at the right, and drops what is off the map', () => {
    const cam = DEFAULT_CAMERA;
    const north = cellOf(cam, cam.lat + cam.span / 3, cam.lon)!;
    const south = cellOf(cam, cam.lat - cam.span / 3, cam.lon)!;
    expect(north.r).toBeLessThan(south.r);
    expect(cellOf(cam, cam.lat, cam.lon + 0.05)!.c).toBeGreaterThan(cellOf(cam, cam.lat, cam.lon - 0.05)!.c);
    expect(cellOf(cam, cam.lat + cam.span, cam.lon)).toBeNull();
  });

  it('a fling up shows what lies south (the map follows the finger)', () => {
    expect(pan(DEFAULT_CAMERA, 'up').lat).toBeLessThan(DEFAULT_CAMERA.lat);
    expect(pan(DEFAULT_CAMERA, 'left').lon).toBeGreaterThan(DEFAULT_CAMERA.lon);
  });
});
