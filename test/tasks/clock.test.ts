import { afterAll, describe, expect, it } from 'vitest';
import { instanceWithParams, instantiate, type TaskInstance } from '../../core/tasks/instance.js';
import { runEpisode, resetForTask } from '../../core/episode/runner.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { time12 } from '../../core/seed-data/dates.js';
import { WORLD_CITIES, cityId } from '../../core/seed-data/world-cities.js';
import { AddAlarm, AddAlarmWithLabel, ChangeAlarmTime, DeleteAlarm, TurnOffAlarm } from '../../core/tasks/families/clock/alarms.js';
import { AddRepeatingAlarm, SetAlarmRepeatDays, daysPhrase } from '../../core/tasks/families/clock/repeat.js';
import { EnabledAlarmCount, NextAlarmQuestion } from '../../core/tasks/families/clock/alarm-questions.js';
import { StartTimer, TimerEntry, keypadDigits } from '../../core/tasks/families/clock/timer.js';
import { StopwatchLaps, StopwatchPause, StopwatchRun } from '../../core/tasks/families/clock/stopwatch.js';
import { AddWorldClockCity, RemoveWorldClockCity, TimeInCityQuestion } from '../../core/tasks/families/clock/world-clock.js';
import { countAnswerMatches, timeAnswerMatches, timesIn } from '../../core/tasks/families/clock/answers.js';
import { CLOCK_TASKS } from '../../core/tasks/families/clock/index.js';
import { CITIES } from '../../emulators/simdroid/apps/clock/cities.js';
import { device, sh, tap } from '../helpers/simdroid.js';

/**
 * Each Clock checker accepts the state its oracle reaches and rejects near misses: a wrong minute
 * or half of the day, wrong days, a distractor touched, a timer of the wrong length, a wrong answer.
 */
const DB = '/data/data/com.google.android.deskclock/databases/alarms.db';
const d = device();
afterAll(() => d.close());

const sql = (s: string) => sh(d, `sqlite3 ${DB} "${s}"`).trim();

/** Runs the oracle for a seed (optionally with other parameters) and keeps the end state as snapshot "solved". */
async function solve<P>(template: TaskTemplate<P>, seed: number, tweak?: (p: P) => P): Promise<TaskInstance<P>> {
  const inst = instantiate(template, seed);
  const run = tweak ? { ...inst, params: tweak(structuredClone(inst.params)) } : inst;
  const r = await runEpisode({ device: d, instance: run, policy: new OraclePolicy() });
  expect(r.error).toBeUndefined();
  await d.saveSnapshot('solved');
  return inst;
}

const check = <P>(inst: TaskInstance<P>, answer?: string) => inst.template.check(d, inst.params, { actions: [], ...(answer !== undefined ? { answer } : {}) }).then((v) => v.ok);

/** Restores the solved state, applies a change, and checks. */
async function after<P>(inst: TaskInstance<P>, change: () => unknown): Promise<boolean> {
  await d.loadSnapshot('solved');
  await change();
  return check(inst);
}

function seedWhere<P>(template: TaskTemplate<P>, pred: (p: P) => boolean): number {
  for (let s = 0; s < 200; s++) if (pred(instantiate(template, s).params)) return s;
  throw new Error(`No seed of ${template.id} satisfies the condition`);
}

