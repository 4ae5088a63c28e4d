import { z } from 'zod';
import { defineTask, type Subgoal, type TaskTemplate } from '../../task.js';
import { dateParts } from '../../../seed-data/dates.js';
import { addEvents, clearEvents, listEvents } from './calendar-db.js';
import { calendarOpen, EVENT, DateSchema, dayAround, dayOpen, dayText, eventOpen, EventSchema, isEvent, openCalendar, openDay, openEventInDay, shiftDay, timedEvent, toInput } from './common.js';
import { dayScenario } from './scenario.js';
import { verdictOf } from '../../verdict.js';
import { exactRecords } from '../../validators/records.js';
import { CONFIRM, deleteAllEventsShown } from './days.js';

/**
 * Deleting events: one named event on a given day (a same-titled event on another day must stay),
 * and every event of a day (the ones just before and after midnight must stay). Deleting goes
 * through the editor's Delete action and its confirmation.
 */

const One = z.object({ target: EventSchema, others: z.array(EventSchema) });

export const DeleteEvent = defineTask({
  id: 'CalendarDeleteEvent',
  apps: ['Calendar'],
  difficulty: 'medium',
  tags: ['deletion', 'dialog', 'date_time'],
  kind: 'completion',
  template: "Delete the event '{title}' on {date} from Simple Calendar Pro.",
  params: One,
  maxSteps: 25,
  generate: (rng) => {
    const day = dayAround(rng, -20, 90);
    // Up to ten events that day, so the day view sometimes needs scrolling to reach the target.
    const sc = dayScenario(rng, day, rng.int(3, 10), rng.int(3, 6));
    const i = rng.int(0, sc.onDay.length - 1);
    const target = sc.onDay[i]!;
    const others = [...sc.onDay.filter((_, j) => j !== i), ...sc.around];
    if (rng.chance(0.5)) others.push(timedEvent(rng, target.title, shiftDay(day, rng.pick([-7, 7, 14]))));
    return { target, others };
  },
  instruction: (p) => `Delete the event '${p.target.title}' on ${dayText(dateParts(p.target.start))} from Simple Calendar Pro.`,
  initialize: async (device, p) => {
    await clearEvents(device);
    await addEvents(device, [...p.others, p.target].map(toInput));
  },
  check: async (device, p) => verdictOf(exactRecords(EVENT, await listEvents(device), p.others, 'kept')),
  subgoals: (p) => [
    calendarOpen,
    dayOpen(dateParts(p.target.start)),
    eventOpen(p.target.title),
    { name: 'event deleted', check: async ({ device }) => !(await listEvents(device)).some((e) => isEvent(e, p.target)) },
  ],
  *oracle(p, ui) {
    yield* openCalendar(ui);
    yield* openDay(ui, dateParts(p.target.start));
    yield* openEventInDay(ui, p.target.title);
    yield ui.tap({ contentDesc: 'Delete' });
    yield ui.tap(CONFIRM);
    yield ui.complete();
  },
});

const OnDay = z.object({ date: DateSchema, targets: z.array(EventSchema).min(1), others: z.array(EventSchema) });

export const DeleteEventsOnDay = defineTask({
  id: 'CalendarDeleteEventsOnDay',
  apps: ['Calendar'],
  difficulty: 'hard',
  tags: ['deletion', 'dialog', 'date_time', 'verification'],
  kind: 'completion',
  template: 'Delete all events on {date} from Simple Calendar Pro. Keep the events of other days.',
  params: OnDay,
  maxSteps: 50,
  generate: (rng) => {
    const date = dayAround(rng, 0, 75);
    const sc = dayScenario(rng, date, rng.int(2, 5), rng.int(4, 7), { allDayChance: 0.3 });
    return { date, targets: sc.onDay, others: sc.around };
  },
  instruction: (p) => `Delete all events on ${dayText(p.date)} from Simple Calendar Pro. Keep the events of other days.`,
  initialize: async (device, p) => {
    await clearEvents(device);
    await addEvents(device, [...p.others, ...p.targets].map(toInput));
  },
  check: async (device, p) => verdictOf(exactRecords(EVENT, await listEvents(device), p.others, 'kept')),
  subgoals: (p) => {
    const goals: Subgoal[] = [calendarOpen, dayOpen(p.date)];
    p.targets.forEach((t, i) => goals.push({
      name: `${i + 1} of ${p.targets.length} deleted`,
      check: async ({ device }) => {
        const all = await listEvents(device);
        return p.targets.filter((x) => !all.some((e) => isEvent(e, x))).length > i;
      },
    }));
    return goals;
  },
  *oracle(p, ui) {
    yield* openCalendar(ui);
    yield* openDay(ui, p.date);
    // Every event the day shows, as a person reads them off the day.
    yield* deleteAllEventsShown(ui, 'day_events');
    yield ui.complete();
  },
});

export const DELETE_TASKS: readonly TaskTemplate[] = [DeleteEvent, DeleteEventsOnDay];
