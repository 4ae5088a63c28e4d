import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import { defineTask, type Difficulty, type TaskTemplate } from '../../task.js';
import { dateParts, DAY_MS, DEVICE_NOW, msOf, type DateParts } from '../../../seed-data/dates.js';
import { EVENT_LOCATIONS, eventTitles } from '../../../seed-data/events.js';
import { FIRST_NAMES } from '../../../seed-data/people.js';
import type { Rng } from '../../../util/rng.js';
import { OracleError, screenSummary, scrollTo, type OracleUi } from '../../oracle.js';
import { resolveDay, wordDay, fullDate } from '../../day-phrases.js';
import { answerListVerdict, answerVerdict } from '../../validators/answers.js';
import { addEvents, clearEvents } from './calendar-db.js';
import { calendarOpen, EventSchema, MINUTE_MS, openCalendar, toInput, type EventParam } from './common.js';
import { dayShown, parseDayTitle, readDayEvents, restoreView, startMinutes, stepToDay, toDailyView, type ShownEvent } from './days.js';
import { openClockTab } from '../clock/common.js';

/**
 * Questions about the schedule, worded as AndroidWorld's Simple Calendar information-retrieval
 * templates word them (SimpleCalendarEventsOnDate, …AnyEventsOnDate, …EventOnDateAtTime,
 * …EventsInNextWeek, …EventsInTimeRange, …FirstEventAfterStartTime, …LocationOfEvent,
 * …NextMeetingWithPerson): days as "October 24 2023", "tomorrow", "this Tuesday"…, times as
 * "20:00", "4pm", "10:30am". The calendar holds a month of other events around today. The oracle
 * reads today in the daily view, steps through days reading their events and times, and reads the
 * time of day off the Clock where "upcoming" matters.
 */
const Params = z.object({
  /** How the question words the day (empty when it names none). */
  day: z.string(),
  /** How it words a time (empty when it names none). */
  time: z.string(),
  /** A title or a person the question names (empty when none). */
  name: z.string(),
  events: z.array(EventSchema),
});
type P = z.infer<typeof Params>;

const TODAY = dateParts(DEVICE_NOW);

/** "20:00", "8pm", "10:30am", "12pm", "12am" → minutes after midnight. */
export function clockWords(text: string): number {
  const m = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/i.exec(text.trim());
  if (!m) throw new OracleError(`Not a time: ${JSON.stringify(text)}`, '');
  const h = Number(m[1]);
  const ampm = m[3]?.toLowerCase();
  const hour = ampm ? (h % 12) + (ampm === 'pm' ? 12 : 0) : h;
  return hour * 60 + Number(m[2] ?? 0);
}

/** A time as AndroidWorld's questions write one. */
function wordTime(rng: Rng, minutes: number): string {
  const h = Math.floor(minutes / 60);
  const mm = minutes % 60;
  const h12 = h % 12 === 0 ? 12 : h % 12;
  const ap = h < 12 ? 'am' : 'pm';
  return rng.pick(mm === 0 ? [`${h}:00`, `${h12}${ap}`, `${h12}:00${ap}`] : [`${h}:${String(mm).padStart(2, '0')}`, `${h12}:${String(mm).padStart(2, '0')}${ap}`]);
}

/** An event at `minutes` on day `d`, lasting 15–60 minutes. */
function at(rng: Rng, title: string, d: DateParts, minutes: number, location = ''): EventParam {
  const start = msOf(d) + minutes * MINUTE_MS;
  return { title, start, end: start + rng.pick([15, 30, 45, 60]) * MINUTE_MS, location, description: '', allDay: false };
}

/** Other events over the month around today, none on `avoid` days, titles not in `taken`. */
function around(rng: Rng, count: number, taken: readonly string[], keep: (e: EventParam) => boolean): EventParam[] {
  const out: EventParam[] = [];
  for (const title of eventTitles(rng, count, [...taken])) {
    for (let tries = 0; tries < 50; tries++) {
      const e = at(rng, title, dateParts(DEVICE_NOW + rng.int(-15, 15) * DAY_MS), rng.int(6 * 4, 21 * 4) * 15, rng.chance(0.3) ? rng.pick(EVENT_LOCATIONS) : '');
      if (keep(e)) {
        out.push(e);
        break;
      }
    }
  }
  return out;
}