describe('Clock alarm checkers', () => {
  it('AddAlarm: the right alarm passes; wrong minute, other half of the day, duplicates or a touched distractor fail', async () => {
    const inst = await solve(AddAlarm, 3);
    const { hour, minutes } = inst.params;
    const at = `hour = ${hour} AND minutes = ${minutes}`;
    expect(await check(inst)).toBe(true);
    expect(await after(inst, () => sql(`UPDATE alarm_templates SET minutes = ${(minutes + 1) % 60} WHERE ${at}`))).toBe(false);
    expect(await after(inst, () => sql(`UPDATE alarm_templates SET enabled = 0 WHERE ${at}`))).toBe(false);
    expect(await after(inst, () => sql(`INSERT INTO alarm_templates (hour, minutes, enabled, daysofweek, vibrate, label) VALUES (${hour}, ${minutes}, 1, 0, 1, '')`))).toBe(false);
    expect(await after(inst, () => sql(`UPDATE alarm_templates SET label = 'changed' WHERE NOT (${at}) AND _id = (SELECT MIN(_id) FROM alarm_templates WHERE NOT (${at}))`))).toBe(false);
    // Set through the UI for the other half of the day.
    await solve(AddAlarm, 3, (p) => ({ ...p, hour: (p.hour + 12) % 24 }));
    expect(await check(inst)).toBe(false);
  });

  it('AddAlarmWithLabel: the label must be there (case aside)', async () => {
    const inst = await solve(AddAlarmWithLabel, 5);
    const at = `hour = ${inst.params.hour} AND minutes = ${inst.params.minutes}`;
    expect(await check(inst)).toBe(true);
    expect(await after(inst, () => sql(`UPDATE alarm_templates SET label = upper(label) WHERE ${at}`))).toBe(true);
    expect(await after(inst, () => sql(`UPDATE alarm_templates SET label = '' WHERE ${at}`))).toBe(false);
    expect(await after(inst, () => sql(`UPDATE alarm_templates SET label = 'Something else' WHERE ${at}`))).toBe(false);
  });

  it('DeleteAlarm: only the target may go, and it must be gone rather than off', async () => {
    const inst = await solve(DeleteAlarm, 2);
    const t = inst.params.target;
    expect(await check(inst)).toBe(true);
    expect(await after(inst, () => sql('DELETE FROM alarm_templates WHERE _id = (SELECT MIN(_id) FROM alarm_templates)'))).toBe(false);
    await resetForTask(d, inst);
    sql(`UPDATE alarm_templates SET enabled = 0 WHERE hour = ${t.hour} AND minutes = ${t.minutes}`);
    expect(await check(inst)).toBe(false);
    // Deleting the alarm a minute off (or half a day off) instead fails too.
    await resetForTask(d, inst);
    const other = inst.params.others[0]!;
    sql(`DELETE FROM alarm_templates WHERE hour = ${other.hour} AND minutes = ${other.minutes}`);
    expect(await check(inst)).toBe(false);
  });

  it('TurnOffAlarm: switched off, not deleted, nothing else changed', async () => {
    const inst = await solve(TurnOffAlarm, 4);
    const at = `hour = ${inst.params.target.hour} AND minutes = ${inst.params.target.minutes}`;
    expect(await check(inst)).toBe(true);
    expect(await after(inst, () => sql(`DELETE FROM alarm_templates WHERE ${at}`))).toBe(false);
    expect(await after(inst, () => sql(`UPDATE alarm_templates SET daysofweek = 127 WHERE ${at}`))).toBe(false);
    expect(await after(inst, () => sql(`UPDATE alarm_templates SET enabled = 1 - enabled WHERE NOT (${at})`))).toBe(false);
  });

  it('ChangeAlarmTime: the same alarm moves; a copy or a lost label fails', async () => {
    const inst = await solve(ChangeAlarmTime, seedWhere(ChangeAlarmTime, (p) => p.target.label !== ''));
    const p = inst.params;
    const at = `hour = ${p.hour} AND minutes = ${p.minutes}`;
    expect(await check(inst)).toBe(true);
    expect(await after(inst, () => sql(`UPDATE alarm_templates SET minutes = ${(p.minutes + 1) % 60} WHERE ${at}`))).toBe(false);
    expect(await after(inst, () => sql(`UPDATE alarm_templates SET label = '' WHERE ${at}`))).toBe(false);
    expect(await after(inst, () => sql(`INSERT INTO alarm_templates (hour, minutes, enabled, daysofweek, vibrate, label) VALUES (${p.target.hour}, ${p.target.minutes}, 1, 0, 1, '')`))).toBe(false);
  });

  it('SetAlarmRepeatDays: exactly the asked days on the target only', async () => {
    const inst = await solve(SetAlarmRepeatDays, 1);
    const p = inst.params;
    const at = `hour = ${p.target.hour} AND minutes = ${p.target.minutes}`;
    expect(await check(inst)).toBe(true);
    const extra = [1, 2, 4, 8, 16, 32, 64].find((b) => (p.mask & b) === 0)!;
    expect(await after(inst, () => sql(`UPDATE alarm_templates SET daysofweek = ${p.mask | extra} WHERE ${at}`))).toBe(false);
    const low = p.mask & -p.mask;
    if (p.mask !== low) expect(await after(inst, () => sql(`UPDATE alarm_templates SET daysofweek = ${p.mask ^ low} WHERE ${at}`))).toBe(false);
    expect(await after(inst, () => sql(`UPDATE alarm_templates SET daysofweek = ${p.mask} WHERE NOT (${at})`))).toBe(false);
    expect(daysPhrase(31)).toBe('on weekdays');
    expect(daysPhrase(1 | 4 | 16)).toBe('on Monday, Wednesday and Friday');
    expect(daysPhrase(64)).toBe('on Sundays');
  });

  it('AddRepeatingAlarm: time, label and days all count', async () => {
    const inst = await solve(AddRepeatingAlarm, 0);
    const at = `hour = ${inst.params.hour} AND minutes = ${inst.params.minutes}`;
    expect(await check(inst)).toBe(true);
    expect(await after(inst, () => sql(`UPDATE alarm_templates SET daysofweek = 0 WHERE ${at}`))).toBe(false);
    expect(await after(inst, () => sql(`UPDATE alarm_templates SET label = 'x' WHERE ${at}`))).toBe(false);
  });
});

