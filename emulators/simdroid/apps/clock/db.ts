import type { Db } from '../../system/databases.js';

/**
 * DeskClock's state, all in alarms.db so checkers read it with `sqlite3` as on an emulator.
 *
 * alarm_templates   AOSP's alarm table (ClockContract.AlarmsColumns):
 *   _id, hour (0–23), minutes, enabled (0/1), daysofweek (bitmask: Mon=1, Tue=2, Wed=4, Thu=8,
 *   Fri=16, Sat=32, Sun=64; 0 = does not repeat), vibrate (0/1), label, ringtone (URI),
 *   delete_after_use (0/1).
 * timers            one row per timer (AOSP keeps these in shared preferences):
 *   length_ms (as set up), remaining_ms (remaining at start_time when running, else now),
 *   state ('running' | 'paused' | 'reset'), start_time (device ms when last started; NULL unless
 *   running), label. A running timer whose remaining time is past is shown as expired.
 * stopwatch         a single row (_id = 1): state ('reset' | 'running' | 'paused'), accumulated_ms
 *   (time counted before start_time), start_time (device ms; NULL unless running).
 * laps              lap_number (1…), lap_time_ms (that lap), total_time_ms (stopwatch time at the lap).
 * cities            the world clocks shown on the Clock tab: city_id, name, utc_offset_minutes.
 *
 * All times are the device's virtual clock (ms since the epoch, UTC), so displays are computed
 * from `now` at render time and nothing ticks by itself.
 */
export const CLOCK_PKG = 'com.google.android.deskclock';
export const ALARMS_DB = `/data/data/${CLOCK_PKG}/databases/alarms.db`;
export const DEFAULT_RINGTONE = 'content://settings/system/alarm_alert';

export const CLOCK_SCHEMA = `
CREATE TABLE alarm_templates (
  _id INTEGER PRIMARY KEY AUTOINCREMENT,
  hour INTEGER NOT NULL,
  minutes INTEGER NOT NULL,
  enabled INTEGER NOT NULL,
  daysofweek INTEGER NOT NULL,
  vibrate INTEGER NOT NULL,
  label TEXT NOT NULL,
  ringtone TEXT,
  delete_after_use INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE timers (
  _id INTEGER PRIMARY KEY AUTOINCREMENT,
  length_ms INTEGER NOT NULL,
  remaining_ms INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running', 'paused', 'reset')),
  start_time INTEGER,
  label TEXT NOT NULL DEFAULT ''
);
CREATE TABLE stopwatch (
  _id INTEGER PRIMARY KEY CHECK (_id = 1),
  state TEXT NOT NULL CHECK (state IN ('reset', 'running', 'paused')),
  accumulated_ms INTEGER NOT NULL,
  start_time INTEGER
);
INSERT INTO stopwatch (_id, state, accumulated_ms, start_time) VALUES (1, 'reset', 0, NULL);
CREATE TABLE laps (
  _id INTEGER PRIMARY KEY AUTOINCREMENT,
  lap_number INTEGER NOT NULL,
  lap_time_ms INTEGER NOT NULL,
  total_time_ms INTEGER NOT NULL
);
CREATE TABLE cities (
  _id INTEGER PRIMARY KEY AUTOINCREMENT,
  city_id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  utc_offset_minutes INTEGER NOT NULL
);
`;

// ------------------------------------------------------------------ alarms

export interface Alarm {
  _id: number;
  hour: number;
  minutes: number;
  enabled: number;
  daysofweek: number;
  vibrate: number;
  label: string;
  ringtone: string | null;
  delete_after_use: number;
}

export type AlarmPatch = Partial<Omit<Alarm, '_id'>>;

export function listAlarms(db: Db): Alarm[] {
  return db.prepare('SELECT * FROM alarm_templates ORDER BY hour, minutes, _id').all() as Alarm[];
}

export function getAlarm(db: Db, id: number): Alarm | undefined {
  return db.prepare('SELECT * FROM alarm_templates WHERE _id = ?').get(id) as Alarm | undefined;
}

export function insertAlarm(db: Db, a: { hour: number; minutes: number } & AlarmPatch): number {
  const r = db.prepare(`INSERT INTO alarm_templates (hour, minutes, enabled, daysofweek, vibrate, label, ringtone, delete_after_use)
    VALUES (@hour, @minutes, @enabled, @daysofweek, @vibrate, @label, @ringtone, @delete_after_use)`).run({
    enabled: 1, daysofweek: 0, vibrate: 1, label: '', ringtone: DEFAULT_RINGTONE, delete_after_use: 0, ...a,
  });
  return Number(r.lastInsertRowid);
}

const ALARM_COLUMNS = new Set(['hour', 'minutes', 'enabled', 'daysofweek', 'vibrate', 'label', 'ringtone', 'delete_after_use']);

export function updateAlarm(db: Db, id: number, patch: AlarmPatch): void {
  const cols = Object.keys(patch).filter((k) => ALARM_COLUMNS.has(k));
  if (cols.length === 0) return;
  db.prepare(`UPDATE alarm_templates SET ${cols.map((c) => `${c} = @${c}`).join(', ')} WHERE _id = @_id`).run({ ...patch, _id: id });
}

export function deleteAlarm(db: Db, id: number): void {
  db.prepare('DELETE FROM alarm_templates WHERE _id = ?').run(id);
}

// ------------------------------------------------------------------ timers

export type TimerState = 'running' | 'paused' | 'reset';

export interface TimerRow {
  _id: number;
  length_ms: number;
  remaining_ms: number;
  state: TimerState;
  start_time: number | null;
  label: string;
}

