import type { Handler, ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { button, caption, column, fill, iconButton, row, stack, text } from '../../view/widgets.js';
import { PLACES, type Place } from './places.js';

/**
 * A simple rendered map: the screen is a grid of cells over the map's extent, and each settlement
 * is a label in the cell its coordinates fall in (no roads, terrain or tiles). A tap on a label
 * opens the place, a fling pans, the zoom buttons halve or double the extent.
 */
export interface MapCamera {
  lat: number;
  lon: number;
  /** Degrees of latitude from the top of the map to its bottom. */
  span: number;
}

const ROWS = 10;
const COLS = 5;
/** A degree of longitude is ~0.68 of one of latitude at 47°N; the map is about half as wide as tall. */
const LON_PER_LAT = 0.5 / 0.68;

export const DEFAULT_CAMERA: MapCamera = { lat: 47.16, lon: 9.55, span: 0.22 };

export function cellOf(cam: MapCamera, lat: number, lon: number): { r: number; c: number } | null {
  const spanLon = cam.span * LON_PER_LAT;
  const r = Math.floor(((cam.lat + cam.span / 2 - lat) / cam.span) * ROWS);
  const c = Math.floor(((lon - (cam.lon - spanLon / 2)) / spanLon) * COLS);
  return r >= 0 && r < ROWS && c >= 0 && c < COLS ? { r, c } : null;
}

/** Moves the camera a third of the screen the way a fling drags the map. */
export function pan(cam: MapCamera, dir: 'left' | 'right' | 'up' | 'down'): MapCamera {
  const step = cam.span / 3;
  switch (dir) {
    case 'up': return { ...cam, lat: cam.lat - step };
    case 'down': return { ...cam, lat: cam.lat + step };
    case 'left': return { ...cam, lon: cam.lon + step * LON_PER_LAT };
    case 'right': return { ...cam, lon: cam.lon - step * LON_PER_LAT };
  }
}

export function mapView(cam: MapCamera, o: { onPlace: (p: Place) => void; onPan: (d: 'left' | 'right' | 'up' | 'down') => void; crosshair: boolean; pins: ReadonlyArray<{ lat: number; lon: number }> }): ViewSpec {
  const cells: Place[][][] = Array.from({ length: ROWS }, () => Array.from({ length: COLS }, () => []));
  for (const p of PLACES) {
    const at = cellOf(cam, p.lat, p.lon);
    if (at) cells[at.r]![at.c]!.push(p);
  }
  const pinned = new Set(o.pins.map((p) => cellOf(cam, p.lat, p.lon)).filter((x) => x !== null).map((x) => `${x.r},${x.c}`));
  const grid = column(cells.map((cols, r) => row(cols.map((ps, c) => {
    const label = ps.map((p) => text(p.name, { size: 13, bold: p.kind === 'City' || p.kind === 'Town', align: 'center', pad: [1, 2, 1, 2], onClick: () => o.onPlace(p) }));
    const pin: ViewSpec[] = pinned.has(`${r},${c}`) ? [{ cls: W.ImageView, w: 20, h: 20, style: { icon: 'location', iconColor: '#D32F2F' } }] : [];
    return column([fill(), ...pin, ...label, fill()], { weight: 1, h: 'fill' });
  }), { weight: 1, h: 'fill' })), { h: 'fill', style: { bg: '#EEEADF' } });
  const layers: ViewSpec[] = [grid];
  if (o.crosshair) layers.push({ cls: W.ImageView, desc: 'Map center', style: { icon: 'add', iconColor: '#212121' }, place: { h: 'center', v: 'center', w: 32, hgt: 32 } });
  return stack(layers, { cls: W.View, id: 'map_view', desc: 'Map', h: 'fill', onSwipe: o.onPan });
}

export function mapControls(h: { onMenu: Handler; onSearch: Handler; onZoomIn: Handler; onZoomOut: Handler }): ViewSpec {
  return row([
    iconButton('menu', 'Back to menu', h.onMenu, { id: 'map_menu_button' }),
    iconButton('search', 'Search', h.onSearch, { id: 'map_search_button' }),
    fill(),
    iconButton('add', 'Zoom in', h.onZoomIn, { id: 'map_zoom_in_button' }),
    iconButton('expand_more', 'Zoom out', h.onZoomOut, { id: 'map_zoom_out_button' }),
  ], { h: 56, pad: [4, 8, 4, 8], style: { bg: 'surface' } });
}

/** The context menu of a point: its name and what it is, then Favorite, Marker, Share. */
export function contextMenu(title: string, subtitle: string, h: { onClose: Handler; onFavorite: Handler; onMarker: Handler; onShare: Handler }): ViewSpec {
  return column([
    row([
      column([text(title, { size: 20, bold: true, id: 'context_menu_line1', lines: 2 }), caption(subtitle, { id: 'context_menu_line2' })], { weight: 1 }),
      iconButton('close', 'Close', h.onClose, { id: 'context_menu_close_btn_view' }),
    ], { pad: [8, 0, 0, 0] }),
    row([
      button('Favorite', h.onFavorite, { variant: 'tonal', icon: 'star_outline', id: 'context_menu_fav_button', w: 'wrap' }),
      button('Marker', h.onMarker, { variant: 'tonal', icon: 'flag', id: 'context_menu_marker_button', w: 'wrap' }),
      button('Share', h.onShare, { variant: 'text', icon: 'share', id: 'context_menu_share_button', w: 'wrap' }),
    ], { pad: [8, 8, 16, 8], gap: 4 }),
  ], { id: 'context_menu_main', style: { bg: 'surface', elevation: true } });
}
