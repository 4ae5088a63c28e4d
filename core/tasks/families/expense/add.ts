import { z } from 'zod';
import { randomExpenses, type ExpenseDraft } from '../../../seed-data/expenses.js';
import { launch } from '../../oracle.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { addExpense, APP, entryOpen, expenseOpen, typed } from './common.js';
import { EXACT_EXPENSE, expenseKind, listExpenses, resetExpenses, rowMatches, withoutExact, type ExpenseRow } from './expense-db.js';
import { describe, Draft } from './params.js';
import { verdictOf } from '../../verdict.js';
import { keptThenWanted } from '../../validators/records.js';

/** A new row: name, amount, category and note as asked (date free). */
const ADDED = expenseKind(rowMatches, { loose: true });

/**
 * Adding expenses (AndroidWorld's ExpenseAddSingle / ExpenseAddMultiple): the table starts with
 * noise expenses; afterwards it must hold every noise row untouched plus exactly one new row per
 * target with its name, amount, category and note (date free, as in AndroidWorld).
 */
const Params = z.object({ targets: z.array(Draft).min(1).max(3), noise: z.array(Draft) });
type P = z.infer<typeof Params>;

/** Every target matched by its own new row, and nothing else new. */
export function addedExactly(rows: readonly ExpenseRow[], noise: readonly ExpenseDraft[], targets: readonly ExpenseDraft[]): boolean {
  const added = withoutExact(rows, noise);
  if (!added || added.length !== targets.length) return false;
  const left = [...added];
  for (const t of targets) {
    const i = left.findIndex((r) => rowMatches(r, t));
    if (i < 0) return false;
    left.splice(i, 1);
  }
  return true;
}

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
    check: async (device, p) => verdictOf(keptThenWanted(await listExpenses(device), EXACT_EXPENSE, p.noise, ADDED, p.targets, 'added')),
    subgoals: (p) => [
      expenseOpen,
      entryOpen,
      typed('name', p.targets[0]!.name),
      {
        name: single ? 'expense saved' : 'all expenses saved',
        check: async ({ device }) => addedExactly(await listExpenses(device), p.noise, p.targets),
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
