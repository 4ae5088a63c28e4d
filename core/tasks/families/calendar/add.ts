import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { dateParts, isoDate, msOf, time12, type DateParts } from '../../../seed-data/dates.js';
import { EVENT_LOCATIONS, EVENT_NOTES, eventTitles } from '../../../seed-data/events.js';
import type { Rng } from '../../../util/rng.js';
import { fieldHolds } from '../../validators/ui.js';
import { addEvents, clearEvents, listEvents } from './calendar-db.js';
import { allDayEvent, EVENT, EVENT_FIELDS, eventKind, when, calendarOpen, DateSchema, dayAround, dayText, DURATIONS, editorOpen, EventSchema, MINUTE_MS, openCalendar, savedWithTitle, setEditorDate, setEditorTime, shiftDay, timedEvent, toInput, type EventParam } from './common.js';
import { verdictOf } from '../../verdict.js';
import { keptThenWanted } from '../../validators/records.js';

/**
 * Creating events through the editor: AndroidWorld's SimpleCalendarAddOneEvent (date, hour,
 * title, description, duration), one with a location and a half-hour start, and an all-day event.
 * The events already in the calendar must survive untouched, and exactly one event is added.
 */
function existingAround(rng: Rng, day: DateParts, exclude: string[]): EventParam[] {
  const titles = eventTitles(rng, rng.int(3, 6), exclude);
  // One or two on the target day itself, so a careless edit of the wrong event shows.
  const sameDay = rng.int(1, 2);
  return titles.map((t, i) => timedEvent(rng, t, i < sameDay ? day : dayAround(rng, -10, 90)));
}

const F = EVENT_FIELDS;
const WITH_DESCRIPTION = eventKind([F.title, F.description, F.allDay, F.start, F.end]);
const WITH_LOCATION = eventKind([F.title, F.location, F.allDay, F.start, F.end]);
// The app stores all-day events from midnight to noon of their last day; any end within the day is the same day.
const ALL_DAY = eventKind([F.title, F.allDay, F.start, {
  name: 'end', got: (s) => when(s.end), want: (e) => `within ${when(e.start).slice(0, 10)}`, same: (s, e) => s.end >= e.start && s.end < e.start + 86_400_000,
}]);

const AddOne = z.object({
  date: DateSchema,
  hour: z.int().min(0).max(22),
  durationMins: z.int().min(5).max(240),
  title: z.string().min(1),
  description: z.string().min(1),
  existing: z.array(EventSchema),
});

export const AddEvent = defineTask({
  id: 'CalendarAddEvent',
  apps: ['Calendar'],
  difficulty: 'medium',
  tags: ['data_entry', 'date_time', 'complex_ui'],
  kind: 'completion',
  template: "In Simple Calendar Pro, create a calendar event on {year}-{month}-{day} at {hour}h with the title '{title}' and the description '{description}'. The event should last for {duration_mins} mins.",
  params: AddOne,
  maxSteps: 40,
  generate: (rng) => {
    const date = dayAround(rng, 0, 90);
    const title = eventTitles(rng, 1)[0]!;
    return {
      date, hour: rng.int(8, 20), durationMins: rng.pick(DURATIONS), title, description: rng.pick(EVENT_NOTES),
      existing: existingAround(rng, date, [title]),
    };
  },
  instruction: (p) => `In Simple Calendar Pro, create a calendar event on ${isoDate(p.date)} at ${p.hour}h with the title '${p.title}' and the description '${p.description}'. The event should last for ${p.durationMins} mins.`,
  initialize: async (device, p) => {
    await clearEvents(device);
    await addEvents(device, p.existing.map(toInput));
  },
  check: async (device, p) => {
    const start = msOf(p.date, p.hour);
    const want = { title: p.title, description: p.description, allDay: false, start, end: start + p.durationMins * MINUTE_MS, location: '' };
    return verdictOf(keptThenWanted(await listEvents(device), EVENT, p.existing, WITH_DESCRIPTION, [want], 'added'));
  },
  subgoals: (p) => [
    calendarOpen,
    editorOpen,
    { name: 'title typed', check: async ({ obs }) => fieldHolds(obs, p.title) },
    savedWithTitle(p.title),
  ],
  *oracle(p, ui) {
    const start = msOf(p.date, p.hour);
    yield* openCalendar(ui);
    yield ui.tap({ contentDesc: 'New event' });
    yield ui.type({ resourceId: 'event_title' }, p.title);
    yield ui.type({ resourceId: 'event_description' }, p.description);
    yield* setEditorDate(ui, 'start', p.date);
    yield* setEditorTime(ui, 'start', start);
    yield* setEditorTime(ui, 'end', start + p.durationMins * MINUTE_MS);
    yield ui.tap({ contentDesc: 'Save' });
    yield ui.complete();
  },
});

