import { DAY_NAMES } from '../../../util/calendar-names.js';
import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { Device } from '../../../device/device.js';
import type { UiElement, UiSelector } from '../../../a11y/ui-tree.js';
import type { Rng } from '../../../util/rng.js';
import { OracleError, launch, screenSummary, type OracleUi } from '../../oracle.js';
import type { Subgoal } from '../../task.js';
import { time12 } from '../../../seed-data/dates.js';
import { sqlExec, sqlInsert, sqlObjects } from '../../validators/sqlite.js';
import { inActivity, onScreen } from '../../validators/ui.js';
import { exactRecords, type RecordKind } from '../../validators/records.js';
import { condition, holds, type CheckCondition } from '../../verdict.js';

/**
 * Shared pieces of the Clock task families: DeskClock's alarms.db read and written with `sqlite3`
 * (the schema the app documents in emulators/simdroid/apps/clock/db.ts), random alarms, and
 * oracle moves (open a tab, find an alarm's card).
 */
export const CLOCK_PKG = 'com.google.android.deskclock';
export const DESK_CLOCK = 'com.android.deskclock.DeskClock';
export const CITY_SELECTION = 'com.android.deskclock.worldclock.CitySelectionActivity';
export const ALARMS_DB = `/data/data/${CLOCK_PKG}/databases/alarms.db`;

/** Repeat-day bits of `daysofweek` (AOSP Weekdays), indexed Sunday = 0 like the day buttons. */
export const DAY_BITS = [64, 1, 2, 4, 8, 16, 32] as const;
export { DAY_NAMES };

export const ALARM_LABELS = [
  'Wake up', 'Gym', 'Medication', 'School run', 'Standup', 'Yoga', 'Take out trash', 'Call Mom', 'Laundry',
  'Water plants', 'Bus', 'Pick up kids', 'Piano practice', 'Lunch', 'Walk the dog', 'Study',
] as const;

export const AlarmSpec = z.object({
  hour: z.int().min(0).max(23),
  minutes: z.int().min(0).max(59),
  enabled: z.boolean(),
  days: z.int().min(0).max(127),
  label: z.string(),
});
export type AlarmSpec = z.infer<typeof AlarmSpec>;

/** "7:05 AM", as the alarm list shows it (12-hour, the devices' default). */
export const alarmTime = (a: { hour: number; minutes: number }) => time12(a.hour, a.minutes);

const sameTime = (a: { hour: number; minutes: number }, b: { hour: number; minutes: number }) => a.hour === b.hour && a.minutes === b.minutes;

/**
 * `count` alarms at distinct times, avoiding `avoid`; some are near-misses of the first avoided
 * time (same minute the other half of the day, or the same hour a few minutes off), so that a
 * checker can tell a wrong minute or AM/PM from the right alarm.
 */
export function randomAlarms(rng: Rng, count: number, avoid: ReadonlyArray<{ hour: number; minutes: number }> = [], o: { labelled?: number; quietHours?: readonly number[] } = {}): AlarmSpec[] {
  const out: AlarmSpec[] = [];
  const taken = [...avoid];
  const labels = rng.shuffle(ALARM_LABELS);
  for (let guard = 0; out.length < count; guard++) {
    if (guard > 1000) throw new Error(`Cannot draw ${count} distinct alarms`);
    const near = avoid[0];
    let t: { hour: number; minutes: number };
    if (near && out.length === 0 && rng.chance(0.6)) t = { hour: (near.hour + 12) % 24, minutes: near.minutes };
    else if (near && out.length === 1 && rng.chance(0.5)) t = { hour: near.hour, minutes: (near.minutes + rng.pick([5, 10, 55])) % 60 };
    else t = { hour: rng.int(5, 22), minutes: rng.pick([0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55]) };
    if (taken.some((x) => sameTime(x, t)) || o.quietHours?.includes(t.hour)) continue;
    taken.push(t);
    out.push({
      ...t,
      enabled: rng.chance(0.6),
      days: rng.pick([0, 0, 0, 31, 96, 127, 21]),
      label: out.length < (o.labelled ?? 2) ? labels[out.length]! : '',
    });
  }
  return out;
}

