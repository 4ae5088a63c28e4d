/**
 * The world-clock city catalog (DeskClock's res/values/cities.xml, abridged). SimDroid has no
 * time-zone database, so each city has the fixed UTC offset it had on the device's date
 * (15 October 2023: northern summer time still on, Australian and New Zealand summer time begun).
 */
export interface City {
  /** Stable id stored in the `cities` table (AOSP uses ids like "C123"; a slug reads better). */
  id: string;
  name: string;
  /** Minutes east of UTC. */
  offset: number;
}

const h = (hours: number, minutes = 0) => hours * 60 + Math.sign(hours || 1) * minutes;

export const CITIES: readonly City[] = [
  { id: 'adelaide', name: 'Adelaide', offset: h(10, 30) },
  { id: 'amsterdam', name: 'Amsterdam', offset: h(2) },
  { id: 'anchorage', name: 'Anchorage', offset: h(-8) },
  { id: 'athens', name: 'Athens', offset: h(3) },
  { id: 'auckland', name: 'Auckland', offset: h(13) },
  { id: 'bangkok', name: 'Bangkok', offset: h(7) },
  { id: 'beijing', name: 'Beijing', offset: h(8) },
  { id: 'berlin', name: 'Berlin', offset: h(2) },
  { id: 'buenos_aires', name: 'Buenos Aires', offset: h(-3) },
  { id: 'cairo', name: 'Cairo', offset: h(3) },
  { id: 'chicago', name: 'Chicago', offset: h(-5) },
  { id: 'denver', name: 'Denver', offset: h(-6) },
  { id: 'dubai', name: 'Dubai', offset: h(4) },
  { id: 'dublin', name: 'Dublin', offset: h(1) },
  { id: 'hong_kong', name: 'Hong Kong', offset: h(8) },
  { id: 'honolulu', name: 'Honolulu', offset: h(-10) },
  { id: 'istanbul', name: 'Istanbul', offset: h(3) },
  { id: 'jakarta', name: 'Jakarta', offset: h(7) },
  { id: 'johannesburg', name: 'Johannesburg', offset: h(2) },
  { id: 'kathmandu', name: 'Kathmandu', offset: h(5, 45) },
  { id: 'lagos', name: 'Lagos', offset: h(1) },
  { id: 'lima', name: 'Lima', offset: h(-5) },
  { id: 'lisbon', name: 'Lisbon', offset: h(1) },
  { id: 'london', name: 'London', offset: h(1) },
  { id: 'los_angeles', name: 'Los Angeles', offset: h(-7) },
  { id: 'madrid', name: 'Madrid', offset: h(2) },
  { id: 'mexico_city', name: 'Mexico City', offset: h(-6) },
  { id: 'moscow', name: 'Moscow', offset: h(3) },
  { id: 'mumbai', name: 'Mumbai', offset: h(5, 30) },
  { id: 'nairobi', name: 'Nairobi', offset: h(3) },
  { id: 'new_york', name: 'New York', offset: h(-4) },
  { id: 'paris', name: 'Paris', offset: h(2) },
  { id: 'reykjavik', name: 'Reykjavik', offset: h(0) },
  { id: 'rio_de_janeiro', name: 'Rio de Janeiro', offset: h(-3) },
  { id: 'rome', name: 'Rome', offset: h(2) },
  { id: 'san_francisco', name: 'San Francisco', offset: h(-7) },
  { id: 'santiago', name: 'Santiago', offset: h(-3) },
  { id: 'seoul', name: 'Seoul', offset: h(9) },
  { id: 'singapore', name: 'Singapore', offset: h(8) },
  { id: 'stockholm', name: 'Stockholm', offset: h(2) },
  { id: 'sydney', name: 'Sydney', offset: h(11) },
  { id: 'tehran', name: 'Tehran', offset: h(3, 30) },
  { id: 'tokyo', name: 'Tokyo', offset: h(9) },
  { id: 'toronto', name: 'Toronto', offset: h(-4) },
  { id: 'vancouver', name: 'Vancouver', offset: h(-7) },
  { id: 'vienna', name: 'Vienna', offset: h(2) },
  { id: 'warsaw', name: 'Warsaw', offset: h(2) },
];

export function cityById(id: string): City | undefined {
  return CITIES.find((c) => c.id === id);
}