const dayOf = (e: EventParam) => dateParts(e.start);
const minutesOf = (e: EventParam) => Math.round((e.start - msOf(dayOf(e))) / MINUTE_MS);
const same = (a: DateParts, b: DateParts) => a.year === b.year && a.month === b.month && a.day === b.day;

// ------------------------------------------------------------------ oracle moves

/** In the calendar: today (daily view), then `fn` on the daily view, then the chosen view back. */
function* onDailyView<T>(ui: OracleUi, fn: (today: DateParts) => Generator<Action, T, void>): Generator<Action, T, void> {
  yield* openCalendar(ui);
  const was = yield* toDailyView(ui);
  const out = yield* fn(dayShown(ui));
  yield* restoreView(ui, was);
  return out;
}

function* eventsOn(ui: OracleUi, d: DateParts): Generator<Action, ShownEvent[], void> {
  yield* stepToDay(ui, d);
  return yield* readDayEvents(ui);
}

/** The time of day, off the Clock's clock tab ("3:34 PM" or "15:34"). */
function* timeOfDay(ui: OracleUi): Generator<Action, number, void> {
  yield* openClockTab(ui, 'clock');
  const shown = startMinutes(ui.require({ resourceId: 'digital_clock' }).node.text);
  if (shown === null) throw new OracleError('The clock shows no time', screenSummary(ui.obs));
  return shown;
}

interface ListedEvent {
  title: string;
  day: DateParts;
  start: number | null;
}

/** The simple event list from the top: events with their days (section titles) and start times, until `enough` says stop. */
function* readEventList(ui: OracleUi, enough: (seen: readonly ListedEvent[]) => boolean): Generator<Action, ListedEvent[], void> {
  yield ui.tap({ contentDesc: 'Change view' });
  const was = ui.find({ className: 'android.widget.RadioButton', checked: true })?.node.text ?? 'Monthly view';
  yield ui.tap({ text: 'Simple event list' });
  const seen = yield* readListRows(ui, enough);
  yield* restoreView(ui, was);
  return seen;
}

function* readListRows(ui: OracleUi, enough: (seen: readonly ListedEvent[]) => boolean): Generator<Action, ListedEvent[], void> {
  const seen: ListedEvent[] = [];
  let day: DateParts | null = null;
  for (let i = 0; i < 40; i++) {
    // Rows and section titles in screen order; a screen may start inside the last section seen.
    const rows = ui.obs.elements.filter((e) => e.node.resourceId.endsWith(':id/event_section_title') || e.node.resourceId.endsWith(':id/event_item_holder'));
    for (const e of rows) {
      if (e.node.resourceId.endsWith(':id/event_section_title')) {
        day = parseDayTitle(e.node.text);
        continue;
      }
      if (day === null) continue;
      const title = e.node.children.flatMap((c) => c.children).find((c) => c.resourceId.endsWith(':id/event_item_title'))?.text;
      const time = e.node.children.flatMap((c) => c.children).find((c) => c.resourceId.endsWith(':id/event_item_time'))?.text;
      if (title === undefined || time === undefined) continue;
      const ev = { title, day, start: startMinutes(time) };
      if (!seen.some((s) => s.title === ev.title && same(s.day, ev.day) && s.start === ev.start)) seen.push(ev);
    }
    if (enough(seen)) return seen;
    const before = ui.fingerprint();
    yield ui.scroll('down', { resourceId: 'calendar_events_list' });
    if (ui.fingerprint() === before) return seen;
  }
  return seen;
}

function titles(es: ReadonlyArray<{ title: string }>): string {
  return es.map((e) => e.title).join(', ');
}

// ------------------------------------------------------------------ templates

interface Question {
  id: string;
  difficulty: Difficulty;
  template: string;
  generate(rng: Rng): P;
  /** The expected answer, from the instance's events (for the check). */
  answer(p: P): string[] | string;
  oracle(p: P, ui: OracleUi): Generator<Action, string, void>;
}

