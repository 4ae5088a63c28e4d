import { z } from 'zod';
import { launch } from '../../oracle.js';
import { defineTask, type Subgoal, type TaskTemplate } from '../../task.js';
import { condition, holds, listed, met, verdictOf, type CheckCondition } from '../../verdict.js';
import { APP, osmandOpen, placeShown, searchAndOpen } from './common.js';
import {
  clearFavorites, clearMarkers, clearTracks, drawLocation, drawPlaceNames, favoriteMatches, favorites, locationCoords, markerCoords, near,
  trackPasses, tracks,
} from './osmand-data.js';

/**
 * OsmAnd's templates (AndroidWorld's OsmAndFavorite, OsmAndMarker, OsmAndTrack): a favourite, a map
 * marker, or a track through places in order, each found with the app's search. Checks read the
 * favourites GPX, the markers table and the tracks folder, with AndroidWorld's 0.001° tolerance.
 */
const Location = z.string().min(1).refine((l) => locationCoords(l) !== null, 'a place of the preloaded map or "lat, lon"');
const One = z.object({ location: Location });
type OneParams = z.infer<typeof One>;

const fmt = (c: { lat: number; lon: number }) => `${c.lat.toFixed(5)}, ${c.lon.toFixed(5)}`;

async function favoriteConditions(device: Parameters<TaskTemplate['check']>[0], p: OneParams): Promise<CheckCondition[]> {
  const all = await favorites(device);
  return [holds(`a favourite at ${p.location}`, all.some((w) => favoriteMatches(w, p.location)), { expected: p.location, found: listed(all.map((w) => `${w.name} (${fmt(w)})`)) })];
}

async function markerConditions(device: Parameters<TaskTemplate['check']>[0], p: OneParams): Promise<CheckCondition[]> {
  const all = await markerCoords(device);
  const want = locationCoords(p.location)!;
  return [holds(`a map marker at ${p.location}`, all.some((m) => near(m, want)), { expected: fmt(want), found: listed(all.map(fmt)) })];
}

export const Favorite: TaskTemplate<OneParams> = defineTask({
  id: 'OsmAndFavorite',
  apps: ['OsmAnd'],
  difficulty: 'easy',
  tags: ['search', 'data_entry'],
  kind: 'completion',
  template: 'Add a favorite location marker for {location} in the OsmAnd maps app.',
  params: One,
  maxSteps: 12,
  generate: (rng) => ({ location: drawLocation(rng) }),
  initialize: async (device) => clearFavorites(device),
  check: async (device, p) => verdictOf(await favoriteConditions(device, p)),
  subgoals: (p) => [osmandOpen, placeShown, { name: 'favourite saved', check: async ({ device }) => met(await favoriteConditions(device, p)) }],
  *oracle(p, ui) {
    yield* launch(ui, APP);
    yield* searchAndOpen(ui, p.location);
    yield ui.tap({ resourceId: 'context_menu_fav_button' });
    yield ui.tap({ resourceId: 'btn_save' });
    yield ui.complete();
  },
});

export const Marker: TaskTemplate<OneParams> = defineTask({
  id: 'OsmAndMarker',
  apps: ['OsmAnd'],
  difficulty: 'easy',
  tags: ['search'],
  kind: 'completion',
  template: 'Add a location marker for {location} in the OsmAnd maps app.',
  params: One,
  maxSteps: 12,
  generate: (rng) => ({ location: drawLocation(rng) }),
  initialize: async (device) => clearMarkers(device),
  check: async (device, p) => verdictOf(await markerConditions(device, p)),
  subgoals: (p) => [osmandOpen, placeShown, { name: 'marker added', check: async ({ device }) => met(await markerConditions(device, p)) }],
  *oracle(p, ui) {
    yield* launch(ui, APP);
    yield* searchAndOpen(ui, p.location);
    yield ui.tap({ resourceId: 'context_menu_marker_button' });
    yield ui.complete();
  },
});

const Waypoints = z.object({ waypoints: z.array(Location).min(2).max(4) });
type TrackParams = z.infer<typeof Waypoints>;

async function trackConditions(device: Parameters<TaskTemplate['check']>[0], p: TrackParams): Promise<CheckCondition[]> {
  const want = p.waypoints.map((w) => locationCoords(w)!);
  const saved = await tracks(device);
  const ok = saved.some((t) => trackPasses(t.points, want));
  return [condition('a saved track passes the waypoints in order', p.waypoints.join(' → '), listed(saved.map((t) => `${t.file} (${t.points.length} points)`)), ok)];
}

const planning: Subgoal = { name: 'Plan a route open', check: async ({ obs }) => obs.elements.some((e) => e.node.resourceId.endsWith(':id/plan_route_panel')) };

export const Track: TaskTemplate<TrackParams> = defineTask({
  id: 'OsmAndTrack',
  apps: ['OsmAnd'],
  difficulty: 'hard',
  tags: ['search', 'complex_ui', 'memorization'],
  kind: 'completion',
  template: 'Save a track with waypoints {waypoints} in the OsmAnd maps app in the same order as listed.',
  params: Waypoints,
  maxSteps: 40,
  generate: (rng) => ({ waypoints: drawPlaceNames(rng, rng.int(2, 4)) }),
  instruction: (p) => `Save a track with waypoints ${p.waypoints.join(', ')} in the OsmAnd maps app in the same order as listed.`,
  initialize: async (device) => clearTracks(device),
  check: async (device, p) => verdictOf(await trackConditions(device, p)),
  subgoals: (p) => [osmandOpen, planning, { name: 'track saved', check: async ({ device }) => met(await trackConditions(device, p)) }],
  *oracle(p, ui) {
    yield* launch(ui, APP);
    yield ui.tap({ contentDesc: 'Back to menu' });
    yield ui.tap({ resourceId: 'drawer_plan_route' });
    for (const w of p.waypoints) {
      yield* searchAndOpen(ui, w);
      yield ui.tap({ resourceId: 'add_point_button' });
    }
    yield ui.tap({ resourceId: 'plan_route_save' });
    yield ui.tap({ resourceId: 'btn_save_track' });
    yield ui.complete();
  },
});

export const OSMAND_TASKS: readonly TaskTemplate[] = [Favorite, Marker, Track];
