import type { Rng } from '../util/rng.js';

/**
 * Fictional employers for contacts and expense payees. Each is one distinctive word or phrase that
 * no other entry, first name or last name contains, so searching for one finds only its people.
 */
export const COMPANIES = [
  'Acme Corp', 'Globex', 'Initech', 'Hooli', 'Northwind Traders', 'Contoso', 'Fabrikam', 'Vandelay Industries',
  'Wayne Enterprises', 'Cyberdyne Systems', 'Soylent Foods', 'Blue Harbor Bank', 'Pine Valley Clinic', 'Umbrella Labs',
  'Tyrell Robotics', 'Oceanic Airlines', 'Sterling Cooper', 'Dunder Mifflin', 'Pied Piper', 'Massive Dynamic',
] as const;

/** `count` distinct companies. */
export function randomCompanies(rng: Rng, count: number): string[] {
  return rng.sample(COMPANIES, count);
}