describe('Clock question checkers', () => {
  it('NextAlarmQuestion accepts the next time in any usual format, nothing else', async () => {
    const inst = instantiate(NextAlarmQuestion, 0);
    await resetForTask(d, inst);
    const { hour, minute } = inst.params;
    const right = time12(hour, minute);
    for (const a of [right, right.toLowerCase().replace(' ', ''), `My next alarm is at ${right} tomorrow.`, `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`]) {
      expect(await check(inst, a), a).toBe(true);
    }
    const wrongHalf = time12((hour + 12) % 24, minute);
    const wrongMinute = time12(hour, (minute + 1) % 60);
    for (const a of [wrongHalf, wrongMinute, `${right} or ${wrongMinute}`, 'tomorrow morning']) expect(await check(inst, a), a).toBe(false);
    expect(await check(inst)).toBe(false);
  });

  it('EnabledAlarmCount compares the number, as digits or a word', async () => {
    const inst = instantiate(EnabledAlarmCount, seedWhere(EnabledAlarmCount, (p) => p.count === 3));
    await resetForTask(d, inst);
    expect(sql('SELECT COUNT(*) FROM alarm_templates WHERE enabled = 1')).toBe('3');
    for (const a of ['3', 'three', '3 alarms are on.']) expect(await check(inst, a), a).toBe(true);
    for (const a of ['4', 'two', '3 or 4']) expect(await check(inst, a), a).toBe(false);
  });

  it('TimeInCityQuestion accepts the city time of the last minutes, not another time or city', async () => {
    const inst = instantiate(TimeInCityQuestion, seedWhere(TimeInCityQuestion, (p) => !p.listed && p.city.offset % 60 === 0));
    await resetForTask(d, inst);
    const at = (ms: number) => {
      const t = new Date(ms + inst.params.city.offset * 60_000);
      return { h: t.getUTCHours(), m: t.getUTCMinutes() };
    };
    const now = d.clock.now();
    const { h, m } = at(now);
    expect(await check(inst, time12(h, m))).toBe(true);
    expect(await check(inst, `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`)).toBe(true);
    expect(await check(inst, time12((h + 1) % 24, m))).toBe(false);
    expect(await check(inst, time12((h + 12) % 24, m))).toBe(false);
    const other = inst.params.others.find((c) => c.offset !== inst.params.city.offset)!;
    const o = new Date(now + other.offset * 60_000);
    expect(await check(inst, time12(o.getUTCHours(), o.getUTCMinutes()))).toBe(false);
    // An answer from long ago no longer counts.
    await d.idle(30 * 60_000);
    expect(await check(inst, time12(h, m))).toBe(false);
  });
});