/** A target alarm time: minutes not always round, never within the hour the episode runs in. */
export function randomTargetTime(rng: Rng): { hour: number; minutes: number } {
  const hour = rng.pick([5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 17, 18, 19, 20, 21, 22, 23]);
  return { hour, minutes: rng.chance(0.5) ? rng.pick([0, 15, 30, 45]) : rng.int(1, 59) };
}

function alarmRow(a: AlarmSpec): Record<string, string | number> {
  return {
    hour: a.hour, minutes: a.minutes, enabled: a.enabled ? 1 : 0, daysofweek: a.days, vibrate: 1, label: a.label,
    ringtone: 'content://settings/system/alarm_alert', delete_after_use: 0,
  };
}

/** Replaces every alarm with these (inserted in the given order). */
export async function setAlarms(device: Device, alarms: readonly AlarmSpec[]): Promise<void> {
  await sqlExec(device, ALARMS_DB, `DELETE FROM alarm_templates; ${alarms.map((a) => sqlInsert('alarm_templates', alarmRow(a))).join(' ')}`);
}

export async function readAlarms(device: Device): Promise<AlarmSpec[]> {
  const rows = await sqlObjects(device, ALARMS_DB, ['hour', 'minutes', 'enabled', 'daysofweek', 'label'] as const, 'alarm_templates ORDER BY _id');
  return rows.map((r) => ({ hour: Number(r.hour), minutes: Number(r.minutes), enabled: Number(r.enabled) === 1, days: Number(r.daysofweek), label: String(r.label ?? '') }));
}

export const alarmKey = (a: AlarmSpec) => `${a.hour}:${a.minutes}:${a.enabled ? 1 : 0}:${a.days}:${a.label}`;

/** The days an alarm repeats on, Monday first ("Mon, Wed"), or "never". */
export function repeatWords(mask: number): string {
  const names = [1, 2, 3, 4, 5, 6, 0].filter((i) => (mask & DAY_BITS[i]!) !== 0).map((i) => DAY_NAMES[i]!.slice(0, 3));
  return names.length ? names.join(', ') : 'never';
}

/** Alarms in words for a checker's reasons; two are the same when `alarmKey` is. */
export const ALARM: RecordKind<AlarmSpec, AlarmSpec> = {
  noun: 'alarm',
  label: alarmTime,
  labelOf: alarmTime,
  fields: [
    { name: 'time', got: alarmTime, want: alarmTime },
    { name: 'switched', got: (a) => (a.enabled ? 'on' : 'off'), want: (e) => (e.enabled ? 'on' : 'off') },
    { name: 'repeating', got: (a) => repeatWords(a.days), want: (e) => repeatWords(e.days) },
    { name: 'label', got: (a) => JSON.stringify(a.label), want: (e) => JSON.stringify(e.label) },
  ],
  same: (a, e) => alarmKey(a) === alarmKey(e),
};

/** How many alarms ring at `time`: one (`want` 1) or none (`want` 0). */
export function alarmsAtCondition(time: { hour: number; minutes: number }, at: readonly AlarmSpec[], want: 0 | 1): CheckCondition {
  const words = (n: number) => (n === 0 ? 'none' : String(n));
  return condition(`${want === 0 ? 'no alarm' : 'one alarm'} at ${alarmTime(time)}`, words(want), words(at.length));
}

/**
 * The same alarms as `others`, in any order (ids may change if an alarm was re-created identically):
 * each other alarm unchanged, no other alarm.
 */
export function otherAlarmsKept(rest: readonly AlarmSpec[], others: readonly AlarmSpec[]): CheckCondition[] {
  return exactRecords(ALARM, rest, others, 'unchanged');
}