function question(q: Question): TaskTemplate<P> {
  return defineTask({
    id: q.id,
    apps: ['Calendar'],
    difficulty: q.difficulty,
    tags: ['information_retrieval', 'date_time', 'screen_reading'],
    kind: 'information_retrieval',
    template: q.template,
    params: Params,
    maxSteps: 45,
    generate: q.generate,
    instruction: (p) => q.template.replace('{day}', p.day).replace('{time}', p.time).replace('{name}', p.name),
    initialize: async (device, p) => {
      await clearEvents(device);
      await addEvents(device, p.events.map(toInput));
    },
    check: async (_device, p, episode) => {
      const want = q.answer(p);
      return typeof want === 'string' ? answerVerdict(episode.answer, want) : answerListVerdict(episode.answer, want);
    },
    subgoals: () => [calendarOpen],
    *oracle(p, ui) {
      yield ui.answer(yield* q.oracle(p, ui));
    },
  });
}

/** A day within two weeks either side of today, worded, with `n` events on it (distinct start times) and the month around. */
function dayQuestion(rng: Rng, n: [number, number], o: { bare?: 'coming' | 'past'; future?: boolean } = {}): { p: P; onDay: EventParam[]; d: DateParts } {
  const d = dateParts(DEVICE_NOW + rng.int(o.future ? 0 : -7, 14) * DAY_MS);
  const slots = rng.sample(Array.from({ length: 56 }, (_, i) => 7 * 60 + i * 15), rng.int(n[0], n[1])).sort((a, b) => a - b);
  const names = eventTitles(rng, slots.length);
  const onDay = slots.map((m, i) => at(rng, names[i]!, d, m));
  const others = around(rng, rng.int(15, 35), names, (e) => !same(dayOf(e), d));
  return { p: { day: wordDay(rng, d, TODAY, o.bare ?? 'coming'), time: '', name: '', events: rng.shuffle([...onDay, ...others]) }, onDay, d };
}

function onDayOf(p: P): EventParam[] {
  const d = resolveDay(p.day, TODAY);
  return p.events.filter((e) => same(dayOf(e), d)).sort((a, b) => a.start - b.start);
}

const ANSWER = 'Answer with the titles only. If there are multiple titles, format your answer as a comma separated list.';

export const EventsOnDateQuestion = question({
  id: 'CalendarEventsOnDateQuestion',
  difficulty: 'medium',
  template: `What events do I have {day} in Simple Calendar Pro? ${ANSWER}`,
  generate: (rng) => dayQuestion(rng, [1, 4]).p,
  answer: (p) => onDayOf(p).map((e) => e.title),
  *oracle(p, ui) {
    return titles(yield* onDailyView(ui, (today) => eventsOn(ui, resolveDay(p.day, today))));
  },
});

export const AnyEventsOnDateQuestion = question({
  id: 'CalendarAnyEventsOnDateQuestion',
  difficulty: 'medium',
  template: `Do I have any events {day} in Simple Calendar Pro? ${ANSWER}`,
  generate: (rng) => dayQuestion(rng, [1, 3]).p,
  answer: (p) => onDayOf(p).map((e) => e.title),
  *oracle(p, ui) {
    return titles(yield* onDailyView(ui, (today) => eventsOn(ui, resolveDay(p.day, today))));
  },
});

export const EventAtTimeQuestion = question({
  id: 'CalendarEventAtTimeQuestion',
  difficulty: 'medium',
  template: `What is on my schedule for {day} at {time} in Simple Calendar Pro? ${ANSWER}`,
  generate: (rng) => {
    const { p, onDay } = dayQuestion(rng, [2, 5]);
    return { ...p, time: wordTime(rng, minutesOf(rng.pick(onDay))) };
  },
  answer: (p) => onDayOf(p).filter((e) => minutesOf(e) === clockWords(p.time)).map((e) => e.title),
  *oracle(p, ui) {
    const events = yield* onDailyView(ui, (today) => eventsOn(ui, resolveDay(p.day, today)));
    return titles(events.filter((e) => e.start === clockWords(p.time)));
  },
});

export const EventsInTimeRangeQuestion = question({
  id: 'CalendarEventsInTimeRangeQuestion',
  difficulty: 'hard',
  template: `Do I have any events between {time} and 8pm {day} in Simple Calendar Pro? ${ANSWER}`,
  generate: (rng) => {
    const { p, onDay } = dayQuestion(rng, [2, 6]);
    const from = rng.pick(onDay.map(minutesOf).filter((m) => m < 20 * 60).concat([12 * 60, 14 * 60, 16 * 60]));
    return { ...p, time: wordTime(rng, from) };
  },
  answer: (p) => onDayOf(p).filter((e) => minutesOf(e) >= clockWords(p.time) && minutesOf(e) <= 20 * 60).map((e) => e.title),
  *oracle(p, ui) {
    const events = yield* onDailyView(ui, (today) => eventsOn(ui, resolveDay(p.day, today)));
    return titles(events.filter((e) => e.start !== null && e.start >= clockWords(p.time) && e.start <= 20 * 60));
  },
});