describe('Clock timer and stopwatch checkers', () => {
  it('StartTimer: one running timer of that length; the paused one left alone', async () => {
    const inst = await solve(StartTimer, seedWhere(StartTimer, (p) => p.existing.length === 1));
    const len = (inst.params.minutes * 60 + inst.params.seconds) * 1000;
    expect(await check(inst)).toBe(true);
    expect(sql("SELECT COUNT(*) FROM timers WHERE state = 'running'")).toBe('1');
    expect(await after(inst, () => tap(d, { contentDesc: 'Pause' }))).toBe(false);
    expect(await after(inst, () => sql(`UPDATE timers SET length_ms = ${len + 1000} WHERE state = 'running'`))).toBe(false);
    expect(await after(inst, () => sql("DELETE FROM timers WHERE state = 'paused'"))).toBe(false);
    expect(await after(inst, () => sql(`INSERT INTO timers (length_ms, remaining_ms, state, start_time) VALUES (${len}, ${len}, 'running', 0)`))).toBe(false);
    // Resuming the existing timer instead of starting a new one fails.
    await resetForTask(d, inst);
    sql("UPDATE timers SET state = 'running', start_time = 0");
    expect(await check(inst)).toBe(false);
  });

  it('TimerEntry: the keypad shows the length and nothing was started', async () => {
    const inst = await solve(TimerEntry, 2);
    expect(await check(inst)).toBe(true);
    expect(await after(inst, () => tap(d, { contentDesc: 'Start' }))).toBe(false);
    expect(await after(inst, () => tap(d, { contentDesc: 'Delete' }))).toBe(false);
    expect(await after(inst, () => tap(d, { resourceId: 'tab_menu_alarm' }))).toBe(false);
    expect(keypadDigits(0, 5, 30)).toEqual(['5', '3', '0']);
    expect(keypadDigits(1, 0, 5)).toEqual(['1', '0', '0', '0', '5']);
    // Two digits of hours, as AndroidWorld's instances have (its seed-0 ClockTimerEntry: 14 h 39 m 23 s).
    const aw = instanceWithParams(TimerEntry, { hours: 14, minutes: 39, seconds: 23 });
    expect(aw.instruction).toBe('Create a timer with 14 hours, 39 minutes, and 23 seconds. Do not start the timer.');
    const r = await runEpisode({ device: d, instance: aw, policy: new OraclePolicy() });
    expect(r.verdict?.conditions.map((c) => c.name)).toContain('timer keypad shows 14h 39m 23s');
    expect(r.success).toBe(true);
  });

  it('StopwatchRun / StopwatchPause: running, and paused without a reset', async () => {
    const run = await solve(StopwatchRun, 1);
    expect(await check(run)).toBe(true);
    expect(await after(run, () => tap(d, { contentDesc: 'Pause' }))).toBe(false);

    // Already paused: the oracle taps nothing and the stopwatch stays as it was (the device not set up again).
    const paused = instantiate(StopwatchPause, 1);
    await resetForTask(d, paused);
    sql("UPDATE stopwatch SET state = 'paused'");
    const kept = await runEpisode({ device: d, instance: paused, policy: new OraclePolicy(), initialize: false });
    expect(kept.error).toBeUndefined();
    expect(kept.steps.map((s) => s.description)).not.toContainEqual(expect.stringContaining('Pause'));

    const pause = await solve(StopwatchPause, seedWhere(StopwatchPause, (p) => p.laps > 0));
    expect(await check(pause)).toBe(true);
    expect(await after(pause, () => tap(d, { text: 'Reset' }))).toBe(false);
    expect(await after(pause, () => sql('DELETE FROM laps WHERE lap_number = 1'))).toBe(false);
    expect(await after(pause, () => tap(d, { contentDesc: 'Start' }))).toBe(false);
  });

  it('StopwatchLaps: exactly that many laps and paused', async () => {
    const inst = await solve(StopwatchLaps, 0);
    expect(await check(inst)).toBe(true);
    expect(sql('SELECT COUNT(*) FROM laps')).toBe(String(inst.params.laps));
    expect(await after(inst, () => {
      tap(d, { contentDesc: 'Start' });
      tap(d, { text: 'Lap' });
      tap(d, { contentDesc: 'Pause' });
    })).toBe(false);
    expect(await after(inst, () => tap(d, { contentDesc: 'Start' }))).toBe(false);
  });
});

