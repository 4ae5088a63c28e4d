import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { enterTime } from '../../pickers.js';
import { scrollTo } from '../../oracle.js';
import { fieldHolds, onScreen } from '../../validators/ui.js';
import { ALARM, alarmHas, alarmsAtCondition, otherAlarmsKept, ALARM_LABELS, AlarmSpec, alarmsWhere, alarmTime, clockOpen, expandAlarm, findInAlarmCard, openClockTab, partitionAt, randomAlarms, randomTargetTime, readAlarms, setAlarms, tabSelected, timePickerOpen } from './common.js';
import { verdictOf } from '../../verdict.js';
import { matchRecords } from '../../validators/records.js';

/**
 * Creating, deleting, switching off and re-timing alarms. Every check reads alarm_templates back
 * and insists that the other alarms (distractors, some a minute or half a day away from the
 * target) are exactly as they were.
 */
const labelsEqual = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

const Add = z.object({ hour: z.int().min(0).max(23), minutes: z.int().min(0).max(59), time: z.string(), others: z.array(AlarmSpec) });

export const AddAlarm = defineTask({
  id: 'ClockAddAlarm',
  apps: ['Clock'],
  difficulty: 'medium',
  tags: ['data_entry', 'date_time', 'dialog'],
  kind: 'completion',
  template: 'Set an alarm for {time}.',
  params: Add,
  generate: (rng) => {
    const t = randomTargetTime(rng);
    return { ...t, time: alarmTime(t), others: randomAlarms(rng, rng.int(1, 4), [t]) };
  },
  initialize: async (device, p) => setAlarms(device, p.others),
  check: async (device, p) => {
    const [at, rest] = partitionAt(await readAlarms(device), p);
    return verdictOf([alarmsAtCondition(p, at, 1), ...alarmHas(at, p, 'on', 'on', (a) => (a.enabled ? 'on' : 'off'), (a) => a.enabled), ...otherAlarmsKept(rest, p.others)]);
  },
  subgoals: (p) => [
    clockOpen,
    tabSelected('alarm', 'Alarm'),
    timePickerOpen,
    alarmsWhere(`alarm at ${p.time} on`, (alarms) => partitionAt(alarms, p)[0].some((a) => a.enabled)),
  ],
  *oracle(p, ui) {
    yield* openClockTab(ui, 'alarm');
    yield ui.tap({ contentDesc: 'Add alarm' });
    yield* enterTime(ui, p.hour, p.minutes);
    yield ui.complete();
  },
});

const Labelled = Add.extend({ label: z.string().min(1) });

export const AddAlarmWithLabel = defineTask({
  id: 'ClockAddAlarmWithLabel',
  apps: ['Clock'],
  difficulty: 'medium',
  tags: ['data_entry', 'date_time', 'dialog'],
  kind: 'completion',
  template: 'Set an alarm for {time} with the label "{label}".',
  params: Labelled,
  generate: (rng) => {
    const t = randomTargetTime(rng);
    const others = randomAlarms(rng, rng.int(1, 4), [t]);
    const label = rng.pick(ALARM_LABELS.filter((l) => !others.some((o) => o.label === l)));
    return { ...t, time: alarmTime(t), label, others };
  },
  initialize: async (device, p) => setAlarms(device, p.others),
  check: async (device, p) => {
    const [at, rest] = partitionAt(await readAlarms(device), p);
    return verdictOf([
      alarmsAtCondition(p, at, 1), ...alarmHas(at, p, 'on', 'on', (a) => (a.enabled ? 'on' : 'off'), (a) => a.enabled),
      ...alarmHas(at, p, `labelled ${JSON.stringify(p.label)}`, p.label, (a) => JSON.stringify(a.label), (a) => labelsEqual(a.label, p.label)),
      ...otherAlarmsKept(rest, p.others),
    ]);
  },
  subgoals: (p) => [
    clockOpen,
    timePickerOpen,
    alarmsWhere(`alarm at ${p.time} on`, (alarms) => partitionAt(alarms, p)[0].some((a) => a.enabled)),
    { name: 'label dialog open', check: async ({ obs }) => onScreen(obs, { resourceId: 'label_input_field' }) },
    { name: 'label typed', check: async ({ obs }) => fieldHolds(obs, p.label) },
    alarmsWhere(`alarm at ${p.time} labelled`, (alarms) => partitionAt(alarms, p)[0].some((a) => labelsEqual(a.label, p.label))),
  ],
  *oracle(p, ui) {
    yield* openClockTab(ui, 'alarm');
    yield ui.tap({ contentDesc: 'Add alarm' });
    yield* enterTime(ui, p.hour, p.minutes);
    // The new alarm opens expanded, with its label row.
    const row = yield* scrollTo(ui, { resourceId: 'edit_label' });
    yield ui.tap(row);
    yield ui.type({ resourceId: 'label_input_field' }, p.label, { clear: true });
    yield ui.tap({ text: 'OK' });
    yield ui.complete();
  },
});

const Existing = z.object({ target: AlarmSpec, time: z.string(), others: z.array(AlarmSpec) });

/** A target alarm among distractors, inserted in random order. */
function existingAlarm(rng: Parameters<TaskTemplate['generate']>[0], enabled?: boolean) {
  const t = randomTargetTime(rng);
  const target: AlarmSpec = { ...t, enabled: enabled ?? rng.chance(0.7), days: rng.pick([0, 0, 31, 127]), label: rng.chance(0.4) ? rng.pick(ALARM_LABELS) : '' };
  const others = randomAlarms(rng, rng.int(2, 5), [t]).map((o) => (o.label === target.label && o.label ? { ...o, label: '' } : o));
  return { target, time: alarmTime(t), others };
}

