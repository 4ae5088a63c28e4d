import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { answerListVerdict, answerVerdict } from '../../validators/answers.js';
import { drawTitles, dueTodayList, DueTodayList, editorOpen, installSeeds, PRIORITY_DESC, SeedTask, seedTasks, tasksOpen } from './common.js';
import { isTodayLabel, openTasks, readAllRows, sortBy, visibleRows } from './steps.js';

/**
 * Questions answered from what Tasks shows: which tasks are due today (reading "Today" and bare
 * times), how many tasks are still open (counting down a list longer than the screen), and which
 * open tasks have high priority (only the editor says so in words; the list shows a red box).
 * Completed tasks are hidden by default and never part of an answer.
 */
export const DueTodayQuestion = defineTask({
  id: 'TasksDueTodayQuestion',
  maxSteps: 30,
  apps: ['Tasks'],
  difficulty: 'medium',
  tags: ['information_retrieval', 'date_time', 'screen_reading', 'needs_scrolling'],
  kind: 'information_retrieval',
  template: 'Which of my incomplete tasks in Tasks are due today? Answer with their titles, separated by commas.',
  params: DueTodayList,
  generate: (rng) => dueTodayList(rng, [10, 20]),
  initialize: async (device, p) => installSeeds(device, p.tasks),
  check: async (_device, p, episode) => answerListVerdict(episode.answer, p.today),
  subgoals: () => [tasksOpen],
  *oracle(_p, ui) {
    yield* openTasks(ui);
    const rows = yield* readAllRows(ui);
    yield ui.answer(rows.filter((r) => isTodayLabel(r.due)).map((r) => r.title).join(', '));
  },
});

const Count = z.object({ open: z.int().min(1), tasks: z.array(SeedTask) });

export const IncompleteCountQuestion = defineTask({
  id: 'TasksIncompleteCountQuestion',
  maxSteps: 30,
  apps: ['Tasks'],
  difficulty: 'medium',
  tags: ['information_retrieval', 'math_counting', 'needs_scrolling'],
  kind: 'information_retrieval',
  template: 'How many incomplete tasks do I have in Tasks? Answer with a number.',
  params: Count,
  generate: (rng) => {
    const open = rng.int(6, 20);
    const done = rng.int(1, 4);
    const titles = drawTitles(rng, open + done);
    const tasks = seedTasks(rng, titles).map((t, i) => ({ ...t, completed: i >= open }));
    return { open, tasks: rng.shuffle(tasks) };
  },
  initialize: async (device, p) => installSeeds(device, p.tasks),
  check: async (_device, p, episode) => answerVerdict(episode.answer, String(p.open)),
  subgoals: () => [tasksOpen],
  *oracle(_p, ui) {
    yield* openTasks(ui);
    const rows = yield* readAllRows(ui);
    yield ui.answer(String(rows.filter((r) => !r.checked).length));
  },
});

const High = z.object({ high: z.array(z.string().min(1)).min(1), tasks: z.array(SeedTask) });

export const HighPriorityQuestion = defineTask({
  id: 'TasksHighPriorityQuestion',
  maxSteps: 30,
  apps: ['Tasks'],
  difficulty: 'hard',
  tags: ['information_retrieval', 'screen_reading', 'complex_ui'],
  kind: 'information_retrieval',
  template: 'Which of my incomplete tasks in Tasks have high priority? Answer with their titles, separated by commas.',
  params: High,
  generate: (rng) => {
    const titles = drawTitles(rng, rng.int(6, 11));
    const nHigh = rng.int(1, 3);
    const tasks = titles.map((title, i) => {
      if (i < nHigh) return seedTasks(rng, [title], { importances: [0] })[0]!;
      // One completed high-priority task: hidden, and not an answer.
      if (i === nHigh) return { ...seedTasks(rng, [title], { importances: [0] })[0]!, completed: true };
      return seedTasks(rng, [title], { importances: [1, 2, 3], completedChance: 0.1 })[0]!;
    });
    return { high: titles.slice(0, nHigh), tasks: rng.shuffle(tasks) };
  },
  initialize: async (device, p) => installSeeds(device, p.tasks),
  check: async (_device, p, episode) => answerListVerdict(episode.answer, p.high),
  subgoals: () => [tasksOpen, editorOpen],
  *oracle(_p, ui) {
    yield* openTasks(ui);
    // Sorted by priority, the high ones come first: open rows in order until one is not high.
    yield* sortBy(ui, 'By priority');
    const high: string[] = [];
    for (const row of visibleRows(ui)) {
      yield ui.tap({ resourceId: 'title', text: row.title });
      const isHigh = ui.require({ contentDesc: PRIORITY_DESC[0] }).node.checked;
      yield ui.back();
      if (!isHigh) break;
      high.push(row.title);
    }
    yield ui.answer(high.join(', '));
  },
});

export const QUESTION_TASKS: readonly TaskTemplate[] = [DueTodayQuestion, IncompleteCountQuestion, HighPriorityQuestion];
