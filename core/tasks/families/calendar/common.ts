import { z } from 'zod';
import { recordKind, type RecordField } from '../../validators/records.js';
import { monthNumber } from '../../../util/calendar-names.js';
import type { Action } from '../../../actions/schema.js';
import type { Rng } from '../../../util/rng.js';
import { launch, OracleError, screenSummary, scrollTo, type OracleUi } from '../../oracle.js';
import { enterTime, pickDate } from '../../pickers.js';
import { dateParts, DAY_MS, DEVICE_NOW, longDate, monthName, msOf, weekday, type DateParts } from '../../../seed-data/dates.js';
import { EVENT_LOCATIONS, EVENT_NOTES } from '../../../seed-data/events.js';
import type { Subgoal } from '../../task.js';
import { inActivity, onScreen } from '../../validators/ui.js';
import { CALENDAR_PKG, listEvents, type EventInput, type StoredEvent } from './calendar-db.js';

/**
 * What the Simple Calendar task family shares: event parameters and how to draw them, the strict
 * comparison checkers use (titles, locations and descriptions match case-insensitively after
 * trimming, as a person would not be told to mind the case; times must match to the minute), and
 * the oracle's moves through the month grid, the day view and the editor.
 */
export const MAIN_ACTIVITY = `${CALENDAR_PKG}.activities.MainActivity`;
export const EVENT_ACTIVITY = `${CALENDAR_PKG}.activities.EventActivity`;
export const HOUR_MS = 3_600_000;
export const MINUTE_MS = 60_000;

export const DateSchema = z.object({ year: z.int().min(2023).max(2025), month: z.int().min(1).max(12), day: z.int().min(1).max(31) });

export const EventSchema = z.object({
  title: z.string().min(1),
  start: z.int(),
  end: z.int(),
  location: z.string(),
  description: z.string(),
  allDay: z.boolean(),
});
export type EventParam = z.infer<typeof EventSchema>;

export const DURATIONS = [15, 30, 45, 60, 90, 120] as const;

/** A timed event on a day, starting on the hour or half hour between `fromHour` and `toHour`. */
export function timedEvent(rng: Rng, title: string, day: DateParts, o: { fromHour?: number; toHour?: number } = {}): EventParam {
  const start = msOf(day, rng.int(o.fromHour ?? 8, o.toHour ?? 19), rng.pick([0, 30]));
  return {
    title, start, end: start + rng.pick(DURATIONS) * MINUTE_MS,
    location: rng.chance(0.5) ? rng.pick(EVENT_LOCATIONS) : '',
    description: rng.chance(0.4) ? `${rng.pick(EVENT_NOTES)}.` : '',
    allDay: false,
  };
}

export function allDayEvent(title: string, day: DateParts): EventParam {
  const start = msOf(day);
  return { title, start, end: start + 12 * HOUR_MS, location: '', description: '', allDay: true };
}

/** A day `from`..`to` days after today (negative: before). */
export function dayAround(rng: Rng, from: number, to: number): DateParts {
  return dateParts(DEVICE_NOW + rng.int(from, to) * DAY_MS);
}

export function shiftDay(d: DateParts, days: number): DateParts {
  return dateParts(msOf(d) + days * DAY_MS);
}

export const sameDay = (a: DateParts, b: DateParts) => a.year === b.year && a.month === b.month && a.day === b.day;

export function toInput(e: EventParam): EventInput {
  return { title: e.title, start: e.start, end: e.end, location: e.location, description: e.description, allDay: e.allDay };
}

/** "Tuesday, October 24, 2023", the way instructions name days. */
export function dayText(d: DateParts): string {
  return `${weekday(d)}, ${longDate(d)}`;
}

// ------------------------------------------------------------------ checking

export const sameText = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** A time as the checker's reasons write it: "2024-03-05 14:30" (device time, UTC), with seconds when it has any. */
export const when = (ms: number) => new Date(ms).toISOString().slice(0, ms % 60_000 === 0 ? 16 : 19).replace('T', ' ');

type EventField = RecordField<StoredEvent, EventParam>;
const textField = (name: 'title' | 'location' | 'description'): EventField => ({
  name, got: (s) => JSON.stringify(s[name]), want: (e) => JSON.stringify(e[name]), same: (s, e) => sameText(s[name], e[name]),
});
/** An event's fields as checkers compare them (text without case or outer spaces, times exactly), in words. */
export const EVENT_FIELDS = {
  title: textField('title'),
  start: { name: 'start', got: (s) => when(s.start), want: (e) => when(e.start), same: (s, e) => s.start === e.start },
  end: { name: 'end', got: (s) => when(s.end), want: (e) => when(e.end), same: (s, e) => s.end === e.end },
  location: textField('location'),
  description: textField('description'),
  allDay: { name: 'all-day', got: (s) => (s.allDay ? 'yes' : 'no'), want: (e) => (e.allDay ? 'yes' : 'no'), same: (s, e) => s.allDay === e.allDay },
} satisfies Record<string, EventField>;

