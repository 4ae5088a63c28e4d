import type { Db } from '../../system/databases.js';
import { DAY_S, occurrenceStarts, type Repeat } from './repeat.js';

/**
 * Simple Calendar Pro's Room database, events.db, with the columns of its `events` and
 * `event_types` entities. Times are unix seconds (the real app stores `DateTime.seconds()`); the
 * app converts to milliseconds at the edges. Column defaults are an addition of ours so that
 * shell inserts naming a few columns (as tasks write them) produce rows the app can show.
 */
export const CALENDAR_PKG = 'com.simplemobiletools.calendar.pro';
export const EVENTS_DB_PATH = `/data/data/${CALENDAR_PKG}/databases/events.db`;

export const EVENTS_SCHEMA = `
CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  start_ts INTEGER NOT NULL DEFAULT 0,
  end_ts INTEGER NOT NULL DEFAULT 0,
  title TEXT NOT NULL DEFAULT '',
  location TEXT NOT NULL DEFAULT '',
  description TEXT NOT NULL DEFAULT '',
  reminder_1_minutes INTEGER NOT NULL DEFAULT -1,
  reminder_2_minutes INTEGER NOT NULL DEFAULT -1,
  reminder_3_minutes INTEGER NOT NULL DEFAULT -1,
  reminder_1_type INTEGER NOT NULL DEFAULT 0,
  reminder_2_type INTEGER NOT NULL DEFAULT 0,
  reminder_3_type INTEGER NOT NULL DEFAULT 0,
  repeat_interval INTEGER NOT NULL DEFAULT 0,
  repeat_rule INTEGER NOT NULL DEFAULT 0,
  repeat_limit INTEGER NOT NULL DEFAULT 0,
  repetition_exceptions TEXT NOT NULL DEFAULT '[]',
  attendees TEXT NOT NULL DEFAULT '[]',
  import_id TEXT NOT NULL DEFAULT '',
  time_zone TEXT NOT NULL DEFAULT 'UTC',
  flags INTEGER NOT NULL DEFAULT 0,
  event_type INTEGER NOT NULL DEFAULT 1,
  parent_id INTEGER NOT NULL DEFAULT 0,
  last_updated INTEGER NOT NULL DEFAULT 0,
  source TEXT NOT NULL DEFAULT 'simple-calendar',
  availability INTEGER NOT NULL DEFAULT 0,
  color INTEGER NOT NULL DEFAULT 0,
  type INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX index_events_id ON events (id);
CREATE TABLE event_types (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  title TEXT NOT NULL,
  color INTEGER NOT NULL,
  caldav_calendar_id INTEGER NOT NULL DEFAULT 0,
  caldav_display_name TEXT NOT NULL DEFAULT '',
  caldav_email TEXT NOT NULL DEFAULT '',
  type INTEGER NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX index_event_types_id ON event_types (id);
INSERT INTO event_types (id, title, color) VALUES (1, 'Regular event', -16746133);
`;

export const FLAG_ALL_DAY = 1;
export const REMINDER_OFF = -1;
/** The real app's default for new events (Settings › Default reminder 1). */
export const DEFAULT_REMINDER = 10;

/** An event as the screens use it: times in milliseconds. */
export interface CalEvent {
  id: number;
  start: number;
  end: number;
  title: string;
  location: string;
  description: string;
  allDay: boolean;
  reminder: number;
  /** The event type's colour, #rrggbb. */
  color: `#${string}`;
  repeat: Repeat;
}

/** What the editor saves. */
export type EventDraft = Omit<CalEvent, 'id' | 'color'>;

interface Row {
  id: number;
  start_ts: number;
  end_ts: number;
  title: string;
  location: string;
  description: string;
  flags: number;
  reminder_1_minutes: number;
  repeat_interval: number;
  repeat_rule: number;
  repeat_limit: number;
  color: number;
  type_color: number | null;
}

/** Android colour ints are signed ARGB. */
function hexColor(argb: number): `#${string}` {
  return `#${((argb >>> 0) & 0xffffff).toString(16).padStart(6, '0').toUpperCase()}`;
}

function fromRow(r: Row): CalEvent {
  return {
    id: r.id,
    start: r.start_ts * 1000,
    end: r.end_ts * 1000,
    title: r.title,
    location: r.location,
    description: r.description,
    allDay: (r.flags & FLAG_ALL_DAY) !== 0,
    reminder: r.reminder_1_minutes,
    color: hexColor(r.color !== 0 ? r.color : (r.type_color ?? -16746133)),
    repeat: { interval: r.repeat_interval, rule: r.repeat_rule, limit: r.repeat_limit },
  };
}

const SELECT = `SELECT e.id, e.start_ts, e.end_ts, e.title, e.location, e.description, e.flags, e.reminder_1_minutes,
  e.repeat_interval, e.repeat_rule, e.repeat_limit, e.color, t.color AS type_color FROM events e LEFT JOIN event_types t ON t.id = e.event_type`;
// All-day events first in a day, as the real day and list views order them.
const ORDER = 'ORDER BY (e.flags & 1) DESC, e.start_ts, e.end_ts, e.title COLLATE NOCASE, e.id';

/**
 * Events overlapping [fromMs, toMs), repeating ones as each of their occurrences there (same id,
 * the occurrence's times). A zero-length event counts on the day it starts; one ending exactly at
 * midnight does not spill into the next day.
 */
