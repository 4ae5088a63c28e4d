import { z } from 'zod';
import { randomExpenseTime, randomExpenses } from '../../../seed-data/expenses.js';
import { OracleError, screenSummary } from '../../oracle.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { deleteFromDetail, detailOpen, expenseOpen, findExpense, logsOpen, openLogs, selectionMode, shownExpenses } from './common.js';
import { exactlyVerdict, resetExpenses } from './expense-db.js';
import { Draft } from './params.js';
import { met, verdictOf } from '../../verdict.js';

/**
 * Deleting expenses (AndroidWorld's ExpenseDeleteSingle / ExpenseDeleteMultiple /
 * ExpenseDeleteDuplicates): afterwards the table must hold exactly the rows that should remain,
 * untouched; deleting a wrong row or leaving a target fails.
 */
const Params = z.object({ targets: z.array(Draft).min(1), noise: z.array(Draft) });

function deleteTask(o: { id: string; targets: number; noise: [number, number]; difficulty: 'medium' | 'hard'; maxSteps: number }): TaskTemplate<z.infer<typeof Params>> {
  const single = o.targets === 1;
  return defineTask({
    id: o.id,
    apps: ['Pro Expense'],
    difficulty: o.difficulty,
    tags: single ? ['deletion', 'dialog'] : ['deletion', 'long_press', 'needs_scrolling', 'dialog'],
    kind: 'completion',
    template: single ? 'Delete the expense {name} from Pro Expense.' : 'Delete the following expenses from Pro Expense: {names}.',
    params: Params,
    maxSteps: o.maxSteps,
    generate: (rng) => {
      const all = randomExpenses(rng, o.targets + rng.int(o.noise[0], o.noise[1]));
      return { targets: all.slice(0, o.targets), noise: all.slice(o.targets) };
    },
    instruction: (p) => single
      ? `Delete the expense ${p.targets[0]!.name} from Pro Expense.`
      : `Delete the following expenses from Pro Expense: ${p.targets.map((t) => t.name).join(', ')}.`,
    // Targets mixed among the noise, so their place in the list varies with the seed.
    initialize: async (device, p) => resetExpenses(device, [...p.noise, ...p.targets].sort((a, b) => a.date - b.date)),
    check: async (device, p) => verdictOf(await exactlyVerdict(device, p.noise)),
    subgoals: (p) => [
      expenseOpen,
      logsOpen,
      single ? detailOpen : selectionMode,
      { name: single ? 'expense deleted' : 'expenses deleted', check: async ({ device }) => met(await exactlyVerdict(device, p.noise)) },
    ],
    *oracle(p, ui) {
      yield* openLogs(ui);
      if (single) {
        yield* deleteFromDetail(ui, yield* findExpense(ui, p.targets[0]!.name));
        yield ui.complete();
        return;
      }
      // Long-press the first target seen, then tap the others as they scroll into view.
      const left = new Set(p.targets.map((t) => t.name));
      let selecting = false;
      for (let guard = 0; left.size > 0; guard++) {
        if (guard > 60) throw new OracleError('Could not select every target', screenSummary(ui.obs));
        const hit = [...left].map((n) => ui.find({ resourceId: 'tv_name', text: n })).find((e) => e !== undefined);
        if (hit) {
          yield selecting ? ui.tap(hit) : ui.longPress(hit);
          selecting = true;
          left.delete(hit.node.text);
          continue;
        }
        const before = ui.fingerprint();
        yield ui.scroll('down');
        if (ui.fingerprint() === before) throw new OracleError(`Targets not found: ${[...left].join(', ')}`, screenSummary(ui.obs));
      }
      yield ui.tap({ contentDesc: 'Delete' });
      yield ui.tap({ text: 'Confirm' });
      yield ui.complete();
    },
  });
}

export const DeleteSingle = deleteTask({ id: 'ExpenseDeleteSingle', targets: 1, noise: [5, 9], difficulty: 'medium', maxSteps: 20 });
export const DeleteMultiple = deleteTask({ id: 'ExpenseDeleteMultiple', targets: 3, noise: [14, 20], difficulty: 'hard', maxSteps: 30 });

const Dupes = z.object({ target: Draft, near: Draft, noise: z.array(Draft) });

/** Two exact copies of one expense, a near copy (same name, other amount and date) and noise. */
export const DeleteDuplicates = defineTask({
  id: 'ExpenseDeleteDuplicates',
  apps: ['Pro Expense'],
  difficulty: 'hard',
  tags: ['deletion', 'verification', 'screen_reading', 'dialog'],
  kind: 'completion',
  template: 'Delete all but one of any expenses in Pro Expense that are exact duplicates, ensuring at least one instance of each unique expense remains.',
  params: Dupes,
  maxSteps: 25,
  generate: (rng) => {
    const [target, ...noise] = randomExpenses(rng, 1 + rng.int(5, 8));
    let date = randomExpenseTime(rng);
    while (Math.abs(date - target!.date) < 86_400_000) date = randomExpenseTime(rng);
    const near = { ...target!, amount: target!.amount + rng.int(50, 1000), date };
    return { target: target!, near, noise };
  },
  initialize: async (device, p) => resetExpenses(device, [...p.noise, p.near, p.target, p.target].sort((a, b) => a.date - b.date)),
  check: async (device, p) => verdictOf(await exactlyVerdict(device, [...p.noise, p.near, p.target])),
  subgoals: (p) => [
    expenseOpen,
    logsOpen,
    detailOpen,
    { name: 'one duplicate deleted', check: async ({ device }) => met(await exactlyVerdict(device, [...p.noise, p.near, p.target])) },
  ],
  *oracle(_p, ui) {
    // Copies look alike and sit next to each other (same date): two neighbouring rows with the same
    // name, category and amount. The second is deleted; the list is read screen by screen.
    yield* openLogs(ui);
    for (let guard = 0; guard < 40; guard++) {
      const rows = shownExpenses(ui).sort((a, b) => a.el.node.bounds.top - b.el.node.bounds.top);
      const i = rows.findIndex((r, k) => k > 0 && r.name === rows[k - 1]!.name && r.category === rows[k - 1]!.category && r.amount === rows[k - 1]!.amount);
      if (i > 0) {
        yield* deleteFromDetail(ui, rows[i]!.el);
        yield ui.complete();
        return;
      }
      const before = ui.fingerprint();
      yield ui.scroll('down');
      if (ui.fingerprint() === before) break;
    }
    throw new OracleError('No two rows alike in the expense logs', screenSummary(ui.obs));
  },
});

export const DELETE_TASKS: readonly TaskTemplate[] = [DeleteSingle, DeleteMultiple, DeleteDuplicates];