/** The one alarm at a time has this property (compared by `ok`), when there is exactly one. */
export function alarmHas(at: readonly AlarmSpec[], time: { hour: number; minutes: number }, what: string, expected: string, found: (a: AlarmSpec) => string, ok: (a: AlarmSpec) => boolean): CheckCondition[] {
  return at.length === 1 ? [holds(`alarm at ${alarmTime(time)} ${what}`, ok(at[0]!), { expected, found: found(at[0]!) })] : [];
}

/** Splits the alarms into those at `time` and the rest. */
export function partitionAt(alarms: readonly AlarmSpec[], time: { hour: number; minutes: number }): [AlarmSpec[], AlarmSpec[]] {
  return [alarms.filter((a) => sameTime(a, time)), alarms.filter((a) => !sameTime(a, time))];
}

// ------------------------------------------------------------------ oracle moves

export type ClockTab = 'alarm' | 'clock' | 'timer' | 'stopwatch';

/** Opens Clock and selects a tab in the bottom navigation. */
export function* openClockTab(ui: OracleUi, tab: ClockTab): Generator<Action, void, void> {
  yield* launch(ui, 'Clock');
  const item = ui.require({ resourceId: `tab_menu_${tab}` });
  if (!item.node.selected) yield ui.tap(item);
}

function within(el: UiElement, ancestor: UiElement): boolean {
  for (let p = el.parent; p; p = p.parent) if (p.ordinal === ancestor.ordinal) return true;
  return false;
}

function cardOf(el: UiElement, id: string): UiElement | undefined {
  for (let p = el.parent; p; p = p.parent) if (p.node.resourceId.endsWith(`:id/${id}`)) return p;
  return undefined;
}

const MIN_VISIBLE_PX = 12;

/**
 * Scrolls the alarm list until the card showing `time` has an element matching `sel` on screen,
 * and returns that element (an alarm card's own arrow, switch…).
 */
export function* findInAlarmCard(ui: OracleUi, time: string, sel: UiSelector): Generator<Action, UiElement, void> {
  for (let i = 0; i < 20; i++) {
    const clock = ui.find({ resourceId: 'digital_clock', text: time });
    const card = clock && cardOf(clock, 'alarm_item');
    const hit = card && ui.findAll(sel).find((e) => within(e, card) && e.node.bounds.bottom - e.node.bounds.top >= MIN_VISIBLE_PX);
    if (hit) return hit;
    const before = ui.fingerprint();
    yield ui.scroll('down', { resourceId: 'alarm_recycler_view' });
    if (ui.fingerprint() === before) break;
  }
  throw new OracleError(`No alarm card for ${time} with ${JSON.stringify(sel)}`, screenSummary(ui.obs));
}

/** Expands the card of the alarm at `time` (its "Expand alarm" arrow). */
export function* expandAlarm(ui: OracleUi, time: string): Generator<Action, void, void> {
  const arrow = yield* findInAlarmCard(ui, time, { resourceId: 'arrow' });
  if (arrow.node.contentDesc === 'Expand alarm') yield ui.tap(arrow);
}

// ------------------------------------------------------------------ subgoals

export const clockOpen: Subgoal = {
  name: 'Clock open',
  check: async ({ obs }) => inActivity(obs, CLOCK_PKG),
};

export function tabSelected(tab: ClockTab, label: string): Subgoal {
  return {
    name: `${label} tab selected`,
    check: async ({ obs }) => inActivity(obs, CLOCK_PKG, DESK_CLOCK) && obs.elements.some((e) => e.node.resourceId === `${CLOCK_PKG}:id/tab_menu_${tab}` && e.node.selected),
  };
}

export const timePickerOpen: Subgoal = {
  name: 'time picker open',
  check: async ({ obs }) => onScreen(obs, { resourceId: 'input_hour' }),
};

/** Subgoal: the alarms satisfy a predicate. */
export function alarmsWhere(name: string, pred: (alarms: AlarmSpec[]) => boolean): Subgoal {
  return { name, check: async ({ device }) => pred(await readAlarms(device)) };
}