export function listTimers(db: Db): TimerRow[] {
  return db.prepare('SELECT * FROM timers ORDER BY _id').all() as TimerRow[];
}

/** Time left at `now` (negative once a running timer has expired). */
export function timerRemaining(t: TimerRow, now: number): number {
  return t.state === 'running' && t.start_time !== null ? t.remaining_ms - (now - t.start_time) : t.remaining_ms;
}

export function startNewTimer(db: Db, lengthMs: number, now: number): number {
  const r = db.prepare("INSERT INTO timers (length_ms, remaining_ms, state, start_time, label) VALUES (?, ?, 'running', ?, '')").run(lengthMs, lengthMs, now);
  return Number(r.lastInsertRowid);
}

export function pauseTimer(db: Db, t: TimerRow, now: number): void {
  db.prepare("UPDATE timers SET state = 'paused', remaining_ms = ?, start_time = NULL WHERE _id = ?").run(timerRemaining(t, now), t._id);
}

export function resumeTimer(db: Db, t: TimerRow, now: number): void {
  db.prepare("UPDATE timers SET state = 'running', start_time = ? WHERE _id = ?").run(now, t._id);
}

export function resetTimer(db: Db, t: TimerRow): void {
  db.prepare("UPDATE timers SET state = 'reset', remaining_ms = length_ms, start_time = NULL WHERE _id = ?").run(t._id);
}

/** "+1:00": an expired timer restarts with one minute (as AOSP's Timer.addMinute), others gain one. */
export function addMinute(db: Db, t: TimerRow, now: number): void {
  if (t.state === 'running' && timerRemaining(t, now) <= 0) {
    db.prepare('UPDATE timers SET remaining_ms = 60000, start_time = ? WHERE _id = ?').run(now, t._id);
  } else {
    db.prepare('UPDATE timers SET remaining_ms = remaining_ms + 60000 WHERE _id = ?').run(t._id);
  }
}

export function setTimerLabel(db: Db, id: number, label: string): void {
  db.prepare('UPDATE timers SET label = ? WHERE _id = ?').run(label, id);
}

export function deleteTimer(db: Db, id: number): void {
  db.prepare('DELETE FROM timers WHERE _id = ?').run(id);
}

// ------------------------------------------------------------------ stopwatch

export interface Stopwatch {
  state: 'reset' | 'running' | 'paused';
  accumulated_ms: number;
  start_time: number | null;
}

export interface Lap {
  _id: number;
  lap_number: number;
  lap_time_ms: number;
  total_time_ms: number;
}

export function getStopwatch(db: Db): Stopwatch {
  const row = db.prepare('SELECT state, accumulated_ms, start_time FROM stopwatch WHERE _id = 1').get() as Stopwatch | undefined;
  return row ?? { state: 'reset', accumulated_ms: 0, start_time: null };
}

export function stopwatchElapsed(sw: Stopwatch, now: number): number {
  return sw.accumulated_ms + (sw.state === 'running' && sw.start_time !== null ? now - sw.start_time : 0);
}

function saveStopwatch(db: Db, sw: Stopwatch): void {
  db.prepare('INSERT OR REPLACE INTO stopwatch (_id, state, accumulated_ms, start_time) VALUES (1, ?, ?, ?)').run(sw.state, sw.accumulated_ms, sw.start_time);
}

export function startStopwatch(db: Db, now: number): void {
  const sw = getStopwatch(db);
  if (sw.state !== 'running') saveStopwatch(db, { state: 'running', accumulated_ms: sw.accumulated_ms, start_time: now });
}

export function pauseStopwatch(db: Db, now: number): void {
  const sw = getStopwatch(db);
  if (sw.state === 'running') saveStopwatch(db, { state: 'paused', accumulated_ms: stopwatchElapsed(sw, now), start_time: null });
}

export function resetStopwatch(db: Db): void {
  saveStopwatch(db, { state: 'reset', accumulated_ms: 0, start_time: null });
  db.prepare('DELETE FROM laps').run();
}

/** Newest lap first, as the laps list shows them. */
export function listLaps(db: Db): Lap[] {
  return db.prepare('SELECT * FROM laps ORDER BY lap_number DESC').all() as Lap[];
}

/** AOSP's stopwatch stops taking laps at 98. */
export const MAX_LAPS = 98;

export function addLap(db: Db, now: number): void {
  const sw = getStopwatch(db);
  if (sw.state !== 'running') return;
  const total = stopwatchElapsed(sw, now);
  const last = db.prepare('SELECT lap_number, total_time_ms FROM laps ORDER BY lap_number DESC LIMIT 1').get() as { lap_number: number; total_time_ms: number } | undefined;
  if ((last?.lap_number ?? 0) >= MAX_LAPS) return;
  db.prepare('INSERT INTO laps (lap_number, lap_time_ms, total_time_ms) VALUES (?, ?, ?)').run((last?.lap_number ?? 0) + 1, total - (last?.total_time_ms ?? 0), total);
}

// ------------------------------------------------------------------ cities

export interface SelectedCity {
  _id: number;
  city_id: string;
  name: string;
  utc_offset_minutes: number;
}

export function listCities(db: Db): SelectedCity[] {
  return db.prepare('SELECT * FROM cities ORDER BY _id').all() as SelectedCity[];
}

export function addCity(db: Db, c: { id: string; name: string; offset: number }): void {
  db.prepare('INSERT OR IGNORE INTO cities (city_id, name, utc_offset_minutes) VALUES (?, ?, ?)').run(c.id, c.name, c.offset);
}

export function removeCity(db: Db, cityId: string): void {
  db.prepare('DELETE FROM cities WHERE city_id = ?').run(cityId);
}
