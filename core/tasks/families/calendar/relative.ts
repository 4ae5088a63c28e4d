import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { dateParts, DAY_MS, DEVICE_NOW, isoDate, msOf, weekday, type DateParts } from '../../../seed-data/dates.js';
import { EVENT_NOTES, eventTitles } from '../../../seed-data/events.js';
import type { OracleUi } from '../../oracle.js';
import { resolveDay } from '../../day-phrases.js';
import { fieldHolds, onScreen } from '../../validators/ui.js';
import { verdictOf } from '../../verdict.js';
import { keptThenWanted } from '../../validators/records.js';
import { addEvents, clearEvents, listEvents } from './calendar-db.js';
import {
  calendarOpen, DateSchema, dayAround, DURATIONS, editorOpen, EVENT, EVENT_FIELDS, eventKind, EventSchema, MINUTE_MS, openCalendar, openDay,
  sameText, savedWithTitle, setEditorDate, setEditorTime, timedEvent, toInput,
} from './common.js';
import { dayShown, deleteAllEventsShown, restoreView, toDailyView } from './days.js';
import { repeatingEvents } from './calendar-repeat-db.js';

/**
 * Events on days worded from today (AndroidWorld's SimpleCalendarAddOneEventTomorrow,
 * …RelativeDay, …InTwoWeeks, SimpleCalendarDeleteEventsOnRelativeDay) and a repeating event
 * (SimpleCalendarAddRepeatingEvent). The oracle reads today in the calendar's daily view and counts
 * from it; the repeating event is made through the editor's repetition row.
 */
const F = EVENT_FIELDS;
const WITH_DESCRIPTION = eventKind([F.title, F.description, F.allDay, F.start, F.end]);

/** Today, as the daily view opens on it; the chosen view is put back. */
export function* readToday(ui: OracleUi): Generator<Action, DateParts, void> {
  const was = yield* toDailyView(ui);
  const today = dayShown(ui);
  yield* restoreView(ui, was);
  return today;
}

/** From the calendar: a new event with its title, description, day, start hour and length, saved. */
function* newEvent(ui: OracleUi, e: { title: string; description: string; day: DateParts; hour: number; minutes: number }): Generator<Action, void, void> {
  const start = msOf(e.day, e.hour);
  yield ui.tap({ contentDesc: 'New event' });
  yield ui.type({ resourceId: 'event_title' }, e.title);
  yield ui.type({ resourceId: 'event_description' }, e.description);
  yield* setEditorDate(ui, 'start', e.day);
  yield* setEditorTime(ui, 'start', start);
  yield* setEditorTime(ui, 'end', start + e.minutes * MINUTE_MS);
}

const WHEN = ['tomorrow', 'this weekday', 'in two weeks'] as const;

const Relative = z.object({
  when: z.enum(WHEN),
  /** The weekday "this {weekday}" names (unused otherwise). */
  weekday: z.string(),
  hour: z.int().min(0).max(22),
  durationMins: z.int().min(5).max(240),
  title: z.string().min(1),
  description: z.string().min(1),
  existing: z.array(EventSchema),
});
type RelativeP = z.infer<typeof Relative>;

/** The words the instruction uses for the day. */
function whenWords(p: RelativeP): string {
  return p.when === 'tomorrow' ? 'for tomorrow' : p.when === 'this weekday' ? `for this ${p.weekday}` : 'in two weeks from today';
}

/** The day meant, from the device's today (the instance's own reckoning, for its check). */
function meantDay(p: RelativeP): DateParts {
  const today = dateParts(DEVICE_NOW);
  return resolveDay(p.when === 'tomorrow' ? 'tomorrow' : p.when === 'this weekday' ? `this ${p.weekday}` : 'in two weeks from today', today);
}

export const AddEventOnRelativeDay = defineTask({
  id: 'CalendarAddEventOnRelativeDay',
  apps: ['Calendar'],
  difficulty: 'hard',
  tags: ['data_entry', 'date_time', 'complex_ui'],
  kind: 'completion',
  template: "In Simple Calendar Pro, create a calendar event {when} at {hour}h with the title '{title}' and the description '{description}'. The event should last for {duration_mins} mins.",
  params: Relative,
  maxSteps: 45,
  generate: (rng) => {
    const when = rng.pick(WHEN);
    const day = when === 'tomorrow' ? 1 : when === 'in two weeks' ? 14 : rng.int(1, 6);
    const title = eventTitles(rng, 1)[0]!;
    const others = eventTitles(rng, rng.int(2, 8), [title]);
    return {
      when, weekday: weekday(dateParts(DEVICE_NOW + day * DAY_MS)), hour: rng.int(1, 20), durationMins: rng.pick(DURATIONS), title,
      description: rng.pick(EVENT_NOTES), existing: others.map((t) => timedEvent(rng, t, dayAround(rng, -10, 30))),
    };
  },
  instruction: (p) => `In Simple Calendar Pro, create a calendar event ${whenWords(p)} at ${p.hour}h with the title '${p.title}' and the description '${p.description}'. The event should last for ${p.durationMins} mins.`,
  initialize: async (device, p) => {
    await clearEvents(device);
    await addEvents(device, p.existing.map(toInput));
  },
  check: async (device, p) => {
    const start = msOf(meantDay(p), p.hour);
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
    yield* openCalendar(ui);
    const today = yield* readToday(ui);
    const words = p.when === 'tomorrow' ? 'tomorrow' : p.when === 'this weekday' ? `this ${p.weekday}` : 'in two weeks from today';
    yield* newEvent(ui, { title: p.title, description: p.description, day: resolveDay(words, today), hour: p.hour, minutes: p.durationMins });
    yield ui.tap({ contentDesc: 'Save' });
    yield ui.complete();
  },
});

