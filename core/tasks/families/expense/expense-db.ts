import type { Device } from '../../../device/device.js';
import { withoutMatches } from '../../validators/records.js';
import { EXPENSE_CATEGORY_IDS, type ExpenseDraft } from '../../../seed-data/expenses.js';
import { sqlExec, sqlInsert, sqlNumber, sqlObjects, sqlText } from '../../validators/sqlite.js';

/**
 * Pro Expense's database as checkers see it through `sqlite3` on the device (real or SimDroid):
 * table `expense` in accounting.db, amount in cents (INTEGER), category as the app's id.
 */
export const EXPENSE_PKG = 'com.arduia.expense';
export const EXPENSE_DB_PATH = '/data/data/com.arduia.expense/databases/accounting.db';

export const EXPENSE_COLUMNS = ['expense_id', 'name', 'amount', 'category', 'note', 'created_date', 'modified_date'] as const;

export interface ExpenseRow {
  expense_id: number;
  name: string | null;
  amount: number;
  category: number;
  note: string | null;
  created_date: number;
  modified_date: number;
}

export async function listExpenses(device: Device): Promise<ExpenseRow[]> {
  const rows = await sqlObjects(device, EXPENSE_DB_PATH, EXPENSE_COLUMNS, 'expense ORDER BY expense_id');
  return rows.map((r) => ({
    expense_id: sqlNumber(r, 'expense_id'), name: sqlText(r, 'name'), amount: sqlNumber(r, 'amount'), category: sqlNumber(r, 'category'),
    note: sqlText(r, 'note'), created_date: sqlNumber(r, 'created_date'), modified_date: sqlNumber(r, 'modified_date'),
  }));
}

/** Empties the table and restarts its ids, so a task's rows get ids 1..n in insertion order. */
export async function clearExpenses(device: Device): Promise<void> {
  await sqlExec(device, EXPENSE_DB_PATH, "DELETE FROM expense; DELETE FROM sqlite_sequence WHERE name = 'expense';");
}

export function expenseInsert(e: ExpenseDraft): string {
  return sqlInsert('expense', {
    name: e.name, amount: e.amount, category: EXPENSE_CATEGORY_IDS[e.category], note: e.note, created_date: e.date, modified_date: e.date,
  });
}

export async function insertExpenses(device: Device, rows: readonly ExpenseDraft[]): Promise<void> {
  if (rows.length) await sqlExec(device, EXPENSE_DB_PATH, rows.map(expenseInsert).join('\n'));
}

/** Clears the table, then inserts the rows in order (ids 1..n). */
export async function resetExpenses(device: Device, rows: readonly ExpenseDraft[]): Promise<void> {
  await clearExpenses(device);
  await insertExpenses(device, rows);
}

const norm = (s: string | null | undefined) => (s ?? '').trim().toLowerCase();

/** A stored row holds the draft's name, amount, category and note (free text compared loosely). */
export function rowMatches(row: ExpenseRow, e: ExpenseDraft): boolean {
  return norm(row.name) === norm(e.name) && row.amount === e.amount && row.category === EXPENSE_CATEGORY_IDS[e.category] && norm(row.note) === norm(e.note);
}

/** A stored row is exactly the inserted draft, dates included (an untouched record). */
export function rowIsExactly(row: ExpenseRow, e: ExpenseDraft): boolean {
  return row.name === e.name && row.amount === e.amount && row.category === EXPENSE_CATEGORY_IDS[e.category] && row.note === e.note
    && row.created_date === e.date && row.modified_date === e.date;
}

/**
 * Removes one exactly-equal row per expected draft; returns the rows left over, or null when an
 * expected draft is missing (deleted or changed).
 */
export function withoutExact(rows: readonly ExpenseRow[], expected: readonly ExpenseDraft[]): ExpenseRow[] | null {
  return withoutMatches(rows, expected, rowIsExactly);
}

/** The table holds exactly these drafts (as a multiset), nothing more. */
export async function holdsExactly(device: Device, expected: readonly ExpenseDraft[]): Promise<boolean> {
  const left = withoutExact(await listExpenses(device), expected);
  return left !== null && left.length === 0;
}

/** "123.45" for cents, the way answers and the amount field write money. */
export function plainDollars(cents: number): string {
  return (cents / 100).toFixed(2);
}
