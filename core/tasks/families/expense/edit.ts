import { z } from 'zod';
import { dollars, randomExpenses } from '../../../seed-data/expenses.js';
import { scrollTo } from '../../oracle.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { detailOpen, expenseOpen, findExpense, logsOpen, openLogs, typed } from './common.js';
import { EXACT_EXPENSE, expenseKind, listExpenses, plainDollars, resetExpenses, type ExpenseRow } from './expense-db.js';
import { Draft } from './params.js';
import { met, verdictOf } from '../../verdict.js';
import { keptThenWanted } from '../../validators/records.js';

/**
 * Changing an expense's amount: open it from the logs, Edit, replace the amount, Update. The
 * edited row keeps its name, category, note and creation date; every other row stays untouched.
 */
const Params = z.object({ target: Draft, amount: z.int().positive(), noise: z.array(Draft) });
type P = z.infer<typeof Params>;

/** The edited row: the new amount, everything else (creation date included) as it was. */
const EDITED = expenseKind({ dates: 'created' });

/** The noise untouched, the target edited as asked, nothing else changed or new. */
const editedConditions = (rows: readonly ExpenseRow[], p: P) => keptThenWanted(rows, EXACT_EXPENSE, p.noise, EDITED, [{ ...p.target, amount: p.amount }], 'edited');

export const EditAmount = defineTask({
  id: 'ExpenseEditAmount',
  apps: ['Pro Expense'],
  difficulty: 'medium',
  tags: ['data_edit', 'dialog'],
  kind: 'completion',
  template: 'In Pro Expense, change the amount of the expense {name} to {amount}.',
  params: Params,
  generate: (rng) => {
    const [target, ...noise] = randomExpenses(rng, 1 + rng.int(6, 10));
    let amount = rng.int(1000, 50000);
    if (amount === target!.amount) amount += 100;
    return { target: target!, amount, noise };
  },
  instruction: (p) => `In Pro Expense, change the amount of the expense ${p.target.name} to ${dollars(p.amount)}.`,
  initialize: async (device, p) => resetExpenses(device, [...p.noise, p.target].sort((a, b) => a.date - b.date)),
  check: async (device, p) => verdictOf(editedConditions(await listExpenses(device), p)),
  subgoals: (p) => [
    expenseOpen,
    logsOpen,
    detailOpen,
    { name: 'update form open', check: async ({ obs }) => obs.elements.some((e) => e.node.text === 'Update Data') },
    typed('new amount', plainDollars(p.amount)),
    { name: 'amount updated', check: async ({ device }) => met(editedConditions(await listExpenses(device), p)) },
  ],
  *oracle(p, ui) {
    yield* openLogs(ui);
    yield ui.tap(yield* findExpense(ui, p.target.name));
    yield ui.tap({ text: 'Edit' });
    yield ui.type({ resourceId: 'edt_amount' }, plainDollars(p.amount), { clear: true });
    yield ui.tap(yield* scrollTo(ui, { resourceId: 'btn_save' }));
    yield ui.complete();
  },
});

export const EDIT_TASKS: readonly TaskTemplate[] = [EditAmount];
