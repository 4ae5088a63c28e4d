import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { Device } from '../../../device/device.js';
import { flattenUiTree } from '../../../a11y/ui-tree.js';
import type { OracleUi } from '../../oracle.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { sqlExec, sqlInsert, sqlObjects } from '../../validators/sqlite.js';
import { inActivity, onScreen } from '../../validators/ui.js';
import { ALARM_LABELS, ALARMS_DB, CLOCK_PKG, clockOpen, openClockTab, tabSelected } from './common.js';
import { countIs, holds, listed, verdictOf } from '../../verdict.js';

const two = (n: number) => String(n).padStart(2, '0');
/** A length in words: "1:05:09" or "5:09". */
function lengthWords(ms: number): string {
  const s = Math.round(ms / 1000);
  const h = Math.floor(s / 3600);
  return h ? `${h}:${two(Math.floor(s / 60) % 60)}:${two(s % 60)}` : `${Math.floor(s / 60)}:${two(s % 60)}`;
}
const timerWords = (t: { length_ms: number; remaining_ms: number; state: string; label: string }) =>
  `${lengthWords(t.length_ms)} ${t.state}, ${lengthWords(t.remaining_ms)} left${t.label ? `, ${t.label}` : ''}`;

/**
 * Timers: typed on DeskClock's keypad (digits enter from the right into "00h 00m 00s") and
 * started with the FAB. StartTimer checks the `timers` table; TimerEntry is AndroidWorld's
 * ClockTimerEntry, which checks the keypad's display and that nothing was started.
 */
const Paused = z.object({ length_ms: z.int().positive(), remaining_ms: z.int().positive(), label: z.string() });
type Paused = z.infer<typeof Paused>;

async function readTimers(device: Device) {
  const rows = await sqlObjects(device, ALARMS_DB, ['length_ms', 'remaining_ms', 'state', 'label'] as const, 'timers ORDER BY _id');
  return rows.map((r) => ({ length_ms: Number(r.length_ms), remaining_ms: Number(r.remaining_ms), state: String(r.state), label: String(r.label ?? '') }));
}

async function setTimers(device: Device, paused: readonly Paused[]): Promise<void> {
  const inserts = paused.map((t) => sqlInsert('timers', { ...t, state: 'paused', start_time: null }));
  await sqlExec(device, ALARMS_DB, `DELETE FROM timers; ${inserts.join(' ')}`);
}

const units = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

/** The keypad digits for a length: "5", "3", "0" for 5 min 30 s (leading zeros are not typed). */
export function keypadDigits(h: number, m: number, s: number): string[] {
  const all = `${String(h).padStart(2, '0')}${String(m).padStart(2, '0')}${String(s).padStart(2, '0')}`;
  return [...all.replace(/^0+/, '')];
}

function* typeOnKeypad(ui: OracleUi, digits: readonly string[]): Generator<Action, void, void> {
  for (const d of digits) yield ui.tap({ resourceId: `timer_setup_digit_${d}` });
}

const Start = z.object({ minutes: z.int().min(1).max(59), seconds: z.int().min(0).max(59), existing: z.array(Paused) });

