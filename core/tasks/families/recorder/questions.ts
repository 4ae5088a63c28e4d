import { z } from 'zod';
import type { UiElement } from '../../../a11y/ui-tree.js';
import { scrollTo } from '../../oracle.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { answerJudged, answerVerdict, normalizeAnswer } from '../../validators/answers.js';
import { onScreen } from '../../validators/ui.js';
import { drawRecords, openRecorder, recorderOpen, recordsListOpen, SeedRecord, seedRecords } from './recorder-db.js';
import { verdictOf } from '../../verdict.js';

/** Questions answered from the records list: the longest recording, and how long one recording is. */

const ListParams = z.object({ seeded: z.array(SeedRecord).min(3) });

function longest(seeded: readonly SeedRecord[]): SeedRecord {
  return seeded.reduce((a, b) => (b.durationMs > a.durationMs ? b : a));
}

export const LongestRecordingQuestion = defineTask({
  id: 'AudioRecorderLongestRecordingQuestion',
  apps: ['Audio Recorder'],
  difficulty: 'medium',
  tags: ['information_retrieval', 'screen_reading', 'needs_scrolling'],
  kind: 'information_retrieval',
  template: 'What is the name of the longest recording in Audio Recorder? Answer with its name only.',
  params: ListParams,
  generate: (rng) => {
    // Durations at least a second apart, so the list's mm:ss tells them apart.
    for (;;) {
      const seeded = drawRecords(rng, rng.int(5, 12));
      const secs = seeded.map((s) => Math.floor(s.durationMs / 1000)).sort((a, b) => b - a);
      if (secs[0]! > secs[1]!) return { seeded };
    }
  },
  initialize: async (device, p) => seedRecords(device, p.seeded),
  check: async (_device, p, episode) => answerVerdict(episode.answer, longest(p.seeded).name),
  subgoals: () => [recorderOpen, recordsListOpen, { name: 'sorted by duration', check: async ({ obs }) => onScreen(obs, { textContains: 'By duration (longest)' }) }],
  *oracle(_p, ui) {
    yield* openRecorder(ui);
    yield ui.tap({ contentDesc: 'Records' });
    yield ui.tap({ contentDesc: 'Sort' });
    yield ui.tap({ text: 'By duration (longest)' });
    yield ui.answer(ui.require({ resourceId: 'list_item_name' }).node.text);
  },
});

/** mm:ss as shown (leading zeros optional), or the number of seconds ("75", "75 seconds"). */
export function durationAnswerMatches(given: string | undefined, ms: number): boolean {
  if (given === undefined) return false;
  const g = normalizeAnswer(given);
  const secs = Math.floor(ms / 1000);
  const clock = /^(?:(\d+):)?(\d{1,2}):(\d{2})$/.exec(g);
  if (clock) return Number(clock[1] ?? 0) * 3600 + Number(clock[2]) * 60 + Number(clock[3]) === secs;
  const plain = /^(\d+)\s*(?:s|sec|secs|seconds?)?$/.exec(g);
  return plain !== null && Number(plain[1]) === secs;
}

const DurationParams = ListParams.extend({ target: z.string() });

export const RecordingDurationQuestion = defineTask({
  id: 'AudioRecorderRecordingDurationQuestion',
  apps: ['Audio Recorder'],
  difficulty: 'easy',
  tags: ['information_retrieval', 'screen_reading', 'needs_scrolling'],
  kind: 'information_retrieval',
  template: 'How long is the recording "{target}" in Audio Recorder? Answer in mm:ss.',
  params: DurationParams,
  generate: (rng) => {
    const seeded = drawRecords(rng, rng.int(3, 10));
    return { seeded, target: rng.pick(seeded).name };
  },
  initialize: async (device, p) => seedRecords(device, p.seeded),
  check: async (_device, p, episode) => {
    const ms = p.seeded.find((s) => s.name === p.target)!.durationMs;
    const secs = Math.floor(ms / 1000);
    return verdictOf([answerJudged(episode.answer, `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')}`, durationAnswerMatches(episode.answer, ms))]);
  },
  subgoals: () => [recorderOpen, recordsListOpen],
  *oracle(p, ui) {
    yield* openRecorder(ui);
    yield ui.tap({ contentDesc: 'Records' });
    const label: UiElement = yield* scrollTo(ui, { text: p.target, resourceId: 'list_item_name' });
    // The description under the name reads "00:05, m4a, 1.60 kB".
    let row: UiElement | null = label;
    while (row && !row.node.resourceId.endsWith(':id/container')) row = row.parent;
    const desc = ui.findAll({ resourceId: 'list_item_description' }).find((e) => {
      for (let x: UiElement | null = e; x; x = x.parent) if (row && x.node === row.node) return true;
      return false;
    });
    yield ui.answer((desc?.node.text ?? '').split(',')[0]!.trim());
  },
});

export const QUESTION_TASKS: readonly TaskTemplate[] = [LongestRecordingQuestion, RecordingDurationQuestion];
