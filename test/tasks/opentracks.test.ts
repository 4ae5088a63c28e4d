import { afterAll, describe, expect, it } from 'vitest';
import { resetForTask } from '../../core/episode/runner.js';
import { instantiate } from '../../core/tasks/instance.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { roundTripMeters, weekOf, TODAY } from '../../core/tasks/families/opentracks/common.js';
import { OPENTRACKS_TASKS } from '../../core/tasks/families/opentracks/index.js';
import {
  ActivitiesCountThisWeekQuestion, ActivitiesOnDateQuestion, ActivityDurationQuestion, LongestDistanceThisWeekQuestion,
  TotalDistanceOverIntervalQuestion, TotalDurationThisWeekQuestion,
} from '../../core/tasks/families/opentracks/questions.js';
import { listTracks } from '../../core/tasks/families/opentracks/tracks-db.js';
import { rowDay, rowMeters, rowMinutes, yearOf, type ShownTrack } from '../../core/tasks/families/opentracks/steps.js';
import { OracleError } from '../../core/tasks/oracle.js';
import { device } from '../helpers/simdroid.js';

/** The OpenTracks questions: seeding, the expected answers, and checks that accept the answer and reject near misses. */
const d = device();
afterAll(() => d.close());

const answer = (text: string) => ({ actions: [], answer: text });
const params = <P>(t: TaskTemplate<P>, seed = 0): P => instantiate(t, seed).params;
const ok = async <P>(t: TaskTemplate<P>, p: P, text: string) => (await t.check(d, p, answer(text))).ok;

describe('OpenTracks templates', () => {
  it('has six templates worded as AndroidWorld words its SportsTracker* questions, with varied instances', () => {
    expect(OPENTRACKS_TASKS.map((t) => t.id).sort()).toEqual([
      'OpenTracksActivitiesCountThisWeekQuestion', 'OpenTracksActivitiesOnDateQuestion', 'OpenTracksActivityDurationQuestion',
      'OpenTracksLongestDistanceThisWeekQuestion', 'OpenTracksTotalDistanceOverIntervalQuestion', 'OpenTracksTotalDurationThisWeekQuestion',
    ]);
    for (const t of OPENTRACKS_TASKS) {
      expect(t.kind).toBe('information_retrieval');
      const instances = new Set([0, 1, 2, 3, 4, 5].map((s) => instantiate(t, s).instruction));
      expect(instances.size, t.id).toBeGreaterThan(3);
    }
    expect(instantiate(TotalDistanceOverIntervalQuestion, 0).instruction).toMatch(/activities in the OpenTracks app from .+ to .+\? Express your answer/);
  });

  it('stores distances that two-decimal miles show exactly (AndroidWorld rounds them so)', () => {
    expect(roundTripMeters(5000)).toBe(5005); // 3.11 mi
    expect(roundTripMeters(100)).toBe(97);
    expect(weekOf(TODAY)).toEqual([{ year: 2023, month: 10, day: 9 }, { year: 2023, month: 10, day: 15 }]);
  });

  it('seeds the tracks into the table AndroidWorld reads', async () => {
    const inst = instantiate(ActivitiesCountThisWeekQuestion, 3);
    await resetForTask(d, inst);
    const rows = await listTracks(d);
    expect(rows).toHaveLength(inst.params.tracks.length);
    expect(rows.length).toBeGreaterThanOrEqual(20);
    expect(rows.map((r) => r.name).sort()).toEqual(inst.params.tracks.map((t) => t.name).sort());
  });

  it('a day question: the types of that day, one per activity, in any order', async () => {
    const p = params(ActivitiesOnDateQuestion, 1);
    const want = String((await ActivitiesOnDateQuestion.check(d, p, answer(''))).conditions[0]!.expected).split(', ');
    expect(want).toHaveLength(2);
    expect(await ok(ActivitiesOnDateQuestion, p, [...want].reverse().join(', '))).toBe(true);
    expect(await ok(ActivitiesOnDateQuestion, p, want[0]!)).toBe(false);
    expect(await ok(ActivitiesOnDateQuestion, p, [...want, 'walking'].join(', '))).toBe(false);
  });

  it('counts, durations and distances: the number, not one off; distances within 10 m', async () => {
    for (const t of [ActivitiesCountThisWeekQuestion, ActivityDurationQuestion, TotalDurationThisWeekQuestion]) {
      const p = params(t, 2);
      const want = Number((await t.check(d, p, answer(''))).conditions[0]!.expected);
      expect(want, t.id).toBeGreaterThan(0);
      expect(await ok(t, p, String(want)), t.id).toBe(true);
      expect(await ok(t, p, String(want + 1)), t.id).toBe(false);
    }
    for (const t of [LongestDistanceThisWeekQuestion, TotalDistanceOverIntervalQuestion]) {
      const p = params(t, 2);
      const want = Number((await t.check(d, p, answer(''))).conditions[0]!.expected);
      expect(want, t.id).toBeGreaterThan(0);
      expect(await ok(t, p, String(want + 9)), t.id).toBe(true);
      expect(await ok(t, p, `${want} meters`), t.id).toBe(true);
      expect(await ok(t, p, String(want + 10)), t.id).toBe(false);
      expect(await ok(t, p, 'far'), t.id).toBe(false);
    }
  });

  it('the week questions count only the type asked, Monday to today', () => {
    for (let seed = 0; seed < 12; seed++) {
      const p = params(TotalDurationThisWeekQuestion, seed);
      const [monday, sunday] = weekOf(TODAY).map((x) => Date.UTC(x.year, x.month - 1, x.day));
      const inWeek = p.tracks.filter((t) => t.category === p.category && t.start >= monday! && t.start < sunday! + 86_400_000);
      expect(inWeek.length, `seed ${seed}`).toBe(2);
    }
  });

  it('the oracle reads a row\'s day, minutes and metres as the list words them, and names what it cannot read', () => {
    const row = (date: string, timeDistance: string): ShownTrack => ({ name: 'x', category: 'running', date, timeDistance, time: '08:00' });
    const today = { year: 2023, month: 10, day: 15 };
    expect(rowDay(row('Today', ''), today)).toEqual(today);
    expect(rowDay(row('Yesterday', ''), { year: 2023, month: 10, day: 1 })).toEqual({ year: 2023, month: 9, day: 30 });
    expect(rowDay(row('Oct 5, 2023', ''), today)).toEqual({ year: 2023, month: 10, day: 5 });
    expect(rowMinutes(row('', '45:00 (3.11 mi)'))).toBe(45);
    expect(rowMinutes(row('', '2:05:00 (3.11 mi)'))).toBe(125);
    expect(Math.round(rowMeters(row('', '2:05:00 (3.11 mi)')))).toBe(5005);
    expect(Math.round(rowMeters(row('', '45:00 (984.25 ft)')))).toBe(300);
    expect(yearOf([row('Today', ''), row('Oct 5, 2023', '')])).toBe(2023);
    expect(yearOf([row('Today', '')])).toBeNull();
    expect(() => rowDay(row('5 October', ''), today)).toThrow(OracleError);
    expect(() => rowMeters(row('', '45:00'))).toThrow('Unread distance in "45:00"');
  });
});
