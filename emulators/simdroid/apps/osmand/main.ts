import type { ActivityContext, ActivityDef, DialogView } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { appBar, button, caption, column, dialog, fill, iconButton, list, listItem, row, screen, searchBar, stack, tabs, text, textField } from '../../view/widgets.js';
import { contextMenu, DEFAULT_CAMERA, mapControls, mapView, pan, type MapCamera } from './map-view.js';
import { COUNTRY, formatCoordinates, parseCoordinates, searchPlaces } from './places.js';
import { addFavorite, addMarker, markers, readFavorites, trackNameProblem, trackNames, writeTrack, type Point } from './storage.js';

/**
 * OsmAnd's MapActivity: the map with its search, a point's context menu (add it to favourites or as
 * a map marker), Plan a route (points added at the map's centre, saved as a track) and My Places.
 * Everything is one activity's state, as OsmAnd's fragments over the map are.
 */
export const MAP_ACTIVITY = 'net.osmand.plus.activities.MapActivity';

type Shown = Point & { subtitle: string };
type Dialog = { kind: 'favorite' } | { kind: 'save_track'; error: string | null };
type PlacesTab = 'favorites' | 'tracks' | 'markers';

export interface MapState {
  camera: MapCamera;
  /** The point whose context menu is open. */
  selected: Shown | null;
  searching: boolean;
  drawer: boolean;
  /** Plan a route: its points so far, and the name of the place the map was centred on (a search result). */
  plan: { points: Point[]; centerName: string | null } | null;
  places: PlacesTab | null;
  dialog: Dialog | null;
}

type Ctx = ActivityContext<MapState>;

function centerOn(ctx: Ctx, p: Point): void {
  ctx.s.camera = { lat: p.lat, lon: p.lon, span: Math.min(ctx.s.camera.span, 0.08) };
}

function pick(ctx: Ctx, p: Shown): void {
  ctx.s.searching = false;
  ctx.nav.hideKeyboard();
  centerOn(ctx, p);
  if (ctx.s.plan) ctx.s.plan.centerName = p.name;
  else ctx.s.selected = p;
}

/** Search opens empty, its field focused. */
function openSearch(ctx: Ctx): void {
  ctx.s.searching = true;
  ctx.s.selected = null;
  delete ctx.fields.search;
  ctx.nav.focus('search');
}

function searchScreen(ctx: Ctx): ViewSpec {
  const q = ctx.fields.search ?? '';
  const coords = parseCoordinates(q);
  const results: Shown[] = coords
    ? [{ name: formatCoordinates(coords.lat, coords.lon), lat: coords.lat, lon: coords.lon, subtitle: 'Location' }]
    : searchPlaces(q).map((p) => ({ name: p.name, lat: p.lat, lon: p.lon, subtitle: `${p.kind} · ${COUNTRY}` }));
  const body = q.trim()
    ? list('search', results.map((r) => listItem({ title: r.name, subtitle: r.subtitle, leading: 'location', onClick: () => pick(ctx, r) })), { id: 'search_results', empty: 'Nothing found' })
    : column([caption('Type a place name or coordinates (latitude, longitude)', { pad: [16, 16, 16, 16], id: 'search_hint' })]);
  const close = () => { ctx.s.searching = false; ctx.nav.hideKeyboard(); };
  return screen({ appBar: searchBar({ field: 'search', hint: 'Search', id: 'searchEditText', onBack: close }), body: [body] });
}

function planPanel(ctx: Ctx): ViewSpec {
  const plan = ctx.s.plan!;
  const center = ctx.s.camera;
  const add = () => plan.points.push({ name: plan.centerName ?? formatCoordinates(center.lat, center.lon), lat: center.lat, lon: center.lon });
  return column([
    row([text('Plan a route', { size: 20, bold: true, id: 'plan_route_title' }), caption(`${plan.points.length} ${plan.points.length === 1 ? 'point' : 'points'}`, { id: 'plan_route_points', w: 'wrap' })]),
    caption(plan.points.map((p, i) => `${i + 1}. ${p.name}`).join('\n') || 'Move the map (or search) to a place, then Add point', { id: 'plan_route_list', lines: 5 }),
    row([
      button('Cancel', () => { ctx.s.plan = null; }, { variant: 'text', id: 'plan_route_cancel', w: 'wrap' }),
      iconButton('undo', 'Undo', () => { plan.points.pop(); }, { id: 'plan_route_undo', enabled: plan.points.length > 0 }),
      fill(),
      button('Add point', add, { variant: 'tonal', id: 'add_point_button', w: 'wrap' }),
      button('Save', () => { ctx.s.dialog = { kind: 'save_track', error: null }; ctx.fields.track_name = defaultTrackName(plan.points); }, { id: 'plan_route_save', enabled: plan.points.length >= 2, w: 'wrap' }),
    ], { pad: [4, 8, 12, 8], gap: 4 }),
  ], { id: 'plan_route_panel', style: { bg: 'surface', elevation: true } });
}

