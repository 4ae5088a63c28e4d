/**
 * Cities for world-clock tasks, with their UTC offsets (minutes east) on the devices' date,
 * 15 October 2023: northern summer time still on, Australian and New Zealand summer time begun.
 * Spread over the alphabet so that some need scrolling in a city list.
 */
export interface WorldCity {
  name: string;
  offset: number;
}

export const WORLD_CITIES: readonly WorldCity[] = [
  { name: 'Adelaide', offset: 630 },
  { name: 'Athens', offset: 180 },
  { name: 'Auckland', offset: 780 },
  { name: 'Bangkok', offset: 420 },
  { name: 'Buenos Aires', offset: -180 },
  { name: 'Chicago', offset: -300 },
  { name: 'Dubai', offset: 240 },
  { name: 'Hong Kong', offset: 480 },
  { name: 'Honolulu', offset: -600 },
  { name: 'Istanbul', offset: 180 },
  { name: 'Kathmandu', offset: 345 },
  { name: 'Lima', offset: -300 },
  { name: 'London', offset: 60 },
  { name: 'Los Angeles', offset: -420 },
  { name: 'Mexico City', offset: -360 },
  { name: 'Moscow', offset: 180 },
  { name: 'Mumbai', offset: 330 },
  { name: 'Nairobi', offset: 180 },
  { name: 'New York', offset: -240 },
  { name: 'Paris', offset: 120 },
  { name: 'Reykjavik', offset: 0 },
  { name: 'Seoul', offset: 540 },
  { name: 'Singapore', offset: 480 },
  { name: 'Sydney', offset: 660 },
  { name: 'Tehran', offset: 210 },
  { name: 'Tokyo', offset: 540 },
  { name: 'Toronto', offset: -240 },
  { name: 'Vancouver', offset: -420 },
  { name: 'Warsaw', offset: 120 },
];

/** The id a city has in DeskClock's catalog (its name, lower-case, spaces as underscores). */
export function cityId(name: string): string {
  return name.toLowerCase().replace(/ /g, '_');
}
