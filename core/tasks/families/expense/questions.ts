import { z } from 'zod';
import { EXPENSE_CATEGORY_NAMES, randomExpense, randomExpenses, type ExpenseDraft } from '../../../seed-data/expenses.js';
import { launch } from '../../oracle.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { answerVerdict } from '../../validators/answers.js';
import { APP, expenseOpen, logsOpen, openLogs, readAllExpenses } from './common.js';
import { plainDollars, resetExpenses } from './expense-db.js';
import { Draft } from './params.js';

/**
 * Questions answered from what Pro Expense shows: a category's total (every row in the logs, read
 * by its category icon and summed; needs scrolling) and this week's spending (the home screen's
 * Outcome). Answers compare as numbers, so "$123.45", "123.45" and "123.450" all match.
 */
const SPENDING = EXPENSE_CATEGORY_NAMES.filter((c) => c !== 'Income');

const Total = z.object({ category: z.enum(SPENDING as [string, ...string[]]), rows: z.array(Draft), total: z.int() });

export const CategoryTotalQuestion = defineTask({
  id: 'ExpenseCategoryTotalQuestion',
  apps: ['Pro Expense'],
  difficulty: 'hard',
  tags: ['information_retrieval', 'math_counting', 'needs_scrolling', 'screen_reading'],
  kind: 'information_retrieval',
  template: 'How much did I spend on {category} in total according to Pro Expense? Answer with the amount only.',
  params: Total,
  maxSteps: 20,
  generate: (rng) => {
    const category = rng.pick(SPENDING);
    const targets = randomExpenses(rng, rng.int(2, 4), { category });
    const others = randomExpenses(rng, rng.int(9, 12), { avoid: targets.map((t) => t.name), notCategory: category });
    const rows = rng.shuffle([...targets, ...others]);
    return { category, rows, total: targets.reduce((s, t) => s + t.amount, 0) };
  },
  initialize: async (device, p) => resetExpenses(device, p.rows),
  check: async (_device, p, episode) => answerVerdict(episode.answer, plainDollars(p.total)),
  subgoals: () => [expenseOpen, logsOpen],
  *oracle(p, ui) {
    yield* openLogs(ui);
    const all = yield* readAllExpenses(ui);
    const cents = all.filter((e) => e.category === p.category).reduce((s, e) => s + e.amount, 0);
    yield ui.answer(plainDollars(cents));
  },
});

const DAY_START = Date.UTC(2023, 9, 15);

const Week = z.object({ rows: z.array(Draft), total: z.int() });

export const WeekTotalQuestion = defineTask({
  id: 'ExpenseWeekTotalQuestion',
  apps: ['Pro Expense'],
  difficulty: 'easy',
  tags: ['information_retrieval', 'screen_reading'],
  kind: 'information_retrieval',
  template: 'How much have I spent this week according to Pro Expense (income not counted)? Answer with the amount only.',
  params: Week,
  generate: (rng) => {
    // The app's week starts on Sunday, the device's today (15 October): this week is today.
    const today = randomExpenses(rng, rng.int(2, 4)).map((e) => ({ ...e, date: DAY_START + rng.int(0, 15 * 60) * 60_000 }));
    const earlier = randomExpenses(rng, rng.int(4, 7), { avoid: today.map((t) => t.name) })
      .map((e) => ({ ...e, date: Math.min(e.date, DAY_START - rng.int(1, 600) * 60_000) }));
    const income: ExpenseDraft = { ...randomExpense(rng, { category: 'Income' }), date: DAY_START + rng.int(0, 15 * 60) * 60_000 };
    return { rows: rng.shuffle([...today, ...earlier, income]), total: today.reduce((s, t) => s + t.amount, 0) };
  },
  initialize: async (device, p) => resetExpenses(device, p.rows),
  check: async (_device, p, episode) => answerVerdict(episode.answer, plainDollars(p.total)),
  subgoals: () => [expenseOpen],
  *oracle(_p, ui) {
    yield* launch(ui, APP);
    yield ui.answer(ui.require({ resourceId: 'tv_outcome_value' }).node.text);
  },
});

export const QUESTION_TASKS: readonly TaskTemplate[] = [CategoryTotalQuestion, WeekTotalQuestion];
