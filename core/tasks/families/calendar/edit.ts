import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { dateParts, msOf, time12 } from '../../../seed-data/dates.js';
import { eventTitles } from '../../../seed-data/events.js';
import { fieldHolds } from '../../validators/ui.js';
import { addEvents, clearEvents, listEvents } from './calendar-db.js';
import { calendarOpen, EVENT, dayAround, dayOpen, dayText, eventOpen, EventSchema, isEvent, openCalendar, openDay, openEventInDay, setEditorDate, setEditorTime, shiftDay, timedEvent, toInput, type EventParam } from './common.js';
import { dayScenario } from './scenario.js';
import { verdictOf } from '../../verdict.js';
import { keptThenWanted } from '../../validators/records.js';

/**
 * Editing a stored event in the editor: renaming it, and moving it to another day and time with
 * its duration kept (the editor moves the end along with the start). Everything else about the
 * event, and every other event, must stay as it was.
 */

const Rename = z.object({ target: EventSchema, newTitle: z.string().min(1), others: z.array(EventSchema) });

export const EditEventTitle = defineTask({
  id: 'CalendarEditEventTitle',
  apps: ['Calendar'],
  difficulty: 'medium',
  tags: ['data_edit', 'date_time'],
  kind: 'completion',
  template: "In Simple Calendar Pro, rename the event '{title}' on {date} to '{newTitle}'.",
  params: Rename,
  maxSteps: 25,
  generate: (rng) => {
    const day = dayAround(rng, -5, 80);
    const sc = dayScenario(rng, day, rng.int(2, 6), rng.int(3, 6));
    const i = rng.int(0, sc.onDay.length - 1);
    const target = sc.onDay[i]!;
    const others = [...sc.onDay.filter((_, j) => j !== i), ...sc.around];
    if (rng.chance(0.5)) others.push(timedEvent(rng, target.title, shiftDay(day, rng.pick([-7, 7]))));
    const newTitle = eventTitles(rng, 1, [...others, target].map((e) => e.title))[0]!;
    return { target, newTitle, others };
  },
  instruction: (p) => `In Simple Calendar Pro, rename the event '${p.target.title}' on ${dayText(dateParts(p.target.start))} to '${p.newTitle}'.`,
  initialize: async (device, p) => {
    await clearEvents(device);
    await addEvents(device, [...p.others, p.target].map(toInput));
  },
  check: async (device, p) => verdictOf(keptThenWanted(await listEvents(device), EVENT, p.others, EVENT, [{ ...p.target, title: p.newTitle }], 'edited')),
  subgoals: (p) => [
    calendarOpen,
    dayOpen(dateParts(p.target.start)),
    eventOpen(p.target.title),
    { name: 'new title typed', check: async ({ obs }) => fieldHolds(obs, p.newTitle) },
    { name: 'event renamed', check: async ({ device }) => (await listEvents(device)).some((e) => isEvent(e, { ...p.target, title: p.newTitle })) },
  ],
  *oracle(p, ui) {
    yield* openCalendar(ui);
    yield* openDay(ui, dateParts(p.target.start));
    yield* openEventInDay(ui, p.target.title);
    yield ui.type({ resourceId: 'event_title' }, p.newTitle, { clear: true });
    yield ui.tap({ contentDesc: 'Save' });
    yield ui.complete();
  },
});

const Move = z.object({ target: EventSchema, newStart: z.int(), others: z.array(EventSchema) });

function moved(p: z.infer<typeof Move>): EventParam {
  return { ...p.target, start: p.newStart, end: p.newStart + (p.target.end - p.target.start) };
}

export const RescheduleEvent = defineTask({
  id: 'CalendarRescheduleEvent',
  apps: ['Calendar'],
  difficulty: 'hard',
  tags: ['data_edit', 'date_time', 'complex_ui'],
  kind: 'completion',
  template: "The event '{title}' on {date} has been moved to {newDate} at {newTime}. Reschedule it in Simple Calendar Pro, keeping its duration.",
  params: Move,
  maxSteps: 40,
  generate: (rng) => {
    const day = dayAround(rng, 0, 60);
    const sc = dayScenario(rng, day, rng.int(2, 5), rng.int(3, 6));
    const i = rng.int(0, sc.onDay.length - 1);
    const target = sc.onDay[i]!;
    const others = [...sc.onDay.filter((_, j) => j !== i), ...sc.around];
    // A later day (sometimes in another month) at a different hour of the working day.
    const newDay = shiftDay(day, rng.int(1, 35));
    const oldHour = new Date(target.start).getUTCHours();
    let hour = rng.int(8, 19);
    if (hour === oldHour) hour = hour === 19 ? 8 : hour + 1;
    return { target, newStart: msOf(newDay, hour, rng.pick([0, 30])), others };
  },
  instruction: (p) => {
    const t = new Date(p.newStart);
    return `The event '${p.target.title}' on ${dayText(dateParts(p.target.start))} has been moved to ${dayText(dateParts(p.newStart))} `
      + `at ${time12(t.getUTCHours(), t.getUTCMinutes())}. Reschedule it in Simple Calendar Pro, keeping its duration.`;
  },
  initialize: async (device, p) => {
    await clearEvents(device);
    await addEvents(device, [...p.others, p.target].map(toInput));
  },
  check: async (device, p) => verdictOf(keptThenWanted(await listEvents(device), EVENT, p.others, EVENT, [moved(p)], 'edited')),
  subgoals: (p) => [
    calendarOpen,
    dayOpen(dateParts(p.target.start)),
    eventOpen(p.target.title),
    { name: 'event moved', check: async ({ device }) => (await listEvents(device)).some((e) => isEvent(e, moved(p))) },
  ],
  *oracle(p, ui) {
    yield* openCalendar(ui);
    yield* openDay(ui, dateParts(p.target.start));
    yield* openEventInDay(ui, p.target.title);
    yield* setEditorDate(ui, 'start', dateParts(p.newStart));
    yield* setEditorTime(ui, 'start', p.newStart);
    yield ui.tap({ contentDesc: 'Save' });
    yield ui.complete();
  },
});

export const EDIT_TASKS: readonly TaskTemplate[] = [EditEventTitle, RescheduleEvent];
