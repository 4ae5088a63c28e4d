import { dayName, monthName, shortMonth } from '../../system/clock.js';

/**
 * OpenTracks' wording of a track (ListItemUtils, StringUtils, DistanceFormatter) for a US-English
 * device, whose unit system is imperial: distances over half a mile in miles, shorter ones in
 * feet, both with two decimals ("3.11 mi", "1476.38 ft"); elapsed time as DateUtils.formatElapsedTime
 * ("45:00", "1:30:00"); the day relative to today ("Today", "Yesterday", else "Oct 12, 2023") and
 * the time of day "HH:mm".
 */
const DAY_MS = 86_400_000;
export const METERS_PER_MILE = 1609.344;
export const METERS_PER_FOOT = 0.3048;

export function formatDistance(meters: number): string {
  const miles = meters / METERS_PER_MILE;
  return miles > 0.5 ? `${miles.toFixed(2)} mi` : `${(meters / METERS_PER_FOOT).toFixed(2)} ft`;
}

const two = (n: number) => String(n).padStart(2, '0');

export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${two(m)}:${two(s)}`;
}

/** "1:30:00 (5.23 mi)", the list row's second line. */
export function timeAndDistance(totalTimeMs: number, meters: number): string {
  return `${formatElapsed(totalTimeMs)} (${formatDistance(meters)})`;
}

export function listDate(ms: number, now: number): string {
  const days = Math.floor(now / DAY_MS) - Math.floor(ms / DAY_MS);
  if (days === 0) return 'Today';
  if (days === 1) return 'Yesterday';
  const d = new Date(ms);
  return `${shortMonth(d.getUTCMonth())} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

/** "Thursday, October 12, 2023", the statistics page's date. */
export function longDate(ms: number): string {
  const d = new Date(ms);
  return `${dayName(ms)}, ${monthName(d.getUTCMonth())} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

export function timeOfDay(ms: number): string {
  const d = new Date(ms);
  return `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
}

/** m/s as "12.34 mph" (imperial speed). */
export function formatSpeed(metersPerSecond: number): string {
  return `${((metersPerSecond * 3600) / METERS_PER_MILE).toFixed(2)} mph`;
}

export function formatElevation(meters: number): string {
  return `${Math.round(meters / METERS_PER_FOOT)} ft`;
}
