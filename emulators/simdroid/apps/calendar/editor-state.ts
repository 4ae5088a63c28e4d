import type { ActivityContext } from '../../runtime/app.js';
import type { DatePickerState, TimePickerState } from '../../view/pickers.js';
import { dayStart, deleteEvent, insertEvent, updateEvent, type EventDraft } from './db.js';
import type { Repeat } from './repeat.js';
import { followStart, type RepeatDialog } from './repeat-views.js';

/**
 * EventActivity's state and the rules the real editor applies to it: moving the start moves the
 * end with it (the duration is kept), all-day events are stored from midnight to noon of their
 * last day, an empty title or an end before the start refuses to save, and Back asks before
 * losing changes.
 */
export interface Snapshot {
  title: string;
  location: string;
  description: string;
  start: number;
  end: number;
  allDay: boolean;
  reminder: number;
  repeat: Repeat;
}

export type EditorDialog =
  | { kind: 'date'; which: 'start' | 'end'; picker: DatePickerState }
  | { kind: 'time'; which: 'start' | 'end'; picker: TimePickerState }
  | { kind: 'reminder' }
  | { kind: 'discard' }
  | { kind: 'delete' }
  | RepeatDialog;

export interface EditorState {
  /** The stored event being edited; null for a new one (or a duplicate). */
  id: number | null;
  start: number;
  end: number;
  allDay: boolean;
  reminder: number;
  repeat: Repeat;
  /** The values the editor opened with, to tell whether Back loses changes. */
  original: Snapshot;
  dialog: EditorDialog | null;
  menu: boolean;
}

export type EditorCtx = ActivityContext<EditorState>;

const HOUR_MS = 3_600_000;

/** The times to store: all-day events span midnight of the first day to noon of the last. */
export function storedTimes(s: { start: number; end: number; allDay: boolean }): [number, number] {
  if (s.allDay) return [dayStart(s.start), dayStart(s.end) + 12 * HOUR_MS];
  return [s.start, s.end];
}

function current(ctx: EditorCtx): Snapshot {
  const f = ctx.fields;
  return {
    title: (f.title ?? '').trim(), location: (f.location ?? '').trim(), description: (f.description ?? '').trim(),
    start: ctx.s.start, end: ctx.s.end, allDay: ctx.s.allDay, reminder: ctx.s.reminder, repeat: ctx.s.repeat,
  };
}

export function hasChanges(ctx: EditorCtx): boolean {
  const a = current(ctx);
  const b = ctx.s.original;
  const [as, ae] = storedTimes(a);
  const [bs, be] = storedTimes(b);
  return a.title !== b.title || a.location !== b.location || a.description !== b.description || a.allDay !== b.allDay
    || a.reminder !== b.reminder || as !== bs || ae !== be
    || a.repeat.interval !== b.repeat.interval || a.repeat.rule !== b.repeat.rule || a.repeat.limit !== b.repeat.limit;
}

/** A date picked for the start moves the end along; one picked for the end moves the end only. */
export function setDate(s: EditorState, which: 'start' | 'end', y: number, m: number, d: number): void {
  const base = which === 'start' ? s.start : s.end;
  const next = Date.UTC(y, m - 1, d) + (base - dayStart(base));
  if (which === 'start') {
    const duration = s.end - s.start;
    s.repeat = followStart(s.repeat, s.start, next);
    s.start = next;
    s.end = next + duration;
  } else {
    s.end = next;
  }
}

export function setTime(s: EditorState, which: 'start' | 'end', hour: number, minute: number): void {
  const base = which === 'start' ? s.start : s.end;
  const next = dayStart(base) + hour * HOUR_MS + minute * 60_000;
  if (which === 'start') {
    const duration = s.end - s.start;
    s.start = next;
    s.end = next + duration;
  } else {
    s.end = next;
  }
}

/** Save (toolbar check): validates like the real app, stores, and closes the editor. */
export function save(ctx: EditorCtx): void {
  const now = current(ctx);
  if (!now.title) {
    ctx.s.dialog = null;
    ctx.nav.toast('Title cannot be empty');
    ctx.nav.focus('title');
    return;
  }
  const [start, end] = storedTimes(now);
  if (start > end) {
    ctx.s.dialog = null;
    ctx.nav.toast('The event cannot end earlier than it starts');
    return;
  }
  const draft: EventDraft = { ...now, start, end };
  const db = ctx.app.db;
  if (ctx.s.id === null) {
    insertEvent(db, draft, ctx.sys.clock.now());
    ctx.nav.toast('Event added successfully');
  } else {
    updateEvent(db, ctx.s.id, draft, ctx.sys.clock.now());
    ctx.nav.toast('Event updated successfully');
  }
  ctx.nav.hideKeyboard();
  ctx.nav.finish();
}

export function remove(ctx: EditorCtx): void {
  if (ctx.s.id !== null) deleteEvent(ctx.app.db, ctx.s.id);
  ctx.nav.hideKeyboard();
  ctx.nav.finish();
}

/** Back and "Navigate up": ask before discarding changes, as onBackPressed does. */
export function leave(ctx: EditorCtx): void {
  if (hasChanges(ctx)) {
    ctx.nav.hideKeyboard();
    ctx.s.dialog = { kind: 'discard' };
    return;
  }
  ctx.nav.hideKeyboard();
  ctx.nav.finish();
}