/** Events compared on these fields (title first: an event's identity), labelled by title. */
export function eventKind(fields: readonly [EventField, ...EventField[]]) {
  return recordKind<StoredEvent, EventParam>('event', (e) => JSON.stringify(e.title), (s) => s.title, fields);
}
/** An event exactly: same title, times, location, description and all-day flag. */
export const EVENT = eventKind([EVENT_FIELDS.title, EVENT_FIELDS.start, EVENT_FIELDS.end, EVENT_FIELDS.location, EVENT_FIELDS.description, EVENT_FIELDS.allDay]);

/** The stored event is exactly this one (as `EVENT` compares them). */
export const isEvent = (s: StoredEvent, e: EventParam): boolean => EVENT.same(s, e);

// ------------------------------------------------------------------ oracle moves

export function* openCalendar(ui: OracleUi): Generator<Action, void, void> {
  yield* launch(ui, 'Calendar');
}


/** Pages the month view with its arrows until the month of `date` shows. */
export function* gotoMonth(ui: OracleUi, date: DateParts): Generator<Action, void, void> {
  for (let guard = 0; guard < 36; guard++) {
    const header = ui.require({ resourceId: 'top_value' }).node.text;
    const m = /^(\w+) (\d{4})$/.exec(header);
    if (!m) throw new OracleError(`Not on the month view: header ${JSON.stringify(header)}`, screenSummary(ui.obs));
    const shown = Number(m[2]) * 12 + monthNumber(m[1]!) - 1;
    const want = date.year * 12 + date.month - 1;
    if (shown === want) return;
    yield ui.tap({ resourceId: shown < want ? 'top_right_arrow' : 'top_left_arrow' });
  }
  throw new OracleError('Month view never reached the month', screenSummary(ui.obs));
}

export function cellDesc(d: DateParts): string {
  return `${d.day} ${monthName(d.month)} ${d.year}`;
}

/** Taps a month cell on its day number (the lower right cells lie under the FAB). */
export function tapDay(ui: OracleUi, d: DateParts): Action {
  const b = ui.require({ contentDesc: cellDesc(d) }).node.bounds;
  return { action_type: 'click', x: Math.round((b.left + b.right) / 2), y: Math.round(b.top + Math.min(30, (b.bottom - b.top) / 3)) };
}

/** From the launched app's month view: the day view of `d`. */
export function* openDay(ui: OracleUi, d: DateParts): Generator<Action, void, void> {
  yield* gotoMonth(ui, d);
  yield tapDay(ui, d);
}

/** Opens an event of the day view in the editor. */
export function* openEventInDay(ui: OracleUi, title: string): Generator<Action, void, void> {
  const el = yield* scrollTo(ui, { resourceId: 'event_item_title', text: title }, { within: { resourceId: 'day_events' } });
  yield ui.tap(el);
}

/** The titles of the day view's events, scrolling through them. */
export function* readDayTitles(ui: OracleUi): Generator<Action, string[], void> {
  const seen: string[] = [];
  for (let i = 0; i < 20; i++) {
    for (const el of ui.findAll({ resourceId: 'event_item_title' })) if (!seen.includes(el.node.text)) seen.push(el.node.text);
    const list = ui.find({ resourceId: 'day_events' });
    if (!list?.node.scrollable) return seen;
    const before = ui.fingerprint();
    yield ui.scroll('down', { resourceId: 'day_events' });
    if (ui.fingerprint() === before) return seen;
  }
  return seen;
}

export function* setEditorDate(ui: OracleUi, which: 'start' | 'end', d: DateParts): Generator<Action, void, void> {
  yield ui.tap({ resourceId: `event_${which}_date` });
  yield* pickDate(ui, d);
}

export function* setEditorTime(ui: OracleUi, which: 'start' | 'end', ms: number): Generator<Action, void, void> {
  const t = new Date(ms);
  yield ui.tap({ resourceId: `event_${which}_time` });
  yield* enterTime(ui, t.getUTCHours(), t.getUTCMinutes());
}

// ------------------------------------------------------------------ subgoals

export const calendarOpen: Subgoal = { name: 'Calendar open', check: async ({ obs }) => inActivity(obs, CALENDAR_PKG) };

export const editorOpen: Subgoal = { name: 'event editor open', check: async ({ obs }) => inActivity(obs, CALENDAR_PKG, EVENT_ACTIVITY) };

export function dayOpen(d: DateParts): Subgoal {
  return {
    name: `day ${longDate(d)} shown`,
    check: async ({ obs }) => inActivity(obs, CALENDAR_PKG, MAIN_ACTIVITY) && onScreen(obs, { resourceId: 'top_value', text: dayText(d) }),
  };
}

export function eventOpen(title: string): Subgoal {
  return {
    name: `"${title}" open in the editor`,
    check: async ({ obs }) => inActivity(obs, CALENDAR_PKG, EVENT_ACTIVITY) && obs.elements.some((e) => e.node.resourceId.endsWith(':id/event_title') && sameText(e.node.text, title)),
  };
}

/** Subgoal: an event with this title is stored (the editor's Save went through). */
export function savedWithTitle(title: string): Subgoal {
  return { name: `event "${title}" saved`, check: async ({ device }) => (await listEvents(device)).some((e) => sameText(e.title, title)) };
}