const REPEATS = { daily: 'Daily', weekly: 'Weekly' } as const;

const Repeating = z.object({
  date: DateSchema,
  hour: z.int().min(0).max(22),
  durationMins: z.int().min(5).max(240),
  title: z.string().min(1),
  description: z.string().min(1),
  repeat: z.enum(['daily', 'weekly']),
  existing: z.array(EventSchema),
});

export const AddRepeatingEvent = defineTask({
  id: 'CalendarAddRepeatingEvent',
  apps: ['Calendar'],
  difficulty: 'hard',
  tags: ['data_entry', 'date_time', 'complex_ui', 'dialog'],
  kind: 'completion',
  template: "In Simple Calendar Pro, create a recurring calendar event titled '{title}' starting on {year}-{month}-{day} at {hour}h. The event recurs {repeat}, forever, and lasts for {duration_mins} minutes each occurrence. The event description should be '{description}'.",
  params: Repeating,
  maxSteps: 45,
  generate: (rng) => {
    const title = eventTitles(rng, 1)[0]!;
    return {
      date: dayAround(rng, 0, 30), hour: rng.int(1, 20), durationMins: rng.pick(DURATIONS), title, description: rng.pick(EVENT_NOTES),
      repeat: rng.pick(['daily', 'weekly'] as const),
      existing: eventTitles(rng, rng.int(2, 10), [title]).map((t) => timedEvent(rng, t, dayAround(rng, -10, 30))),
    };
  },
  instruction: (p) => `In Simple Calendar Pro, create a recurring calendar event titled '${p.title}' starting on ${isoDate(p.date)} at ${p.hour}h. The event recurs ${p.repeat}, forever, and lasts for ${p.durationMins} minutes each occurrence. The event description should be '${p.description}'.`,
  initialize: async (device, p) => {
    await clearEvents(device);
    await addEvents(device, p.existing.map(toInput));
  },
  check: async (device, p) => {
    const start = msOf(p.date, p.hour);
    const want = { title: p.title, description: p.description, allDay: false, start, end: start + p.durationMins * MINUTE_MS, location: '' };
    const added = keptThenWanted(await listEvents(device), EVENT, p.existing, WITH_DESCRIPTION, [want], 'added');
    return verdictOf([...added, ...(await repeatingEvents(device, p.title, p.repeat, new Date(start).getUTCDay()))]);
  },
  subgoals: (p) => [
    calendarOpen,
    editorOpen,
    { name: 'repetition dialog open', check: async ({ obs }) => onScreen(obs, { text: 'No repetition', className: 'android.widget.RadioButton' }) },
    { name: `repeats ${p.repeat}`, check: async ({ obs }) => onScreen(obs, { resourceId: 'event_repetition', text: REPEATS[p.repeat] }) },
    savedWithTitle(p.title),
  ],
  *oracle(p, ui) {
    yield* openCalendar(ui);
    yield* newEvent(ui, { title: p.title, description: p.description, day: p.date, hour: p.hour, minutes: p.durationMins });
    yield ui.tap({ resourceId: 'event_repetition' });
    yield ui.tap({ text: REPEATS[p.repeat], className: 'android.widget.RadioButton' });
    yield ui.tap({ contentDesc: 'Save' });
    yield ui.complete();
  },
});

const DeleteRelative = z.object({ weekday: z.string(), targets: z.array(EventSchema).min(1), others: z.array(EventSchema) });

export const DeleteEventsOnRelativeDay = defineTask({
  id: 'CalendarDeleteEventsOnRelativeDay',
  apps: ['Calendar'],
  difficulty: 'hard',
  tags: ['deletion', 'dialog', 'date_time'],
  kind: 'completion',
  template: 'In Simple Calendar Pro, delete all events scheduled for this {weekday}.',
  params: DeleteRelative,
  maxSteps: 35,
  generate: (rng) => {
    const day = dateParts(DEVICE_NOW + rng.int(1, 6) * DAY_MS);
    const titles = eventTitles(rng, rng.int(4, 12));
    const n = rng.int(1, 3);
    return {
      weekday: weekday(day),
      targets: titles.slice(0, n).map((t) => timedEvent(rng, t, day)),
      others: titles.slice(n).map((t) => {
        let d = dayAround(rng, -7, 20);
        while (d.day === day.day && d.month === day.month) d = dayAround(rng, -7, 20);
        return timedEvent(rng, t, d);
      }),
    };
  },
  initialize: async (device, p) => {
    await clearEvents(device);
    await addEvents(device, [...p.others, ...p.targets].map(toInput));
  },
  check: async (device, p) => verdictOf(keptThenWanted(await listEvents(device), EVENT, p.others, EVENT, [], 'added')),
  subgoals: (p) => [
    calendarOpen,
    { name: `events of this ${p.weekday} deleted`, check: async ({ device }) => (await listEvents(device)).every((e) => !p.targets.some((t) => sameText(t.title, e.title))) },
  ],
  *oracle(p, ui) {
    yield* openCalendar(ui);
    const day = resolveDay(`this ${p.weekday}`, yield* readToday(ui));
    yield* openDay(ui, day);
    yield* deleteAllEventsShown(ui, 'day_events');
    yield ui.complete();
  },
});

export const RELATIVE_TASKS: readonly TaskTemplate[] = [AddEventOnRelativeDay, AddRepeatingEvent, DeleteEventsOnRelativeDay];

