import { z } from 'zod';
import type { Device } from '../../../device/device.js';
import type { Rng } from '../../../util/rng.js';
import { DAY_MS, DEVICE_NOW, dateParts, msOf, type DateParts } from '../../../seed-data/dates.js';
import type { Subgoal } from '../../task.js';
import { inActivity, onScreen } from '../../validators/ui.js';
import { addTracks, clearTracks, OPENTRACKS_PKG } from './tracks-db.js';

/**
 * What the OpenTracks questions share: the seeded tracks (the ones asked about and twenty others
 * over the fortnight before today, as AndroidWorld's activity_app_utils seeds them), drawing them,
 * setting them up, and the week and day arithmetic the answers use.
 */
export const SeedTrack = z.object({
  name: z.string().min(1),
  description: z.string(),
  category: z.string().min(1),
  /** Epoch ms (the device's time zone is UTC). */
  start: z.int(),
  /** Whole minutes. */
  duration: z.int().min(1),
  /** Metres, a whole number that shows exactly as miles with two decimals (see roundTripMeters). */
  distance: z.int().min(0),
  elevationGain: z.int().min(0),
  elevationLoss: z.int().min(0),
});
export type SeedTrack = z.infer<typeof SeedTrack>;

/** Activity types with a few track names each (our own vocabulary; "snow boarding" as AndroidWorld spells its question's type). */
export const TRACK_NAMES: Readonly<Record<string, readonly string[]>> = {
  running: ['Morning Run', 'Evening Run', 'Tempo Run', 'Park Loop', 'Interval Session'],
  cycling: ['Bike Commute', 'Coast Ride', 'Country Lanes', 'Sunday Spin', 'Hill Repeats'],
  swimming: ['Pool Laps', 'Lake Swim', 'Open Water', 'Swim Drills'],
  hiking: ['Ridge Hike', 'Forest Trail', 'Summit Push', 'Valley Walk'],
  'mountain biking': ['Singletrack', 'Downhill Laps', 'Enduro Loop', 'Rocky Descent'],
  kayaking: ['River Paddle', 'Harbour Kayak', 'Sea Kayak', 'Lake Crossing'],
  skiing: ['Piste Day', 'Cross-country Loop', 'Powder Morning', 'Slalom Practice'],
  'snow boarding': ['Park Session', 'Board Day', 'Halfpipe Runs', 'Fresh Tracks'],
  'skate boarding': ['Skatepark', 'Street Session', 'Ramp Practice', 'Boardwalk Cruise'],
  climbing: ['Crag Day', 'Bouldering', 'Multi-pitch', 'Gym Climb'],
  'inline skating': ['Promenade Skate', 'Rink Laps', 'Skate Commute', 'Speed Skate'],
  sailing: ['Dinghy Race', 'Harbour Sail', 'Evening Regatta', 'Coastal Sail'],
  walking: ['Dog Walk', 'Lunch Walk', 'City Stroll', 'Canal Path'],
  rowing: ['Scull Practice', 'Crew Outing', 'River Row', 'Ergo Piece'],
};
export const CATEGORIES = Object.keys(TRACK_NAMES);
/** The types a question may name (AndroidWorld's list for these templates). */
export const ASKED_CATEGORIES = ['running', 'cycling', 'swimming', 'hiking', 'mountain biking', 'kayaking', 'skiing', 'snow boarding',
  'skate boarding', 'climbing', 'inline skating', 'sailing'] as const;

const DESCRIPTIONS = ['', '', 'Felt strong today.', 'Windy out there.', 'Took it easy.', 'New personal best.', 'Rain most of the way.'];
const METERS_PER_MILE_AW = 1609.34;

/**
 * A distance as AndroidWorld stores one so that the app's two-decimal miles show it exactly:
 * rounded to hundredths of a mile, then back to whole metres (activity_app_utils).
 */
export function roundTripMeters(m: number): number {
  return Math.round(Math.round((m / METERS_PER_MILE_AW) * 100) / 100 * METERS_PER_MILE_AW);
}

export const TODAY = dateParts(DEVICE_NOW);
export const shiftDay = (d: DateParts, n: number): DateParts => dateParts(msOf(d) + n * DAY_MS);
export const sameDay = (a: DateParts, b: DateParts): boolean => a.year === b.year && a.month === b.month && a.day === b.day;
export const dayOfTrack = (t: SeedTrack): DateParts => dateParts(t.start);

/** Monday to Sunday of the week holding `today`. */
export function weekOf(today: DateParts): [DateParts, DateParts] {
  const dow = (new Date(msOf(today)).getUTCDay() + 6) % 7;
  return [shiftDay(today, -dow), shiftDay(today, 6 - dow)];
}
export const within = (d: DateParts, [a, b]: readonly [DateParts, DateParts]): boolean => msOf(d) >= msOf(a) && msOf(d) <= msOf(b);

/** A track of `category` on day `d` at a quarter hour. */
export function trackOn(rng: Rng, category: string, d: DateParts, o: { duration?: number; distance?: number } = {}): SeedTrack {
  return {
    name: rng.pick(TRACK_NAMES[category] ?? ['Workout']),
    description: rng.pick(DESCRIPTIONS),
    category,
    start: msOf(d, rng.int(6, 20), rng.pick([0, 15, 30, 45])),
    duration: o.duration ?? rng.pick([15, 20, 30, 40, 45, 50, 60, 75, 80, 90, 105, 120, 135, 150, 180, 210, 240]),
    distance: roundTripMeters(o.distance ?? rng.pick([100, 300, 500, 800, 1000, 1500, 2000, 3000, 4500, 6000, 8000, 10000, 12000])),
    elevationGain: rng.int(0, 500),
    elevationLoss: rng.int(0, 500),
  };
}

/**
 * Other tracks at random minutes over the fortnight before today (AndroidWorld's window), of any
 * type, none of which `excluded` says could change the answer.
 */
export function otherTracks(rng: Rng, count: number, excluded: (t: SeedTrack) => boolean): SeedTrack[] {
  const out: SeedTrack[] = [];
  const from = DEVICE_NOW - 14 * DAY_MS;
  for (let tries = 0; out.length < count && tries < count * 50; tries++) {
    const category = rng.pick(CATEGORIES);
    const start = from + rng.int(0, 14 * 24 * 60 - 1) * 60_000;
    const t: SeedTrack = {
      name: rng.pick(TRACK_NAMES[category]!), description: rng.pick(DESCRIPTIONS), category, start, duration: rng.int(1, 299),
      distance: roundTripMeters(rng.int(0, 20_000)), elevationGain: rng.int(0, 500), elevationLoss: rng.int(0, 500),
    };
    if (!excluded(t)) out.push(t);
  }
  return out;
}

/** Clears OpenTracks and inserts the tracks. */
export async function installTracks(device: Device, tracks: readonly SeedTrack[]): Promise<void> {
  await clearTracks(device);
  await addTracks(device, tracks);
}

export const opentracksOpen: Subgoal = {
  name: 'OpenTracks open',
  check: async ({ obs }) => inActivity(obs, OPENTRACKS_PKG),
};

export const trackListShown: Subgoal = {
  name: 'track list shown',
  check: async ({ obs }) => inActivity(obs, OPENTRACKS_PKG) && onScreen(obs, { resourceId: 'track_list_item' }),
};