export const FirstEventAfterQuestion = question({
  id: 'CalendarFirstEventAfterQuestion',
  difficulty: 'hard',
  template: `What is my first event after {time} {day} in Simple Calendar Pro? ${ANSWER}`,
  generate: (rng) => {
    const { p, onDay } = dayQuestion(rng, [2, 6]);
    const first = rng.int(0, onDay.length - 1);
    // A time at or before that event's, after the one before it.
    const lo = first === 0 ? 6 * 60 : minutesOf(onDay[first - 1]!) + 15;
    return { ...p, time: wordTime(rng, Math.max(lo, minutesOf(onDay[first]!) - rng.pick([0, 15, 30]))) };
  },
  answer: (p) => {
    const later = onDayOf(p).filter((e) => minutesOf(e) >= clockWords(p.time));
    return later.filter((e) => e.start === later[0]?.start).map((e) => e.title);
  },
  *oracle(p, ui) {
    const events = (yield* onDailyView(ui, (today) => eventsOn(ui, resolveDay(p.day, today)))).filter((e) => e.start !== null && e.start >= clockWords(p.time));
    const first = Math.min(...events.map((e) => e.start!));
    return titles(events.filter((e) => e.start === first));
  },
});

/** Monday to Sunday of the week after today's (AndroidWorld: "the next week … starts from Monday"). */
function nextWeek(today: DateParts): DateParts[] {
  const dow = (new Date(msOf(today)).getUTCDay() + 6) % 7;
  const monday = msOf(today) + (7 - dow) * DAY_MS;
  return Array.from({ length: 7 }, (_, i) => dateParts(monday + i * DAY_MS));
}

export const EventsNextWeekQuestion = question({
  id: 'CalendarEventsNextWeekQuestion',
  difficulty: 'hard',
  template: `What events do I have in the next week in Simple Calendar Pro? Assume the week starts from Monday. ${ANSWER}`,
  generate: (rng) => {
    const week = nextWeek(TODAY);
    const names = eventTitles(rng, rng.int(1, 4));
    const inWeek = names.map((t) => at(rng, t, rng.pick(week), rng.int(7 * 4, 20 * 4) * 15));
    const inRange = (e: EventParam) => week.some((d) => same(d, dayOf(e))) || same(dayOf(e), TODAY);
    return { day: '', time: '', name: '', events: rng.shuffle([...inWeek, ...around(rng, rng.int(15, 35), names, (e) => !inRange(e))]) };
  },
  answer: (p) => p.events.filter((e) => nextWeek(TODAY).some((d) => same(d, dayOf(e)))).sort((a, b) => a.start - b.start).map((e) => e.title),
  *oracle(_p, ui) {
    const found = yield* onDailyView(ui, function* (today) {
      const out: ShownEvent[] = [];
      for (const d of nextWeek(today)) out.push(...(yield* eventsOn(ui, d)));
      return out;
    });
    return titles(found);
  },
});