export const StartTimer = defineTask({
  id: 'ClockStartTimer',
  apps: ['Clock'],
  difficulty: 'medium',
  tags: ['data_entry', 'date_time'],
  kind: 'completion',
  template: 'Start a timer for {minutes} minutes and {seconds} seconds.',
  params: Start,
  generate: (rng) => {
    const minutes = rng.int(1, 59);
    const seconds = rng.int(0, 59);
    // Sometimes a paused timer is already there: the agent must add a new one, not resume it.
    const existing: Paused[] = [];
    if (rng.chance(0.5)) {
      let length = rng.int(2, 30) * 60_000;
      if (length === (minutes * 60 + seconds) * 1000) length += 60_000;
      existing.push({ length_ms: length, remaining_ms: length - rng.int(10, 90) * 1000, label: rng.pick(ALARM_LABELS) });
    }
    return { minutes, seconds, existing };
  },
  instruction: (p) => `Start a timer for ${units(p.minutes, 'minute')} and ${units(p.seconds, 'second')}.`,
  initialize: async (device, p) => setTimers(device, p.existing),
  check: async (device, p) => {
    const timers = await readTimers(device);
    const want = (p.minutes * 60 + p.seconds) * 1000;
    const started = timers.filter((t) => t.state === 'running' && t.length_ms === want);
    const rest = timers.filter((t) => !started.includes(t));
    const untouched = p.existing.every((e) => rest.some((t) => t.state === 'paused' && t.length_ms === e.length_ms && t.remaining_ms === e.remaining_ms && t.label === e.label));
    return verdictOf([
      holds(`one timer running for ${lengthWords(want)}`, started.length === 1, { expected: '1', found: started.length === 1 ? '1' : `${started.length} (timers: ${listed(timers.map(timerWords))})` }),
      countIs('other timers', p.existing.length, rest.length),
      holds(`the ${p.existing.length} paused timers unchanged`, untouched, { expected: listed(p.existing.map((e) => timerWords({ ...e, state: 'paused' }))), found: listed(rest.map(timerWords)) }),
    ]);
  },
  subgoals: (p) => [
    clockOpen,
    tabSelected('timer', 'Timer'),
    { name: 'keypad showing', check: async ({ obs }) => onScreen(obs, { resourceId: 'timer_setup_time' }) },
    { name: 'length typed', check: async ({ obs }) => onScreen(obs, { resourceId: 'timer_setup_time', text: `00h ${String(p.minutes).padStart(2, '0')}m ${String(p.seconds).padStart(2, '0')}s` }) },
    { name: 'timer running', check: async ({ device }) => (await readTimers(device)).some((t) => t.state === 'running' && t.length_ms === (p.minutes * 60 + p.seconds) * 1000) },
  ],
  *oracle(p, ui) {
    yield* openClockTab(ui, 'timer');
    if (!ui.exists({ resourceId: 'timer_setup_time' })) yield ui.tap({ contentDesc: 'Add timer' });
    yield* typeOnKeypad(ui, keypadDigits(0, p.minutes, p.seconds));
    yield ui.tap({ contentDesc: 'Start' });
    yield ui.complete();
  },
});

// The keypad takes two digits of hours (up to 99), as AndroidWorld's instances use (0–23).
const Entry = z.object({ hours: z.int().min(0).max(99), minutes: z.int().min(0).max(59), seconds: z.int().min(0).max(59) });
const setupText = (p: z.infer<typeof Entry>) => `${String(p.hours).padStart(2, '0')}h ${String(p.minutes).padStart(2, '0')}m ${String(p.seconds).padStart(2, '0')}s`;

export const TimerEntry = defineTask({
  id: 'ClockTimerEntry',
  apps: ['Clock'],
  difficulty: 'medium',
  tags: ['data_entry', 'date_time'],
  kind: 'completion',
  template: 'Create a timer with {hours} hours, {minutes} minutes, and {seconds} seconds. Do not start the timer.',
  params: Entry,
  generate: (rng) => ({ hours: rng.int(0, 3), minutes: rng.int(0, 59), seconds: rng.int(1, 59) }),
  instruction: (p) => `Create a timer with ${units(p.hours, 'hour')}, ${units(p.minutes, 'minute')}, and ${units(p.seconds, 'second')}. Do not start the timer.`,
  initialize: async (device) => setTimers(device, []),
  // As AndroidWorld's ClockTimerEntry: the keypad on screen shows the length, and no timer runs.
  check: async (device, p) => {
    const elements = flattenUiTree(await device.uiTree());
    const shown = elements.some((e) => e.node.resourceId === `${CLOCK_PKG}:id/timer_setup_time` && e.node.text === setupText(p));
    const keypad = elements.find((e) => e.node.resourceId === `${CLOCK_PKG}:id/timer_setup_time`);
    const timers = await readTimers(device);
    return verdictOf([
      holds(`timer keypad shows ${setupText(p)}`, shown, { expected: setupText(p), found: keypad ? JSON.stringify(keypad.node.text) : 'no timer keypad on screen' }),
      holds('no timer created', timers.length === 0, { expected: 'none', found: listed(timers.map(timerWords)) }),
    ]);
  },
  subgoals: (p) => [
    clockOpen,
    tabSelected('timer', 'Timer'),
    { name: 'length typed', check: async ({ obs }) => inActivity(obs, CLOCK_PKG) && onScreen(obs, { resourceId: 'timer_setup_time', text: setupText(p) }) },
  ],
  *oracle(p, ui) {
    yield* openClockTab(ui, 'timer');
    yield* typeOnKeypad(ui, keypadDigits(p.hours, p.minutes, p.seconds));
    yield ui.complete();
  },
});

export const TIMER_TASKS: readonly TaskTemplate[] = [StartTimer, TimerEntry];