describe('Clock world clock checkers', () => {
  it('AddWorldClockCity: the city added, the others kept, nothing extra', async () => {
    const seed = seedWhere(AddWorldClockCity, (p) => p.others.length > 0);
    const inst = await solve(AddWorldClockCity, seed);
    const taken = [inst.params.city, ...inst.params.others].map((c) => c.name);
    const unrelated = WORLD_CITIES.find((c) => !taken.includes(c.name))!;
    expect(await check(inst)).toBe(true);
    expect(await after(inst, () => sql(`DELETE FROM cities WHERE name = '${inst.params.others[0]!.name}'`))).toBe(false);
    expect(await after(inst, () => sql(`INSERT INTO cities (city_id, name, utc_offset_minutes) VALUES ('${cityId(unrelated.name)}', '${unrelated.name}', ${unrelated.offset})`))).toBe(false);
    // Adding a different city through the UI instead fails.
    await solve(AddWorldClockCity, seed, (p) => ({ ...p, city: unrelated }));
    expect(await check(inst)).toBe(false);
  });

  it('RemoveWorldClockCity: only that city goes', async () => {
    const inst = await solve(RemoveWorldClockCity, 1);
    expect(await check(inst)).toBe(true);
    expect(await after(inst, () => sql(`DELETE FROM cities WHERE name = '${inst.params.others[0]!.name}'`))).toBe(false);
    await resetForTask(d, inst);
    expect(await check(inst)).toBe(false);
  });

  it('task cities exist in the app catalog with the same UTC offsets', () => {
    for (const c of WORLD_CITIES) {
      const app = CITIES.find((x) => x.name === c.name);
      expect(app, c.name).toBeDefined();
      expect(app!.offset, c.name).toBe(c.offset);
      expect(app!.id).toBe(cityId(c.name));
    }
  });
});

describe('Clock templates and answers', () => {
  it('has at least 7 templates with easy, medium and hard ones and two or more questions', () => {
    expect(CLOCK_TASKS.length).toBeGreaterThanOrEqual(7);
    expect(new Set(CLOCK_TASKS.map((t) => t.difficulty))).toEqual(new Set(['easy', 'medium', 'hard']));
    expect(CLOCK_TASKS.filter((t) => t.kind === 'information_retrieval').length).toBeGreaterThanOrEqual(2);
    expect(CLOCK_TASKS.every((t) => t.id.startsWith('Clock'))).toBe(true);
  });

  it('draws different instances for different seeds', () => {
    for (const t of CLOCK_TASKS) {
      const distinct = new Set(Array.from({ length: 10 }, (_, s) => JSON.stringify(instantiate(t, s).params)));
      expect(distinct.size, t.id).toBeGreaterThan(2);
    }
  });

  it('reads times tolerantly', () => {
    expect(timesIn('4:34 AM')).toEqual([[274]]);
    expect(timesIn('4.34 p.m.')).toEqual([[994]]);
    expect(timesIn('It is 16:34 in Tokyo')).toEqual([[994]]);
    expect(timesIn('4 pm')).toEqual([[960]]);
    expect(timesIn('Today, 9 hours ahead, Oct 15')).toEqual([]);
    expect(timeAnswerMatches('4:34', [{ hour: 16, minute: 34 }])).toBe(true);
    expect(timeAnswerMatches('4:35 PM', [{ hour: 16, minute: 34 }])).toBe(false);
    expect(timeAnswerMatches(undefined, [{ hour: 16, minute: 34 }])).toBe(false);
    expect(countAnswerMatches('Two.', 2)).toBe(true);
    expect(countAnswerMatches('none', 0)).toBe(false);
  });
});