function defaultTrackName(points: readonly Point[]): string {
  const safe = (s: string) => s.replace(/[\\/:*?"<>|,]/g, '').trim();
  return points.length ? `${safe(points[0]!.name)} - ${safe(points[points.length - 1]!.name)}` : 'Route';
}

function placesScreen(ctx: Ctx, tab: PlacesTab): ViewSpec {
  const fs = ctx.sys.fs;
  const rows = tab === 'favorites'
    ? readFavorites(fs).map((p) => listItem({ title: p.name, subtitle: formatCoordinates(p.lat, p.lon), leading: 'star', id: 'favorite_item', onClick: () => { ctx.s.places = null; centerOn(ctx, p); ctx.s.selected = { ...p, subtitle: 'Favorite' }; } }))
    : tab === 'tracks'
      ? trackNames(fs).map((n) => listItem({ title: n, leading: 'track', id: 'track_item' }))
      : markers(ctx.app.db).map((m) => listItem({ title: m.marker_description, subtitle: formatCoordinates(m.marker_lat, m.marker_lon), leading: 'flag', id: 'marker_item' }));
  const go = (t: PlacesTab) => () => { ctx.s.places = t; };
  return screen({
    appBar: appBar({ title: tab === 'markers' ? 'Map markers' : 'My Places', onBack: () => { ctx.s.places = null; } }),
    body: [
      tabs([{ label: 'Favorites', selected: tab === 'favorites', onClick: go('favorites') }, { label: 'Tracks', selected: tab === 'tracks', onClick: go('tracks') }, { label: 'Markers', selected: tab === 'markers', onClick: go('markers') }]),
      list(`places_${tab}`, rows, { empty: tab === 'favorites' ? 'No favorites yet' : tab === 'tracks' ? 'No tracks yet' : 'No map markers' }),
    ],
  });
}

function drawer(ctx: Ctx): ViewSpec {
  const item = (title: string, icon: string, id: string, onClick: () => void) => listItem({ title, leading: icon, id, onClick: () => { ctx.s.drawer = false; onClick(); } });
  return column([
    text('OsmAnd', { size: 22, bold: true, pad: [24, 24, 12, 24] }),
    item('My Places', 'star', 'drawer_my_places', () => { ctx.s.places = 'favorites'; }),
    item('Plan a route', 'track', 'drawer_plan_route', () => {
      // The map stays where it was: centred on the place last opened, if any.
      ctx.s.plan = { points: [], centerName: ctx.s.selected?.name ?? null };
      ctx.s.selected = null;
    }),
    item('Map markers', 'flag', 'drawer_map_markers', () => { ctx.s.places = 'markers'; }),
    item('Search', 'search', 'drawer_search', () => openSearch(ctx)),
  ], { id: 'drawer_menu', h: 'fill', style: { bg: 'surface' } });
}

function dialogView(ctx: Ctx): DialogView | undefined {
  const d = ctx.s.dialog;
  if (!d) return undefined;
  const close = () => { ctx.s.dialog = null; ctx.nav.hideKeyboard(); };
  const now = ctx.sys.clock.now();
  if (d.kind === 'favorite') {
    const sel = ctx.s.selected;
    const save = () => {
      if (!sel) return close();
      const name = (ctx.fields.fav_name ?? '').trim() || sel.name;
      addFavorite(ctx.sys.fs, { name, lat: sel.lat, lon: sel.lon }, now);
      close();
      ctx.nav.toast(`Added to favorites: ${name}`);
    };
    return {
      spec: dialog({ title: 'Add favorite', body: [textField({ field: 'fav_name', hint: 'Name', id: 'name_edit' }), caption('Group: Favorites', { pad: [0, 24, 8, 24] })], buttons: [{ label: 'Cancel', onClick: close }, { label: 'Save', onClick: save, id: 'btn_save' }] }),
      onCancel: close,
    };
  }
  const save = () => {
    const name = (ctx.fields.track_name ?? '').trim();
    const problem = trackNameProblem(name);
    if (problem) { d.error = problem; return; }
    writeTrack(ctx.sys.fs, name, ctx.s.plan?.points ?? [], now);
    ctx.s.plan = null;
    close();
    ctx.nav.toast(`Track saved: ${name}`);
  };
  const body: ViewSpec[] = [textField({ field: 'track_name', hint: 'File name', id: 'track_name_edit' })];
  if (d.error) body.push(caption(d.error, { fg: 'error', pad: [0, 24, 4, 24] }));
  return { spec: dialog({ title: 'Save as new track', body, buttons: [{ label: 'Cancel', onClick: close }, { label: 'Save', onClick: save, id: 'btn_save_track' }] }), onCancel: close };
}

export const mapActivity: ActivityDef<MapState> = {
  name: MAP_ACTIVITY,
  create: () => ({ camera: DEFAULT_CAMERA, selected: null, searching: false, drawer: false, plan: null, places: null, dialog: null }),
  render: (ctx) => {
    const dlg = dialogView(ctx);
    const withDialog = (body: ViewSpec) => ({ body, ...(dlg ? { dialog: dlg } : {}) });
    if (ctx.s.searching) return withDialog(searchScreen(ctx));
    if (ctx.s.places) return withDialog(placesScreen(ctx, ctx.s.places));
    const sel = ctx.s.selected;
    const cam = ctx.s.camera;
    const pins = [...(sel ? [sel] : []), ...(ctx.s.plan?.points ?? [])];
    const map = mapView(cam, {
      crosshair: ctx.s.plan !== null, pins,
      onPlace: (p) => pick(ctx, { ...p, subtitle: `${p.kind} · ${COUNTRY}` }),
      onPan: (dir) => { ctx.s.camera = pan(ctx.s.camera, dir); if (ctx.s.plan) ctx.s.plan.centerName = null; },
    });
    const controls = mapControls({
      onMenu: () => { ctx.s.drawer = true; },
      onSearch: () => openSearch(ctx),
      onZoomIn: () => { ctx.s.camera = { ...cam, span: Math.max(0.01, cam.span / 2) }; },
      onZoomOut: () => { ctx.s.camera = { ...cam, span: Math.min(2, cam.span * 2) }; },
    });
    let bottom: ViewSpec | undefined;
    if (ctx.s.plan) bottom = planPanel(ctx);
    else if (sel) {
      bottom = contextMenu(sel.name, sel.subtitle, {
        onClose: () => { ctx.s.selected = null; },
        onFavorite: () => { ctx.fields.fav_name = sel.name; ctx.s.dialog = { kind: 'favorite' }; },
        onMarker: () => { addMarker(ctx.app.db, sel, ctx.sys.clock.now()); ctx.nav.toast(`Marker added: ${sel.name}`); ctx.s.selected = null; },
        onShare: () => ctx.nav.toast('Sharing is not available offline'),
      });
    }
    let body = column([controls, map, ...(bottom ? [bottom] : [])], { h: 'fill', id: 'map_screen' });
    if (ctx.s.drawer) body = stack([body, row([drawer(ctx), column([], { weight: 1, h: 'fill', clickable: true, onClick: () => { ctx.s.drawer = false; }, style: { bg: 'scrim' } })], { h: 'fill' })]);
    return withDialog(body);
  },
  onBack: (ctx) => {
    if (ctx.s.drawer) { ctx.s.drawer = false; return true; }
    if (ctx.s.searching) { ctx.s.searching = false; return true; }
    if (ctx.s.places) { ctx.s.places = null; return true; }
    if (ctx.s.selected) { ctx.s.selected = null; return true; }
    if (ctx.s.plan) { ctx.s.plan = null; return true; }
    return false;
  },
};
