import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { Rng } from '../../../util/rng.js';
import { DAY_MS, msOf, type DateParts } from '../../../seed-data/dates.js';
import { defineTask, type Difficulty, type TaskTemplate } from '../../task.js';
import type { OracleUi } from '../../oracle.js';
import { resolveDay, wordDay } from '../../day-phrases.js';
import { answerJudged, answerListVerdict, answerVerdict } from '../../validators/answers.js';
import { verdictOf } from '../../verdict.js';
import {
  ASKED_CATEGORIES, dayOfTrack, opentracksOpen, otherTracks, sameDay, SeedTrack, shiftDay, installTracks, TODAY, trackListShown,
  trackOn, weekOf, within,
} from './common.js';
import { readToday, rowDay, rowMeters, rowMinutes, type ShownTrack } from './steps.js';

/**
 * Questions about recorded activities, worded as AndroidWorld's SportsTracker* templates word them:
 * which activity types on a day, how many of a type this week, how long one lasted, the longest
 * and the total distance, the total duration. The answers come from the track list alone (type,
 * day, total time, distance); days past are worded relative to today ("yesterday", "Tuesday",
 * "October 12"), which the oracle resolves against the date on the Clock.
 */
const Params = z.object({
  /** The type asked about ('' when the question names none). */
  category: z.string(),
  /** The day asked about, or the interval's first day, as the question words it ('' for none). */
  day: z.string(),
  /** The interval's last day ('' for none). */
  until: z.string(),
  tracks: z.array(SeedTrack),
});
type P = z.infer<typeof Params>;

const norm = (s: string) => s.trim().toLowerCase().replace(/\s+/g, ' ');
const ofType = (category: string) => (t: { category: string }) => norm(t.category) === norm(category);
const minutesOf = (t: SeedTrack) => t.duration;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Answers in metres pass within 10 m, as AndroidWorld's tolerance for distances shown in miles. */
const DISTANCE_TOLERANCE_M = 10;

interface Question {
  id: string;
  difficulty: Difficulty;
  template: string;
  tags: TaskTemplate['tags'];
  generate(rng: Rng): P;
  /** The expected answer from the seeded tracks: a list, a number, or metres (judged with the tolerance). */
  expected(p: P): { list: string[] } | { number: number } | { meters: number };
  /** The answer from the rows on screen and today. */
  read(p: P, rows: readonly ShownTrack[], today: DateParts): string;
}

function question(q: Question): TaskTemplate<P> {
  return defineTask({
    id: q.id,
    apps: ['OpenTracks'],
    difficulty: q.difficulty,
    tags: ['information_retrieval', 'screen_reading', 'needs_scrolling', ...q.tags],
    kind: 'information_retrieval',
    template: q.template,
    params: Params,
    maxSteps: 60,
    generate: q.generate,
    instruction: (p) => q.template.replace('{category}', p.category).replace('{day}', p.day).replace('{until}', p.until),
    initialize: async (device, p) => installTracks(device, p.tracks),
    check: async (_device, p, episode) => {
      const want = q.expected(p);
      if ('list' in want) return answerListVerdict(episode.answer, want.list);
      if ('number' in want) return answerVerdict(episode.answer, String(want.number));
      const given = Number((episode.answer ?? '').replace(/[^\d.-]/g, ''));
      const ok = episode.answer !== undefined && /\d/.test(episode.answer) && Math.abs(given - want.meters) < DISTANCE_TOLERANCE_M;
      return verdictOf([answerJudged(episode.answer, String(want.meters), ok)]);
    },
    subgoals: () => [opentracksOpen, trackListShown],
    *oracle(p, ui: OracleUi): Generator<Action, void, void> {
      const { today, rows } = yield* readToday(ui);
      yield ui.answer(q.read(p, rows, today));
    },
  });
}