const WithLocation = z.object({ target: EventSchema, existing: z.array(EventSchema) });

export const AddEventWithLocation = defineTask({
  id: 'CalendarAddEventWithLocation',
  apps: ['Calendar'],
  difficulty: 'medium',
  tags: ['data_entry', 'date_time', 'complex_ui'],
  kind: 'completion',
  template: "Add an event called '{title}' at {location} to Simple Calendar Pro on {date}, from {start} to {end}.",
  params: WithLocation,
  maxSteps: 40,
  generate: (rng) => {
    const day = dayAround(rng, 1, 90);
    const title = eventTitles(rng, 1)[0]!;
    const base = timedEvent(rng, title, day, { fromHour: 7, toHour: 20 });
    return { target: { ...base, location: rng.pick(EVENT_LOCATIONS), description: '' }, existing: existingAround(rng, day, [title]) };
  },
  instruction: (p) => {
    const s = new Date(p.target.start);
    const e = new Date(p.target.end);
    return `Add an event called '${p.target.title}' at ${p.target.location} to Simple Calendar Pro on ${dayText(dateParts(p.target.start))}, `
      + `from ${time12(s.getUTCHours(), s.getUTCMinutes())} to ${time12(e.getUTCHours(), e.getUTCMinutes())}.`;
  },
  initialize: async (device, p) => {
    await clearEvents(device);
    await addEvents(device, p.existing.map(toInput));
  },
  check: async (device, p) => {
    const want = { ...p.target, allDay: false };
    return verdictOf(keptThenWanted(await listEvents(device), EVENT, p.existing, WITH_LOCATION, [want], 'added'));
  },
  subgoals: (p) => [
    calendarOpen,
    editorOpen,
    { name: 'location typed', check: async ({ obs }) => fieldHolds(obs, p.target.location) },
    savedWithTitle(p.target.title),
  ],
  *oracle(p, ui) {
    yield* openCalendar(ui);
    yield ui.tap({ contentDesc: 'New event' });
    yield ui.type({ resourceId: 'event_title' }, p.target.title);
    yield ui.type({ resourceId: 'event_location' }, p.target.location);
    yield* setEditorDate(ui, 'start', dateParts(p.target.start));
    yield* setEditorTime(ui, 'start', p.target.start);
    yield* setEditorTime(ui, 'end', p.target.end);
    yield ui.tap({ contentDesc: 'Save' });
    yield ui.complete();
  },
});

const AllDay = z.object({ title: z.string().min(1), date: DateSchema, existing: z.array(EventSchema) });

export const AddAllDayEvent = defineTask({
  id: 'CalendarAddAllDayEvent',
  apps: ['Calendar'],
  difficulty: 'medium',
  tags: ['data_entry', 'date_time', 'toggle'],
  kind: 'completion',
  template: "Add an all-day event titled '{title}' to Simple Calendar Pro on {date}.",
  params: AllDay,
  maxSteps: 30,
  generate: (rng) => {
    const date = dayAround(rng, 1, 90);
    const title = eventTitles(rng, 1)[0]!;
    const existing = existingAround(rng, date, [title]);
    // Sometimes an all-day event already sits on the day before, which must stay as it is.
    if (rng.chance(0.5)) existing.push(allDayEvent(eventTitles(rng, 1, [title, ...existing.map((e) => e.title)])[0]!, shiftDay(date, -1)));
    return { title, date, existing };
  },
  instruction: (p) => `Add an all-day event titled '${p.title}' to Simple Calendar Pro on ${dayText(p.date)}.`,
  initialize: async (device, p) => {
    await clearEvents(device);
    await addEvents(device, p.existing.map(toInput));
  },
  check: async (device, p) => {
    const start = msOf(p.date);
    const want = { title: p.title, allDay: true, start, end: start, location: '', description: '' };
    return verdictOf(keptThenWanted(await listEvents(device), EVENT, p.existing, ALL_DAY, [want], 'added'));
  },
  subgoals: (p) => [
    calendarOpen,
    editorOpen,
    { name: 'title typed', check: async ({ obs }) => fieldHolds(obs, p.title) },
    savedWithTitle(p.title),
  ],
  *oracle(p, ui) {
    yield* openCalendar(ui);
    yield ui.tap({ contentDesc: 'New event' });
    yield ui.type({ resourceId: 'event_title' }, p.title);
    yield ui.tap({ text: 'All-day' });
    yield* setEditorDate(ui, 'start', p.date);
    yield ui.tap({ contentDesc: 'Save' });
    yield ui.complete();
  },
});

export const ADD_TASKS: readonly TaskTemplate[] = [AddEvent, AddEventWithLocation, AddAllDayEvent];
