import type { Rng } from '../util/rng.js';

/**
 * Calendar event vocabulary: titles people give their events, places, and notes. Titles contain
 * no commas and no "and", so a list of them can be answered as "A, B, C" and split back.
 */
export const EVENT_TITLES = [
  'Dentist appointment', 'Team standup', 'Project kickoff', 'Budget review', 'Yoga class', 'Piano lesson',
  'Doctor visit', 'Haircut', 'Book club', 'Car service', 'Parent-teacher meeting', 'Gym session', 'Client call',
  'Quarterly planning', 'Design review', 'Lunch with Maria', 'Coffee with Tom', 'Dinner with parents',
  'Birthday party', 'Farmers market', 'Swimming lesson', 'Guitar practice', 'Job interview', 'Code review',
  'Sprint retrospective', 'Marketing sync', 'Vet appointment', 'Flight to Boston', 'Movie night', 'Soccer practice',
  'Language exchange', 'Volunteer shift', 'Pottery workshop', 'Photography walk', 'Tax consultation',
  'Eye exam', 'Team offsite', 'Board meeting', 'Product demo', 'Hiking trip', 'Wine tasting', 'Cooking class',
  'Garden club', 'Chess tournament', 'Charity run', 'Physiotherapy', 'Bank appointment', 'Apartment viewing',
  'Concert tickets pickup', 'Study group', 'Onboarding session', 'Sales pipeline review', 'All-hands meeting',
  'Museum visit', 'Bike repair', 'Laundry pickup', 'Passport renewal', 'Insurance call', 'Weekly 1:1',
  'Hackathon', 'Wedding rehearsal', 'Library workshop',
] as const;

export const EVENT_LOCATIONS = [
  'Room 4B', 'Main Office', 'City Library', 'Green Bistro', 'Community Center', 'Central Park', 'Smile Dental Clinic',
  'Conference Room A', 'Downtown Gym', 'Riverside Cafe', 'Town Hall', 'Harbor View Hotel', 'Union Station',
  'North Campus', 'Blue Door Studio', 'Maple Street 12', 'Online', 'Sunset Plaza', 'Oak Hill School',
  'St. Mary Hospital', 'Airport Terminal 2', 'Westfield Mall',
] as const;

export const EVENT_NOTES = [
  'Bring the printed agenda', 'Prepare three questions', 'Arrive ten minutes early', 'Remember the parking ticket',
  'Share the slides afterwards', 'Ask about the next steps', 'Bring a water bottle', 'Pay at the front desk',
  'Take the insurance card', 'Review last week\'s notes', 'Confirm the booking by email', 'Wear comfortable shoes',
  'Bring the signed contract', 'Pick up snacks on the way', 'Check the train times',
] as const;

/** `count` distinct event titles, none in `exclude` (compared case-insensitively). */
export function eventTitles(rng: Rng, count: number, exclude: readonly string[] = []): string[] {
  const banned = new Set(exclude.map((t) => t.toLowerCase()));
  const pool = EVENT_TITLES.filter((t) => !banned.has(t.toLowerCase()));
  if (pool.length < count) throw new Error(`Only ${pool.length} event titles left, ${count} wanted`);
  return rng.sample(pool, count);
}