const dayOf = (phrase: string, today: DateParts) => resolveDay(phrase, today, 'past');
const thisWeek = () => weekOf(TODAY);
const daysBack = (d: DateParts) => Math.round((msOf(TODAY) - msOf(d)) / DAY_MS);
const shownOfType = (rows: readonly ShownTrack[], category: string) => rows.filter(ofType(category));
const shownInWeek = (rows: readonly ShownTrack[], category: string, today: DateParts) =>
  shownOfType(rows, category).filter((r) => within(rowDay(r, today), weekOf(today)));

/** Two tracks of `category` on days of this week up to today, and twenty others none of which is of that type this week. */
function weekTargets(rng: Rng, n: number, o: { distance?: number } = {}): { category: string; targets: SeedTrack[] } {
  const category = rng.pick(ASKED_CATEGORIES);
  const [monday] = thisWeek();
  const upTo = daysBack(monday);
  const targets = Array.from({ length: n }, () => trackOn(rng, category, shiftDay(TODAY, -rng.int(0, upTo)), o));
  return { category, targets };
}

export const ActivitiesOnDateQuestion = question({
  id: 'OpenTracksActivitiesOnDateQuestion',
  difficulty: 'medium',
  template: 'What activities did I do {day} in the OpenTracks app? Answer with the activity type only. If there are multiple types, format your answer in a comma separated list.',
  tags: ['date_time'],
  generate: (rng) => {
    const d = shiftDay(TODAY, -rng.int(1, 13));
    const targets = [trackOn(rng, rng.pick(ASKED_CATEGORIES), d), trackOn(rng, rng.pick(ASKED_CATEGORIES), d)];
    const others = otherTracks(rng, 20, (t) => sameDay(dayOfTrack(t), d));
    return { category: '', day: wordDay(rng, d, TODAY, 'past'), until: '', tracks: rng.shuffle([...targets, ...others]) };
  },
  expected: (p) => ({ list: p.tracks.filter((t) => sameDay(dayOfTrack(t), dayOf(p.day, TODAY))).map((t) => t.category) }),
  read: (p, rows, today) => rows.filter((r) => sameDay(rowDay(r, today), dayOf(p.day, today))).map((r) => r.category).join(', '),
});

export const ActivitiesCountThisWeekQuestion = question({
  id: 'OpenTracksActivitiesCountThisWeekQuestion',
  difficulty: 'medium',
  template: 'How many {category} activities did I do this week in the OpenTracks app? Assume the week starts from Monday. Express your answer as a single integer.',
  tags: ['date_time', 'math_counting'],
  generate: (rng) => {
    const { category, targets } = weekTargets(rng, 2);
    const others = otherTracks(rng, 20, (t) => ofType(category)(t) && within(dayOfTrack(t), thisWeek()));
    return { category, day: '', until: '', tracks: rng.shuffle([...targets, ...others]) };
  },
  expected: (p) => ({ number: p.tracks.filter((t) => ofType(p.category)(t) && within(dayOfTrack(t), thisWeek())).length }),
  read: (p, rows, today) => String(shownInWeek(rows, p.category, today).length),
});

export const ActivityDurationQuestion = question({
  id: 'OpenTracksActivityDurationQuestion',
  difficulty: 'easy',
  template: 'How long was my {category} activity {day} in the OpenTracks app? Express your answer in minutes as a single integer.',
  tags: ['date_time'],
  generate: (rng) => {
    const d = shiftDay(TODAY, -rng.int(0, 10));
    const category = rng.pick(ASKED_CATEGORIES);
    const target = trackOn(rng, category, d);
    const others = otherTracks(rng, 20, (t) => sameDay(dayOfTrack(t), d) && ofType(category)(t));
    return { category, day: wordDay(rng, d, TODAY, 'past'), until: '', tracks: rng.shuffle([target, ...others]) };
  },
  expected: (p) => ({ number: sum(p.tracks.filter((t) => ofType(p.category)(t) && sameDay(dayOfTrack(t), dayOf(p.day, TODAY))).map(minutesOf)) }),
  read: (p, rows, today) => String(sum(shownOfType(rows, p.category).filter((r) => sameDay(rowDay(r, today), dayOf(p.day, today))).map(rowMinutes))),
});