const shuffledWithTarget = (p: { target: AlarmSpec; others: AlarmSpec[] }) => {
  // Deterministic position from the parameters, so the target is not always the first row inserted.
  const at = (p.target.hour * 7 + p.target.minutes) % (p.others.length + 1);
  return [...p.others.slice(0, at), p.target, ...p.others.slice(at)];
};

export const DeleteAlarm = defineTask({
  id: 'ClockDeleteAlarm',
  apps: ['Clock'],
  difficulty: 'easy',
  tags: ['deletion', 'date_time'],
  kind: 'completion',
  template: 'Delete the {time} alarm.',
  params: Existing,
  generate: (rng) => existingAlarm(rng),
  initialize: async (device, p) => setAlarms(device, shuffledWithTarget(p)),
  check: async (device, p) => {
    const [at, rest] = partitionAt(await readAlarms(device), p.target);
    return verdictOf([alarmsAtCondition(p.target, at, 0), ...otherAlarmsKept(rest, p.others)]);
  },
  subgoals: (p) => [
    clockOpen,
    tabSelected('alarm', 'Alarm'),
    { name: 'alarm expanded', check: async ({ obs }) => onScreen(obs, { resourceId: 'delete' }) },
    alarmsWhere(`${p.time} alarm deleted`, (alarms) => partitionAt(alarms, p.target)[0].length === 0),
  ],
  *oracle(p, ui) {
    yield* openClockTab(ui, 'alarm');
    yield* expandAlarm(ui, p.time);
    const del = yield* scrollTo(ui, { resourceId: 'delete', text: 'Delete' });
    yield ui.tap(del);
    yield ui.complete();
  },
});

export const TurnOffAlarm = defineTask({
  id: 'ClockTurnOffAlarm',
  apps: ['Clock'],
  difficulty: 'easy',
  tags: ['toggle', 'date_time'],
  kind: 'completion',
  template: 'Turn off the {time} alarm.',
  params: Existing,
  generate: (rng) => existingAlarm(rng, true),
  initialize: async (device, p) => setAlarms(device, shuffledWithTarget(p)),
  check: async (device, p) => {
    const [at, rest] = partitionAt(await readAlarms(device), p.target);
    // Switched off, not deleted: the same alarm with enabled = 0.
    const off = at.length === 1 ? matchRecords(ALARM, at, [{ ...p.target, enabled: false }], 'switched off').conditions : [];
    return verdictOf([alarmsAtCondition(p.target, at, 1), ...off, ...otherAlarmsKept(rest, p.others)]);
  },
  subgoals: (p) => [
    clockOpen,
    tabSelected('alarm', 'Alarm'),
    alarmsWhere(`${p.time} alarm off`, (alarms) => partitionAt(alarms, p.target)[0].some((a) => !a.enabled)),
  ],
  *oracle(p, ui) {
    yield* openClockTab(ui, 'alarm');
    const toggle = yield* findInAlarmCard(ui, p.time, { resourceId: 'onoff' });
    yield ui.tap(toggle);
    yield ui.complete();
  },
});

const Change = Existing.extend({ hour: z.int().min(0).max(23), minutes: z.int().min(0).max(59), newTime: z.string() });

export const ChangeAlarmTime = defineTask({
  id: 'ClockChangeAlarmTime',
  apps: ['Clock'],
  difficulty: 'medium',
  tags: ['data_edit', 'date_time', 'dialog'],
  kind: 'completion',
  template: 'Change the {time} alarm to {newTime}.',
  params: Change,
  generate: (rng) => {
    const base = existingAlarm(rng);
    let next = randomTargetTime(rng);
    while ([base.target, ...base.others].some((a) => a.hour === next.hour && a.minutes === next.minutes)) next = randomTargetTime(rng);
    return { ...base, ...next, newTime: alarmTime(next) };
  },
  initialize: async (device, p) => setAlarms(device, shuffledWithTarget(p)),
  check: async (device, p) => {
    const alarms = await readAlarms(device);
    const [old, rest0] = partitionAt(alarms, p.target);
    const [moved, rest] = partitionAt(rest0, p);
    // The same alarm (label, repeat days) at the new time, switched on; nothing left at the old time.
    const same = moved.length === 1 ? matchRecords(ALARM, moved, [{ ...p.target, hour: p.hour, minutes: p.minutes, enabled: true }], 'moved').conditions : [];
    return verdictOf([alarmsAtCondition(p.target, old, 0), alarmsAtCondition(p, moved, 1), ...same, ...otherAlarmsKept(rest, p.others)]);
  },
  subgoals: (p) => [
    clockOpen,
    tabSelected('alarm', 'Alarm'),
    timePickerOpen,
    alarmsWhere(`alarm moved to ${p.newTime}`, (alarms) => partitionAt(alarms, p)[0].length === 1 && partitionAt(alarms, p.target)[0].length === 0),
  ],
  *oracle(p, ui) {
    yield* openClockTab(ui, 'alarm');
    const time = yield* findInAlarmCard(ui, p.time, { resourceId: 'digital_clock', text: p.time });
    yield ui.tap(time);
    yield* enterTime(ui, p.hour, p.minutes);
    yield ui.complete();
  },
});

export const ALARM_TASKS: readonly TaskTemplate[] = [AddAlarm, AddAlarmWithLabel, DeleteAlarm, TurnOffAlarm, ChangeAlarmTime];
