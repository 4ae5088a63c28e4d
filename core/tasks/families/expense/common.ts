import type { Action } from '../../../actions/schema.js';
import type { UiElement, UiNode } from '../../../a11y/ui-tree.js';
import type { ExpenseDraft } from '../../../seed-data/expenses.js';
import { launch, OracleError, screenSummary, scrollTo, type OracleUi } from '../../oracle.js';
import type { Subgoal } from '../../task.js';
import { fieldHolds, inActivity, onScreen } from '../../validators/ui.js';
import { EXPENSE_PKG, plainDollars } from './expense-db.js';

/** Oracle moves and subgoals shared by the Pro Expense templates. */
export const APP = 'Pro Expense';

export const expenseOpen: Subgoal = { name: 'Pro Expense open', check: async ({ obs }) => inActivity(obs, EXPENSE_PKG) };

export const logsOpen: Subgoal = {
  name: 'expense logs open',
  check: async ({ obs }) => inActivity(obs, EXPENSE_PKG) && (onScreen(obs, { text: 'Expense Logs' }) || onScreen(obs, { resourceId: 'rv_expense' })),
};

export const entryOpen: Subgoal = {
  name: 'entry form open',
  check: async ({ obs }) => inActivity(obs, EXPENSE_PKG) && onScreen(obs, { resourceId: 'edt_amount' }),
};

export function typed(what: string, text: string): Subgoal {
  return { name: `${what} typed`, check: async ({ obs }) => fieldHolds(obs, text) };
}

export const detailOpen: Subgoal = {
  name: 'expense detail open',
  check: async ({ obs }) => onScreen(obs, { text: 'Expense Detail' }),
};

export const selectionMode: Subgoal = {
  name: 'selection mode on',
  check: async ({ obs }) => onScreen(obs, { contentDesc: 'Select All' }),
};

/** Opens the app and its expense logs ("More" under Recent on the home screen). */
export function* openLogs(ui: OracleUi): Generator<Action, void, void> {
  yield* launch(ui, APP);
  yield ui.tap({ resourceId: 'btn_more_logs' });
}

/** Scrolls the logs to an expense row by name. */
export function* findExpense(ui: OracleUi, name: string): Generator<Action, UiElement, void> {
  return yield* scrollTo(ui, { resourceId: 'tv_name', text: name });
}

/** Taps the FAB, fills the entry form for a draft and saves it (back to the previous screen). */
export function* addExpense(ui: OracleUi, e: ExpenseDraft): Generator<Action, void, void> {
  yield ui.tap({ resourceId: 'fb_main_add' });
  yield ui.type({ resourceId: 'edt_name' }, e.name);
  yield ui.type({ resourceId: 'edt_amount' }, plainDollars(e.amount));
  const chip = yield* scrollTo(ui, { resourceId: 'cd_category', text: e.category });
  if (!chip.node.checked) yield ui.tap(chip);
  if (e.note) {
    const note = yield* scrollTo(ui, { resourceId: 'edt_note' });
    yield ui.type(note, e.note);
  }
  yield ui.tap(yield* scrollTo(ui, { resourceId: 'btn_save' }));
}

/** Deletes the expense shown by a row: open its detail sheet, Delete, Confirm. */
export function* deleteFromDetail(ui: OracleUi, row: UiElement): Generator<Action, void, void> {
  yield ui.tap(row);
  yield ui.tap({ resourceId: 'btn_delete' });
  yield ui.tap({ text: 'Confirm' });
}

function descendant(node: UiNode, id: string): UiNode | undefined {
  for (const c of node.children) {
    if (c.resourceId.endsWith(`:id/${id}`)) return c;
    const d = descendant(c, id);
    if (d) return d;
  }
  return undefined;
}

export interface ShownExpense {
  name: string;
  category: string;
  amount: number;
}

/** One expense row read as a person reads it (icon description, name, amount); undefined while cut off. */
export function readRow(el: UiElement): ShownExpense | undefined {
  const name = descendant(el.node, 'tv_name')?.text;
  const category = descendant(el.node, 'imv_category')?.contentDesc;
  const amount = descendant(el.node, 'tv_amount')?.text;
  if (name === undefined || category === undefined || amount === undefined) return undefined;
  const cents = Math.round(Number(amount.replace(/,/g, '')) * 100);
  return Number.isFinite(cents) ? { name, category, amount: cents } : undefined;
}

/** The expense rows fully on screen. */
export function shownExpenses(ui: OracleUi): Array<ShownExpense & { el: UiElement }> {
  return ui.findAll({ resourceId: 'cd_expense' }).flatMap((el) => {
    const e = readRow(el);
    return e ? [{ ...e, el }] : [];
  });
}

/** Reads every expense in the logs, scrolling to the end; rows are told apart by name. */
export function* readAllExpenses(ui: OracleUi): Generator<Action, ShownExpense[], void> {
  const seen = new Map<string, ShownExpense>();
  for (let i = 0; i < 40; i++) {
    for (const e of shownExpenses(ui)) seen.set(e.name, { name: e.name, category: e.category, amount: e.amount });
    const before = ui.fingerprint();
    yield ui.scroll('down');
    if (ui.fingerprint() === before) return [...seen.values()];
  }
  throw new OracleError('The expense logs never ended', screenSummary(ui.obs));
}