export const LongestDistanceThisWeekQuestion = question({
  id: 'OpenTracksLongestDistanceThisWeekQuestion',
  difficulty: 'medium',
  template: 'What was the longest distance covered in a {category} activity in the OpenTracks app this week? Assume the week starts from Monday. Express your answer as a single number in meters rounded to the nearest integer.',
  tags: ['date_time'],
  generate: (rng) => {
    const { category, targets } = weekTargets(rng, 1);
    const best = targets[0]!.distance;
    // Other tracks of the type this week are shorter; longer ones only in other weeks or of other types.
    const others = otherTracks(rng, 20, (t) => ofType(category)(t) && within(dayOfTrack(t), thisWeek()) && t.distance >= best);
    return { category, day: '', until: '', tracks: rng.shuffle([...targets, ...others]) };
  },
  expected: (p) => ({ meters: Math.max(0, ...p.tracks.filter((t) => ofType(p.category)(t) && within(dayOfTrack(t), thisWeek())).map((t) => t.distance)) }),
  read: (p, rows, today) => String(Math.round(Math.max(0, ...shownInWeek(rows, p.category, today).map(rowMeters)))),
});

export const TotalDurationThisWeekQuestion = question({
  id: 'OpenTracksTotalDurationThisWeekQuestion',
  difficulty: 'medium',
  template: 'What was the total duration of {category} activities in the OpenTracks app this week? Assume the week starts from Monday. Express your answer in minutes as a single integer.',
  tags: ['date_time', 'math_counting'],
  generate: (rng) => {
    const { category, targets } = weekTargets(rng, 2);
    const others = otherTracks(rng, 20, (t) => ofType(category)(t) && within(dayOfTrack(t), thisWeek()));
    return { category, day: '', until: '', tracks: rng.shuffle([...targets, ...others]) };
  },
  expected: (p) => ({ number: sum(p.tracks.filter((t) => ofType(p.category)(t) && within(dayOfTrack(t), thisWeek())).map(minutesOf)) }),
  read: (p, rows, today) => String(sum(shownInWeek(rows, p.category, today).map(rowMinutes))),
});

export const TotalDistanceOverIntervalQuestion = question({
  id: 'OpenTracksTotalDistanceOverIntervalQuestion',
  difficulty: 'hard',
  template: 'What was the total distance covered for {category} activities in the OpenTracks app from {day} to {until}? Express your answer as a single number in meters rounded to the nearest integer.',
  tags: ['date_time', 'math_counting'],
  generate: (rng) => {
    const from = shiftDay(TODAY, -rng.int(6, 14));
    const to = shiftDay(TODAY, -rng.int(0, 5));
    const category = rng.pick(ASKED_CATEGORIES);
    const targets = [trackOn(rng, category, from), trackOn(rng, category, from)];
    const others = otherTracks(rng, 20, (t) => ofType(category)(t) && within(dayOfTrack(t), [from, to]));
    return { category, day: wordDay(rng, from, TODAY, 'past'), until: wordDay(rng, to, TODAY, 'past'), tracks: rng.shuffle([...targets, ...others]) };
  },
  expected: (p) => {
    const span = [dayOf(p.day, TODAY), dayOf(p.until, TODAY)] as const;
    return { meters: sum(p.tracks.filter((t) => ofType(p.category)(t) && within(dayOfTrack(t), span)).map((t) => t.distance)) };
  },
  read: (p, rows, today) => {
    const span = [dayOf(p.day, today), dayOf(p.until, today)] as const;
    return String(Math.round(sum(shownOfType(rows, p.category).filter((r) => within(rowDay(r, today), span)).map(rowMeters))));
  },
});

export const OPENTRACKS_QUESTIONS: readonly TaskTemplate[] = [
  ActivitiesOnDateQuestion, ActivitiesCountThisWeekQuestion, ActivityDurationQuestion, LongestDistanceThisWeekQuestion,
  TotalDurationThisWeekQuestion, TotalDistanceOverIntervalQuestion,
];
