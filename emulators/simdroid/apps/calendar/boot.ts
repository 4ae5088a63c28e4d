import type { AppEnv, SystemServices } from '../../runtime/app.js';
import type { Rng } from '../../../../core/util/rng.js';
import { DAY_MS, dayStart, DEFAULT_REMINDER, insertEvent } from './db.js';
import { NO_REPEAT } from './repeat.js';

/**
 * First-boot content: a handful of ordinary events in the weeks around today, so the calendar
 * is not empty before a task sets up its own events.
 */
const EVENTS: ReadonlyArray<{ title: string; location?: string; description?: string; minutes: number }> = [
  { title: 'Dentist appointment', location: 'Smile Dental Clinic', minutes: 45 },
  { title: 'Team standup', location: 'Room 4B', minutes: 15 },
  { title: 'Lunch with Sarah', location: 'Green Bistro', minutes: 60 },
  { title: 'Yoga class', location: 'Community Center', minutes: 60 },
  { title: 'Project review', description: 'Go through the Q4 milestones', minutes: 90 },
  { title: 'Call with landlord', description: 'Ask about the heating repair', minutes: 30 },
  { title: 'Grocery shopping', minutes: 45 },
  { title: 'Book club', location: 'City Library', description: 'Chapter 5 to 9', minutes: 120 },
  { title: 'Car service', location: 'AutoFix Garage', minutes: 60 },
  { title: 'Piano lesson', minutes: 45 },
];

export function bootCalendar(env: { app: AppEnv; sys: SystemServices; rng: Rng }): void {
  const today = dayStart(env.sys.clock.now());
  const picks = env.rng.sample(EVENTS, 7);
  for (const e of picks) {
    const start = today + env.rng.int(-7, 21) * DAY_MS + env.rng.int(8, 19) * 3_600_000 + env.rng.pick([0, 30]) * 60_000;
    insertEvent(env.app.db, {
      title: e.title, location: e.location ?? '', description: e.description ?? '',
      start, end: start + e.minutes * 60_000, allDay: false, reminder: env.rng.pick([-1, DEFAULT_REMINDER, 30]), repeat: NO_REPEAT,
    }, env.sys.clock.now());
  }
  const holiday = today + env.rng.int(3, 25) * DAY_MS;
  insertEvent(env.app.db, {
    title: 'Mom\'s birthday', location: '', description: '', start: holiday, end: holiday + 12 * 3_600_000, allDay: true, reminder: 1440, repeat: NO_REPEAT,
  }, env.sys.clock.now());
}
