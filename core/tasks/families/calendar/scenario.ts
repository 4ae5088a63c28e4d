import type { Rng } from '../../../util/rng.js';
import { msOf, type DateParts } from '../../../seed-data/dates.js';
import { eventTitles } from '../../../seed-data/events.js';
import { allDayEvent, dayAround, MINUTE_MS, sameDay, shiftDay, timedEvent, type EventParam } from './common.js';

/**
 * Calendars for tasks about one day: the day's events (distinct titles, sometimes one all-day)
 * and distractors around it: late the evening before and just after midnight, which a checker
 * must not confuse with the day, and others over the coming months.
 */
export interface DayScenario {
  onDay: EventParam[];
  around: EventParam[];
}

export function dayEvents(rng: Rng, day: DateParts, titles: readonly string[], o: { allDayChance?: number } = {}): EventParam[] {
  return titles.map((t, i) => (i === 0 && rng.chance(o.allDayChance ?? 0) ? allDayEvent(t, day) : timedEvent(rng, t, day, { fromHour: 7, toHour: 20 })));
}

/** Events ending before the day starts and starting right after it ends. */
export function neighbours(rng: Rng, day: DateParts, titles: readonly [string, string]): EventParam[] {
  const before = msOf(shiftDay(day, -1), 22, rng.pick([0, 30]));
  const after = msOf(shiftDay(day, 1), rng.int(0, 1), rng.pick([0, 30]));
  return [
    { title: titles[0], start: before, end: before + rng.pick([30, 60]) * MINUTE_MS, location: '', description: '', allDay: false },
    { title: titles[1], start: after, end: after + rng.pick([30, 60, 90]) * MINUTE_MS, location: '', description: '', allDay: false },
  ];
}

/** Events on other days between `from` and `to` days from today. */
export function elsewhere(rng: Rng, avoid: DateParts, titles: readonly string[], from = -10, to = 90): EventParam[] {
  return titles.map((t) => {
    let d = dayAround(rng, from, to);
    while (sameDay(d, avoid)) d = dayAround(rng, from, to);
    return timedEvent(rng, t, d);
  });
}

/** `count` events on the day and `extra` elsewhere (two of them at the day's edges), all titles distinct. */
export function dayScenario(rng: Rng, day: DateParts, count: number, extra: number, o: { allDayChance?: number; exclude?: string[] } = {}): DayScenario {
  const titles = eventTitles(rng, count + Math.max(2, extra), o.exclude ?? []);
  const onDay = dayEvents(rng, day, titles.slice(0, count), o);
  const rest = titles.slice(count);
  const around = [...neighbours(rng, day, [rest[0]!, rest[1]!]), ...elsewhere(rng, day, rest.slice(2))];
  return { onDay, around };
}
