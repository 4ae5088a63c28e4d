import type { Device } from '../../../device/device.js';
import { DEVICE_NOW } from '../../../seed-data/dates.js';
import { sqlExec, sqlInsert, sqlObjects } from '../../validators/sqlite.js';

/**
 * Simple Calendar Pro's events through the device's `sqlite3`, as AndroidWorld reads and seeds
 * them: the Room database at the app's real path, times stored in unix seconds. Helpers here take
 * and return milliseconds. Inserts name every column, since the real app's Room schema has no
 * defaults; other task families (multi-app tasks) use these too.
 */
export const CALENDAR_PKG = 'com.simplemobiletools.calendar.pro';
export const EVENTS_DB = `/data/data/${CALENDAR_PKG}/databases/events.db`;
export const FLAG_ALL_DAY = 1;

export interface EventInput {
  title: string;
  /** Start, ms since the epoch (device time is UTC). */
  start: number;
  end: number;
  location?: string;
  description?: string;
  allDay?: boolean;
  /** Minutes before the start; -1 for none (the default). */
  reminderMinutes?: number;
}

export interface StoredEvent {
  id: number;
  title: string;
  start: number;
  end: number;
  location: string;
  description: string;
  allDay: boolean;
  reminderMinutes: number;
}

/** The INSERT for one event, with every column the real table requires. */
export function eventInsertSql(e: EventInput): string {
  return sqlInsert('events', {
    start_ts: Math.floor(e.start / 1000), end_ts: Math.floor(e.end / 1000), title: e.title, location: e.location ?? '',
    description: e.description ?? '', reminder_1_minutes: e.reminderMinutes ?? -1, reminder_2_minutes: -1, reminder_3_minutes: -1,
    reminder_1_type: 0, reminder_2_type: 0, reminder_3_type: 0, repeat_interval: 0, repeat_rule: 0, repeat_limit: 0,
    repetition_exceptions: '[]', attendees: '[]', import_id: '', time_zone: 'UTC', flags: e.allDay ? FLAG_ALL_DAY : 0,
    event_type: 1, parent_id: 0, last_updated: DEVICE_NOW, source: 'simple-calendar', availability: 0, color: 0, type: 0,
  });
}

export async function addEvent(device: Device, e: EventInput): Promise<void> {
  await sqlExec(device, EVENTS_DB, eventInsertSql(e));
}

/** Inserts several events in one sqlite3 call. */
export async function addEvents(device: Device, events: readonly EventInput[]): Promise<void> {
  if (events.length) await sqlExec(device, EVENTS_DB, events.map(eventInsertSql).join('\n'));
}

export async function clearEvents(device: Device): Promise<void> {
  await sqlExec(device, EVENTS_DB, 'DELETE FROM events;');
}

/** Every event (tasks excluded), by start time. */
export async function listEvents(device: Device): Promise<StoredEvent[]> {
  const rows = await sqlObjects(device, EVENTS_DB, ['id', 'title', 'start_ts', 'end_ts', 'location', 'description', 'flags', 'reminder_1_minutes'] as const,
    'events WHERE type = 0 ORDER BY start_ts, id');
  return rows.map((r) => ({
    id: Number(r.id), title: String(r.title ?? ''), start: Number(r.start_ts) * 1000, end: Number(r.end_ts) * 1000,
    location: String(r.location ?? ''), description: String(r.description ?? ''), allDay: (Number(r.flags) & FLAG_ALL_DAY) !== 0,
    reminderMinutes: Number(r.reminder_1_minutes),
  }));
}
