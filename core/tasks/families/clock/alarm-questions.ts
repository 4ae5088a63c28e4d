import { z } from 'zod';
import { DEVICE_NOW } from '../../../seed-data/dates.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { countAnswerMatches, timeAnswerMatches } from './answers.js';
import { AlarmSpec, clockOpen, DAY_BITS, openClockTab, randomAlarms, setAlarms, tabSelected } from './common.js';
import { holds, verdictOf } from '../../verdict.js';
import { answeredWords } from '../../validators/answers.js';

/**
 * Questions answered from the alarms: when the next one rings (repeat days matter, disabled ones
 * do not) and how many are switched on (the list needs scrolling when there are many).
 */
const DAY_MS = 86_400_000;

/** When an alarm next rings after `now` (a one-time alarm today if still ahead, else tomorrow). */
export function nextRing(a: AlarmSpec, now: number): number {
  const d = new Date(now);
  const today = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), a.hour, a.minutes);
  for (let i = 0; i <= 7; i++) {
    const t = today + i * DAY_MS;
    if (t > now && (a.days === 0 || (a.days & DAY_BITS[new Date(t).getUTCDay()]!) !== 0)) return t;
  }
  return today + 7 * DAY_MS;
}

const Next = z.object({ alarms: z.array(AlarmSpec).min(1), hour: z.int().min(0).max(23), minute: z.int().min(0).max(59) });

export const NextAlarmQuestion = defineTask({
  id: 'ClockNextAlarmQuestion',
  apps: ['Clock'],
  difficulty: 'easy',
  tags: ['information_retrieval', 'date_time', 'screen_reading'],
  kind: 'information_retrieval',
  template: 'What time does my next alarm go off? Answer with the time only.',
  params: Next,
  generate: (rng) => {
    // No alarm in the hours the episode runs in (the device starts at 3:34 PM), so the answer holds.
    const alarms = randomAlarms(rng, rng.int(3, 6), [], { labelled: rng.int(0, 3), quietHours: [15, 16] });
    if (!alarms.some((a) => a.enabled)) alarms[rng.int(0, alarms.length - 1)]!.enabled = true;
    const next = alarms.filter((a) => a.enabled).sort((a, b) => nextRing(a, DEVICE_NOW) - nextRing(b, DEVICE_NOW))[0]!;
    return { alarms, hour: next.hour, minute: next.minutes };
  },
  initialize: async (device, p) => setAlarms(device, p.alarms),
  check: async (_device, p, episode) => verdictOf([holds(`answer is the time ${p.hour}:${String(p.minute).padStart(2, '0')}`, timeAnswerMatches(episode.answer, [{ hour: p.hour, minute: p.minute }]),
    { expected: `${p.hour}:${String(p.minute).padStart(2, '0')}`, found: answeredWords(episode.answer) })]),
  subgoals: () => [clockOpen],
  *oracle(_p, ui) {
    // The Clock tab shows the next alarm under the date ("Mon 7:30 AM").
    yield* openClockTab(ui, 'clock');
    const line = ui.require({ resourceId: 'nextAlarm' }).node.text;
    yield ui.answer(line.replace(/^\w{3} /, ''));
  },
});

const Count = z.object({ alarms: z.array(AlarmSpec).min(1), count: z.int().min(0) });

export const EnabledAlarmCount = defineTask({
  id: 'ClockEnabledAlarmCountQuestion',
  apps: ['Clock'],
  difficulty: 'medium',
  tags: ['information_retrieval', 'math_counting', 'needs_scrolling'],
  kind: 'information_retrieval',
  template: 'How many of my alarms are turned on? Answer with a number.',
  params: Count,
  generate: (rng) => {
    const alarms = randomAlarms(rng, rng.int(4, 8), [], { labelled: rng.int(0, 4) });
    return { alarms, count: alarms.filter((a) => a.enabled).length };
  },
  initialize: async (device, p) => setAlarms(device, p.alarms),
  check: async (_device, p, episode) => verdictOf([holds(`answer equals ${p.count}`, countAnswerMatches(episode.answer, p.count), { expected: String(p.count), found: answeredWords(episode.answer) })]),
  subgoals: () => [clockOpen, tabSelected('alarm', 'Alarm')],
  *oracle(_p, ui) {
    yield* openClockTab(ui, 'alarm');
    // Each switch is described by its alarm's time, which tells cards apart while scrolling.
    const on = new Map<string, boolean>();
    for (let i = 0; i < 20; i++) {
      for (const sw of ui.findAll({ resourceId: 'onoff' })) on.set(sw.node.contentDesc, sw.node.checked);
      if (!ui.find({ resourceId: 'alarm_recycler_view' })?.node.scrollable) break;
      const before = ui.fingerprint();
      yield ui.scroll('down', { resourceId: 'alarm_recycler_view' });
      if (ui.fingerprint() === before) break;
    }
    yield ui.answer(String([...on.values()].filter(Boolean).length));
  },
});

export const ALARM_QUESTION_TASKS: readonly TaskTemplate[] = [NextAlarmQuestion, EnabledAlarmCount];