export const EventLocationQuestion = question({
  id: 'CalendarEventLocationQuestion',
  difficulty: 'medium',
  template: 'What is the location of my {name} event in Simple Calendar Pro? Answer with the location only.',
  generate: (rng) => {
    const [title] = eventTitles(rng, 1);
    const target = at(rng, title!, dateParts(DEVICE_NOW + rng.int(0, 14) * DAY_MS), rng.int(7 * 4, 20 * 4) * 15, rng.pick(EVENT_LOCATIONS));
    const others = around(rng, rng.int(15, 35), [title!], (e) => !e.title.toLowerCase().includes(title!.toLowerCase()));
    return { day: '', time: '', name: title!, events: rng.shuffle([target, ...others]) };
  },
  answer: (p) => p.events.find((e) => e.title.toLowerCase().includes(p.name.toLowerCase()))!.location,
  *oracle(p, ui) {
    yield* openCalendar(ui);
    yield ui.tap({ contentDesc: 'Change view' });
    const was = ui.find({ className: 'android.widget.RadioButton', checked: true })?.node.text ?? 'Monthly view';
    yield ui.tap({ text: 'Simple event list' });
    const want = p.name.toLowerCase();
    const row = yield* scrollTo(ui, { resourceId: 'event_item_title', text: new RegExp(want.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i') }, { within: { resourceId: 'calendar_events_list' } });
    yield ui.tap(row);
    const location = ui.require({ resourceId: 'event_location' }).node.text;
    yield ui.back();
    yield* restoreView(ui, was);
    return location === 'Location' ? '' : location;
  },
});

export const NextMeetingQuestion = question({
  id: 'CalendarNextMeetingQuestion',
  difficulty: 'hard',
  template: 'When is my next meeting with {name} in Simple Calendar Pro? Express your answer in the format <month name> <day> <year> <hour in 24-hour format>:<minutes>.',
  generate: (rng) => {
    const person = rng.pick(FIRST_NAMES);
    const d = dateParts(DEVICE_NOW + rng.int(1, 14) * DAY_MS);
    const target = at(rng, `${rng.pick(['Drinks with', 'Lunch with', 'Call with', 'Meeting with'])} ${person}`, d, rng.int(7 * 4, 20 * 4) * 15);
    // Meetings with the same person only in the past.
    const before = at(rng, `Coffee with ${person}`, dateParts(DEVICE_NOW - rng.int(1, 10) * DAY_MS), rng.int(7 * 4, 20 * 4) * 15);
    const others = around(rng, rng.int(15, 35), [target.title], (e) => !e.title.includes(person));
    return { day: '', time: '', name: person, events: rng.shuffle([target, ...(rng.chance(0.5) ? [before] : []), ...others]) };
  },
  answer: (p) => {
    const next = p.events.filter((e) => e.title.includes(p.name) && e.start >= DEVICE_NOW).sort((a, b) => a.start - b.start)[0]!;
    const m = minutesOf(next);
    return `${fullDate(dayOf(next))} ${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  },
  *oracle(p, ui) {
    const now = yield* timeOfDay(ui);
    yield* openCalendar(ui);
    const today = yield* readTodayHere(ui);
    const upcoming = (e: ListedEvent) => e.start !== null && (!same(e.day, today) || e.start >= now);
    const hit = (e: ListedEvent) => e.title.toLowerCase().includes(p.name.toLowerCase()) && upcoming(e);
    const seen = yield* readEventList(ui, (s) => s.some(hit));
    const next = seen.find(hit);
    if (!next) throw new OracleError(`No upcoming meeting with ${p.name}`, screenSummary(ui.obs));
    return `${fullDate(next.day)} ${String(Math.floor(next.start! / 60)).padStart(2, '0')}:${String(next.start! % 60).padStart(2, '0')}`;
  },
});

/** Today, read in the daily view of the calendar already open (the view put back after). */
function* readTodayHere(ui: OracleUi): Generator<Action, DateParts, void> {
  const was = yield* toDailyView(ui);
  const today = dayShown(ui);
  yield* restoreView(ui, was);
  return today;
}

/** The first event that starts after now (the Clock's time), from the simple event list. */
export function* nextEventTitle(ui: OracleUi): Generator<Action, string, void> {
  const now = yield* timeOfDay(ui);
  yield* openCalendar(ui);
  const today = yield* readTodayHere(ui);
  const upcoming = (e: ListedEvent) => e.start !== null && (!same(e.day, today) || e.start >= now);
  const seen = yield* readEventList(ui, (s) => s.some(upcoming));
  const first = seen.find(upcoming);
  if (!first) throw new OracleError('No upcoming event', screenSummary(ui.obs));
  return titles(seen.filter((e) => upcoming(e) && same(e.day, first.day) && e.start === first.start));
}

export const SCHEDULE_QUESTION_TASKS: readonly TaskTemplate[] = [
  EventsOnDateQuestion, AnyEventsOnDateQuestion, EventAtTimeQuestion, EventsInTimeRangeQuestion, FirstEventAfterQuestion,
  EventsNextWeekQuestion, EventLocationQuestion, NextMeetingQuestion,
];