export function eventsBetween(db: Db, fromMs: number, toMs: number): CalEvent[] {
  const from = Math.floor(fromMs / 1000);
  const to = Math.floor(toMs / 1000);
  const once = db.prepare(`${SELECT} WHERE e.type = 0 AND e.repeat_interval = 0 AND e.start_ts < ? AND (e.end_ts > ? OR e.start_ts >= ?) ${ORDER}`).all(to, from, from) as Row[];
  const repeating = db.prepare(`${SELECT} WHERE e.type = 0 AND e.repeat_interval > 0 AND e.start_ts < ?`).all(to) as Row[];
  const overlaps = (e: CalEvent) => e.start < toMs && (e.end > fromMs || e.start >= fromMs);
  const all = [...once.map(fromRow), ...repeating.flatMap((r) => occurrences(fromRow(r), fromMs, toMs)).filter(overlaps)];
  return all.sort(byDayOrder);
}

/** An event's occurrences starting before `toMs` that may overlap `fromMs` (one for a single event). */
function occurrences(e: CalEvent, fromMs: number, toMs: number): CalEvent[] {
  const duration = e.end - e.start;
  return occurrenceStarts(e.start, e.repeat, fromMs, toMs, duration).map((start) => ({ ...e, start, end: start + duration }));
}

/** All-day first, then by start, end, title and id, as ORDER sorts rows. */
function byDayOrder(a: CalEvent, b: CalEvent): number {
  return Number(b.allDay) - Number(a.allDay) || a.start - b.start || a.end - b.end
    || a.title.toLowerCase().localeCompare(b.title.toLowerCase()) || a.id - b.id;
}

/** How far ahead the simple event list shows the occurrences of repeating events. */
const LIST_AHEAD_MS = 366 * DAY_S * 1000;

/** Events that have not ended before `fromMs`, soonest first (the "Simple event list"); repeating ones for a year ahead. */
export function eventsFrom(db: Db, fromMs: number): CalEvent[] {
  const from = Math.floor(fromMs / 1000);
  const once = db.prepare(`${SELECT} WHERE e.type = 0 AND e.repeat_interval = 0 AND (e.end_ts >= ? OR e.start_ts >= ?)`).all(from, from) as Row[];
  const repeating = db.prepare(`${SELECT} WHERE e.type = 0 AND e.repeat_interval > 0`).all() as Row[];
  const all = [...once.map(fromRow), ...repeating.flatMap((r) => occurrences(fromRow(r), fromMs, fromMs + LIST_AHEAD_MS))
    .filter((e) => e.end >= fromMs || e.start >= fromMs)];
  return all.sort((a, b) => a.start - b.start || Number(b.allDay) - Number(a.allDay) || a.title.toLowerCase().localeCompare(b.title.toLowerCase()) || a.id - b.id);
}

export function getEvent(db: Db, id: number): CalEvent | undefined {
  const row = db.prepare(`${SELECT} WHERE e.id = ?`).get(id) as Row | undefined;
  return row ? fromRow(row) : undefined;
}

function values(d: EventDraft, nowMs: number) {
  return {
    repeat_interval: d.repeat.interval,
    repeat_rule: d.repeat.rule,
    repeat_limit: d.repeat.limit,
    start_ts: Math.floor(d.start / 1000),
    end_ts: Math.floor(d.end / 1000),
    title: d.title,
    location: d.location,
    description: d.description,
    reminder_1_minutes: d.reminder,
    flags: d.allDay ? FLAG_ALL_DAY : 0,
    last_updated: nowMs,
  };
}

export function insertEvent(db: Db, d: EventDraft, nowMs: number): number {
  const v = values(d, nowMs);
  const r = db.prepare(`INSERT INTO events (start_ts, end_ts, title, location, description, reminder_1_minutes, flags, last_updated,
    repeat_interval, repeat_rule, repeat_limit, time_zone, source, event_type)
    VALUES (@start_ts, @end_ts, @title, @location, @description, @reminder_1_minutes, @flags, @last_updated,
    @repeat_interval, @repeat_rule, @repeat_limit, 'UTC', 'simple-calendar', 1)`).run(v);
  return Number(r.lastInsertRowid);
}

export function updateEvent(db: Db, id: number, d: EventDraft, nowMs: number): void {
  db.prepare(`UPDATE events SET start_ts = @start_ts, end_ts = @end_ts, title = @title, location = @location, description = @description,
    reminder_1_minutes = @reminder_1_minutes, flags = (flags & ~1) | @flags, last_updated = @last_updated,
    repeat_interval = @repeat_interval, repeat_rule = @repeat_rule, repeat_limit = @repeat_limit WHERE id = @id`).run({ ...values(d, nowMs), id });
}

export function deleteEvent(db: Db, id: number): void {
  db.prepare('DELETE FROM events WHERE id = ?').run(id);
}

/** Days (ms at UTC midnight) in [fromMs, toMs) that have at least one event, with their events. */
export function eventsByDay(db: Db, fromMs: number, toMs: number): Map<number, CalEvent[]> {
  const out = new Map<number, CalEvent[]>();
  for (const e of eventsBetween(db, fromMs, toMs)) {
    const last = Math.max(e.start, e.end - 1);
    for (let day = Math.max(dayStart(e.start), fromMs); day <= Math.min(dayStart(last), toMs - 1); day += DAY_MS) {
      const list = out.get(day) ?? [];
      list.push(e);
      out.set(day, list);
    }
  }
  return out;
}

export const DAY_MS = 86_400_000;

/** Device time is UTC, so a day starts at a multiple of 24 h. */
export function dayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}
