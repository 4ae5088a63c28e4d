import { z } from 'zod';
import { randomExpenses } from '../../../seed-data/expenses.js';
import { launch } from '../../oracle.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { addExpense, APP, entryOpen, expenseOpen, typed } from './common.js';
import { EXACT_EXPENSE, listExpenses, LOOSE_EXPENSE, resetExpenses, type ExpenseRow } from './expense-db.js';
import { describe, Draft } from './params.js';
import { met, verdictOf } from '../../verdict.js';
import { keptThenWanted } from '../../validators/records.js';

/**
 * Adding expenses (AndroidWorld's ExpenseAddSingle / ExpenseAddMultiple): the table starts with
 * noise expenses; afterwards it must hold every noise row untouched plus exactly one new row per
 * target with its name, amount, category and note (date free, as in AndroidWorld).
 */
const Params = z.object({ targets: z.array(Draft).min(1).max(3), noise: z.array(Draft) });
type P = z.infer<typeof Params>;

/** The noise untouched, every target matched by its own new row, and nothing else new. */
const addedConditions = (rows: readonly ExpenseRow[], p: P) => keptThenWanted(rows, EXACT_EXPENSE, p.noise, LOOSE_EXPENSE, p.targets, 'added');

function addTask(o: { id: string; count: [number, number]; difficulty: 'medium' | 'hard'; maxSteps: number }): TaskTemplate<P> {
  const single = o.count[1] === 1;
  return defineTask({
    id: o.id,
    apps: ['Pro Expense'],
    difficulty: o.difficulty,
    tags: single ? ['data_entry', 'transcription'] : ['data_entry', 'transcription', 'memorization'],
    kind: 'completion',
    template: single
      ? 'Add the following expense in Pro Expense: name {name}, amount {amount}, category {category}, note {note}.'
      : 'Add the following expenses in Pro Expense: {expenses}.',
    params: Params,
    maxSteps: o.maxSteps,
    generate: (rng) => {
      const targets = randomExpenses(rng, rng.int(o.count[0], o.count[1]));
      const noise = randomExpenses(rng, 10, { avoid: targets.map((t) => t.name) });
      return { targets, noise };
    },
    instruction: (p) => single
      ? `Add the following expense in Pro Expense: ${describe(p.targets[0]!)}.`
      : `Add the following expenses in Pro Expense:\n${p.targets.map((t, i) => `${i + 1}. ${describe(t)}`).join('\n')}`,
    initialize: async (device, p) => resetExpenses(device, p.noise),
    check: async (device, p) => verdictOf(addedConditions(await listExpenses(device), p)),
    subgoals: (p) => [
      expenseOpen,
      entryOpen,
      typed('name', p.targets[0]!.name),
      {
        name: single ? 'expense saved' : 'all expenses saved',
        check: async ({ device }) => met(addedConditions(await listExpenses(device), p)),
      },
    ],
    *oracle(p, ui) {
      yield* launch(ui, APP);
      for (const t of p.targets) yield* addExpense(ui, t);
      yield ui.complete();
    },
  });
}

export const AddSingle = addTask({ id: 'ExpenseAddSingle', count: [1, 1], difficulty: 'medium', maxSteps: 20 });
export const AddMultiple = addTask({ id: 'ExpenseAddMultiple', count: [2, 3], difficulty: 'hard', maxSteps: 45 });

export const ADD_TASKS: readonly TaskTemplate[] = [AddSingle, AddMultiple];
