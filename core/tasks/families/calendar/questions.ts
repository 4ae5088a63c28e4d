import { z } from 'zod';
import { defineTask, type Difficulty, type TaskTag, type TaskTemplate } from '../../task.js';
import { dateParts, DAY_MS, DEVICE_NOW, msOf, type DateParts } from '../../../seed-data/dates.js';
import { eventTitles } from '../../../seed-data/events.js';
import { answerListVerdict, answerVerdict } from '../../validators/answers.js';
import { onScreen } from '../../validators/ui.js';
import type { Rng } from '../../../util/rng.js';
import { addEvents, clearEvents } from './calendar-db.js';
import { calendarOpen, DateSchema, dayAround, dayOpen, dayText, EventSchema, MINUTE_MS, openCalendar, openDay, readDayTitles, timedEvent, toInput, type EventParam } from './common.js';
import { dayScenario, elsewhere } from './scenario.js';
import { nextEventTitle } from './schedule-questions.js';

/**
 * Questions answered from what the calendar shows: the events of a day (today: tap the
 * highlighted cell; another day: page the months, and scroll a long day), and the next upcoming
 * event (the simple event list). List answers compare as sets of titles.
 */
const OnDay = z.object({ date: DateSchema, targets: z.array(EventSchema).min(1), others: z.array(EventSchema) });

function eventsOnDayQuestion(o: { id: string; difficulty: Difficulty; tags: TaskTag[]; day: (rng: Rng) => DateParts; count: [number, number]; today: boolean }) {
  return defineTask({
    id: o.id,
    apps: ['Calendar'],
    difficulty: o.difficulty,
    tags: o.tags,
    kind: 'information_retrieval',
    template: o.today
      ? 'What events do I have today in Simple Calendar Pro? Answer with their titles, separated by commas.'
      : 'What events do I have on {date} in Simple Calendar Pro? Answer with their titles, separated by commas.',
    params: OnDay,
    maxSteps: 20,
    generate: (rng) => {
      const date = o.day(rng);
      const sc = dayScenario(rng, date, rng.int(o.count[0], o.count[1]), rng.int(3, 6), { allDayChance: 0.25 });
      return { date, targets: sc.onDay, others: sc.around };
    },
    instruction: (p) => o.today
      ? 'What events do I have today in Simple Calendar Pro? Answer with their titles, separated by commas.'
      : `What events do I have on ${dayText(p.date)} in Simple Calendar Pro? Answer with their titles, separated by commas.`,
    initialize: async (device, p) => {
      await clearEvents(device);
      await addEvents(device, [...p.others, ...p.targets].map(toInput));
    },
    check: async (_device, p, episode) => answerListVerdict(episode.answer, p.targets.map((t) => t.title)),
    subgoals: (p) => [calendarOpen, dayOpen(p.date)],
    *oracle(p, ui) {
      yield* openCalendar(ui);
      yield* openDay(ui, p.date);
      const titles = yield* readDayTitles(ui);
      yield ui.answer(titles.join(', '));
    },
  });
}

export const EventsOnDayQuestion = eventsOnDayQuestion({
  id: 'CalendarEventsOnDayQuestion',
  difficulty: 'medium',
  tags: ['information_retrieval', 'date_time', 'screen_reading', 'needs_scrolling'],
  // Up to eleven events: a full day overflows the day view.
  day: (rng) => dayAround(rng, 1, 90),
  count: [2, 11],
  today: false,
});

export const EventsTodayQuestion = eventsOnDayQuestion({
  id: 'CalendarEventsTodayQuestion',
  difficulty: 'easy',
  tags: ['information_retrieval', 'screen_reading'],
  day: () => dateParts(DEVICE_NOW),
  count: [1, 4],
  today: true,
});

const Next = z.object({ target: EventSchema, others: z.array(EventSchema) });

/** The first event starting after the device's now (15:34); none is in progress at that moment. */
function nextScenario(rng: Rng): z.infer<typeof Next> {
  const today = dateParts(DEVICE_NOW);
  const titles = eventTitles(rng, 12);
  const others: EventParam[] = [];
  // Earlier today, over before now.
  const earlier = rng.int(0, 3);
  for (let i = 0; i < earlier; i++) {
    const start = msOf(today, rng.int(8, 13), rng.pick([0, 30]));
    others.push({ ...timedEvent(rng, titles.pop()!, today), start, end: start + rng.pick([30, 45, 60, 90]) * MINUTE_MS });
  }
  // Later today, or within the next three days.
  const offset = rng.pick([0, 0, 1, 2, 3]);
  const targetDay = dateParts(DEVICE_NOW + offset * DAY_MS);
  const start = offset === 0 ? msOf(today, rng.int(16, 19), rng.pick([0, 30])) : msOf(targetDay, rng.int(7, 18), rng.pick([0, 30]));
  const target = { ...timedEvent(rng, titles.pop()!, targetDay), start, end: start + 60 * MINUTE_MS };
  // Later ones, at least an hour after the target, and past ones.
  for (let i = rng.int(2, 4); i > 0; i--) {
    const s = target.start + rng.int(2, 10 * 24 * 2) * 30 * MINUTE_MS;
    others.push({ ...timedEvent(rng, titles.pop()!, dateParts(s)), start: s, end: s + rng.pick([30, 60, 90]) * MINUTE_MS });
  }
  others.push(...elsewhere(rng, today, titles.splice(0, rng.int(1, 3)), -14, -1));
  return { target, others };
}

export const NextEventQuestion = defineTask({
  id: 'CalendarNextEventQuestion',
  apps: ['Calendar'],
  difficulty: 'easy',
  tags: ['information_retrieval', 'date_time', 'screen_reading'],
  kind: 'information_retrieval',
  template: 'What is my next upcoming event in Simple Calendar Pro? Answer with its title.',
  params: Next,
  maxSteps: 15,
  generate: nextScenario,
  initialize: async (device, p) => {
    await clearEvents(device);
    await addEvents(device, [...p.others, p.target].map(toInput));
  },
  check: async (_device, p, episode) => answerVerdict(episode.answer, p.target.title),
  subgoals: () => [
    calendarOpen,
    { name: 'event list shown', check: async ({ obs }) => onScreen(obs, { resourceId: 'calendar_events_list' }) },
  ],
  *oracle(_p, ui) {
    // The time of day off the Clock, then the first event after it in the simple event list.
    yield ui.answer(yield* nextEventTitle(ui));
  },
});

export const QUESTION_TASKS: readonly TaskTemplate[] = [EventsOnDayQuestion, EventsTodayQuestion, NextEventQuestion];

