import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { Rng } from '../../../util/rng.js';
import { scrollTo, type OracleUi } from '../../oracle.js';
import { enterTime } from '../../pickers.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { onScreen } from '../../validators/ui.js';
import { ALARM, alarmHas, alarmsAtCondition, otherAlarmsKept, repeatWords, ALARM_LABELS, AlarmSpec, alarmsWhere, alarmTime, clockOpen, DAY_BITS, DAY_NAMES, expandAlarm, openClockTab, partitionAt, randomAlarms, randomTargetTime, readAlarms, setAlarms, tabSelected, timePickerOpen } from './common.js';
import { verdictOf } from '../../verdict.js';
import { matchRecords } from '../../validators/records.js';

/**
 * Repeat days: the expanded alarm card's day buttons (S M T W T F S) edit the `daysofweek`
 * bitmask. Hard because the agent must expand the right card and set exactly the asked days,
 * turning off those already set that were not asked for.
 */
const WEEKDAYS = 31;
const WEEKEND = 96;
const EVERY_DAY = 127;

/** How an instruction says a set of days ("on weekdays", "on Monday, Wednesday and Friday"). */
export function daysPhrase(mask: number): string {
  if (mask === EVERY_DAY) return 'every day';
  if (mask === WEEKDAYS) return 'on weekdays';
  if (mask === WEEKEND) return 'on weekends';
  // Monday first, as people list days.
  const names = [1, 2, 3, 4, 5, 6, 0].filter((i) => (mask & DAY_BITS[i]!) !== 0).map((i) => DAY_NAMES[i]!);
  return names.length === 1 ? `on ${names[0]}s` : `on ${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

function randomDays(rng: Rng): number {
  const kind = rng.int(0, 3);
  if (kind === 0) return WEEKDAYS;
  if (kind === 1) return WEEKEND;
  const picked = rng.sample([0, 1, 2, 3, 4, 5, 6], rng.int(1, 3));
  return picked.reduce((m, i) => m | DAY_BITS[i]!, 0);
}

/** Taps the expanded card's day buttons until exactly `mask` is selected. */
function* setDays(ui: OracleUi, mask: number): Generator<Action, void, void> {
  yield* scrollTo(ui, { resourceId: 'day_button_6' });
  for (let i = 0; i < 7; i++) {
    const button = ui.require({ resourceId: `day_button_${i}` });
    if (button.node.checked !== ((mask & DAY_BITS[i]!) !== 0)) yield ui.tap(button);
  }
}

const Repeat = z.object({ target: AlarmSpec, time: z.string(), mask: z.int().min(1).max(127), days: z.string(), others: z.array(AlarmSpec) });

export const SetAlarmRepeatDays = defineTask({
  id: 'ClockSetAlarmRepeatDays',
  apps: ['Clock'],
  difficulty: 'hard',
  tags: ['data_edit', 'date_time', 'complex_ui'],
  kind: 'completion',
  template: 'Make the {time} alarm repeat {days}.',
  params: Repeat,
  generate: (rng) => {
    const t = randomTargetTime(rng);
    const mask = randomDays(rng);
    let start = rng.pick([0, 0, randomDays(rng)]);
    if (start === mask) start = 0;
    const target: AlarmSpec = { ...t, enabled: true, days: start, label: rng.chance(0.5) ? rng.pick(ALARM_LABELS) : '' };
    const others = randomAlarms(rng, rng.int(2, 4), [t]).map((o) => ({ ...o, label: o.label === target.label ? '' : o.label }));
    return { target, time: alarmTime(t), mask, days: daysPhrase(mask), others };
  },
  initialize: async (device, p) => setAlarms(device, [...p.others, p.target]),
  check: async (device, p) => {
    const [at, rest] = partitionAt(await readAlarms(device), p.target);
    const set = at.length === 1 ? matchRecords(ALARM, at, [{ ...p.target, days: p.mask }], 'set to repeat').conditions : [];
    return verdictOf([alarmsAtCondition(p.target, at, 1), ...set, ...otherAlarmsKept(rest, p.others)]);
  },
  subgoals: (p) => [
    clockOpen,
    tabSelected('alarm', 'Alarm'),
    { name: 'alarm expanded', check: async ({ obs }) => onScreen(obs, { resourceId: 'day_button_0' }) },
    alarmsWhere(`${p.time} alarm repeats ${p.days}`, (alarms) => partitionAt(alarms, p.target)[0].some((a) => a.days === p.mask)),
  ],
  *oracle(p, ui) {
    yield* openClockTab(ui, 'alarm');
    yield* expandAlarm(ui, p.time);
    yield* setDays(ui, p.mask);
    yield ui.complete();
  },
});

const NewRepeating = z.object({
  hour: z.int().min(0).max(23), minutes: z.int().min(0).max(59), time: z.string(), label: z.string().min(1),
  mask: z.int().min(1).max(127), days: z.string(), others: z.array(AlarmSpec),
});

export const AddRepeatingAlarm = defineTask({
  id: 'ClockAddRepeatingAlarm',
  apps: ['Clock'],
  difficulty: 'hard',
  tags: ['data_entry', 'date_time', 'dialog', 'complex_ui'],
  kind: 'completion',
  template: 'Create an alarm at {time} labelled "{label}" that repeats {days}.',
  params: NewRepeating,
  generate: (rng) => {
    const t = randomTargetTime(rng);
    const others = randomAlarms(rng, rng.int(1, 3), [t]);
    const label = rng.pick(ALARM_LABELS.filter((l) => !others.some((o) => o.label === l)));
    const mask = randomDays(rng);
    return { ...t, time: alarmTime(t), label, mask, days: daysPhrase(mask), others };
  },
  initialize: async (device, p) => setAlarms(device, p.others),
  check: async (device, p) => {
    const [at, rest] = partitionAt(await readAlarms(device), p);
    return verdictOf([
      alarmsAtCondition(p, at, 1),
      ...alarmHas(at, p, 'on', 'on', (a) => (a.enabled ? 'on' : 'off'), (a) => a.enabled),
      ...alarmHas(at, p, `repeating ${repeatWords(p.mask)}`, repeatWords(p.mask), (a) => repeatWords(a.days), (a) => a.days === p.mask),
      ...alarmHas(at, p, `labelled ${JSON.stringify(p.label)}`, p.label, (a) => JSON.stringify(a.label), (a) => a.label.trim().toLowerCase() === p.label.toLowerCase()),
      ...otherAlarmsKept(rest, p.others),
    ]);
  },
  subgoals: (p) => [
    clockOpen,
    timePickerOpen,
    alarmsWhere(`alarm at ${p.time}`, (alarms) => partitionAt(alarms, p)[0].length > 0),
    alarmsWhere('label set', (alarms) => partitionAt(alarms, p)[0].some((a) => a.label.trim().toLowerCase() === p.label.toLowerCase())),
    alarmsWhere(`repeats ${p.days}`, (alarms) => partitionAt(alarms, p)[0].some((a) => a.days === p.mask)),
  ],
  *oracle(p, ui) {
    yield* openClockTab(ui, 'alarm');
    yield ui.tap({ contentDesc: 'Add alarm' });
    yield* enterTime(ui, p.hour, p.minutes);
    yield* setDays(ui, p.mask);
    const row = yield* scrollTo(ui, { resourceId: 'edit_label' });
    yield ui.tap(row);
    yield ui.type({ resourceId: 'label_input_field' }, p.label, { clear: true });
    yield ui.tap({ text: 'OK' });
    yield ui.complete();
  },
});

export const REPEAT_TASKS: readonly TaskTemplate[] = [SetAlarmRepeatDays, AddRepeatingAlarm];
