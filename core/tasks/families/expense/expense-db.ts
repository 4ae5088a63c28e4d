import type { Device } from '../../../device/device.js';
import { exactRecords, recordKind, type RecordField, type RecordKind } from '../../validators/records.js';
import type { CheckCondition } from '../../verdict.js';
import { EXPENSE_CATEGORY_IDS, EXPENSE_CATEGORY_NAMES, type ExpenseDraft } from '../../../seed-data/expenses.js';
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

/** "123.45" for cents, the way answers and the amount field write money. */
export function plainDollars(cents: number): string {
  return (cents / 100).toFixed(2);
}

const categoryName = (id: number) => EXPENSE_CATEGORY_NAMES.find((c) => EXPENSE_CATEGORY_IDS[c] === id) ?? `category #${id}`;
const day = (ms: number) => new Date(ms).toISOString();
const quoted = (s: string | null) => (s === null ? 'none' : JSON.stringify(s));

/**
 * Expense rows as a checker compares them, with words for its reasons: name, amount, category and
 * note; `loose` compares name and note without case or outer spaces; `dates` says which stored
 * dates must equal the draft's date. A row is the draft when every field matches.
 */
export function expenseKind(o: { loose?: boolean; dates?: 'both' | 'created' | 'none' } = {}): RecordKind<ExpenseRow, ExpenseDraft> {
  const text = (got: (r: ExpenseRow) => string | null, want: (e: ExpenseDraft) => string, name: string): RecordField<ExpenseRow, ExpenseDraft> => ({
    name, got: (r) => quoted(got(r)), want: (e) => quoted(want(e)),
    same: o.loose ? (r, e) => norm(got(r)) === norm(want(e)) : (r, e) => got(r) === want(e),
  });
  const date = (name: string, got: (r: ExpenseRow) => number): RecordField<ExpenseRow, ExpenseDraft> => ({
    name, got: (r) => day(got(r)), want: (e) => day(e.date), same: (r, e) => got(r) === e.date,
  });
  const dates = o.dates ?? 'none';
  return recordKind<ExpenseRow, ExpenseDraft>('expense', (e) => JSON.stringify(e.name), (r) => r.name ?? '', [
    text((r) => r.name, (e) => e.name, 'name'),
    { name: 'amount', got: (r) => plainDollars(r.amount), want: (e) => plainDollars(e.amount), same: (r, e) => r.amount === e.amount },
    { name: 'category', got: (r) => categoryName(r.category), want: (e) => e.category, same: (r, e) => r.category === EXPENSE_CATEGORY_IDS[e.category] },
    text((r) => r.note, (e) => e.note, 'note'),
    ...(dates === 'none' ? [] : [date('created', (r) => r.created_date)]),
    ...(dates === 'both' ? [date('modified', (r) => r.modified_date)] : []),
  ]);
}

/** Untouched rows: exactly as inserted, dates included. */
export const EXACT_EXPENSE = expenseKind({ dates: 'both' });
/** A row with the draft's content: name and note loosely, amount and category exactly, any date. */
export const LOOSE_EXPENSE = expenseKind({ loose: true });

/** The table holds exactly these drafts (as a multiset, dates included), nothing more: one condition per draft, then none other. */
export async function exactlyVerdict(device: Device, expected: readonly ExpenseDraft[]): Promise<CheckCondition[]> {
  return exactRecords(EXACT_EXPENSE, await listExpenses(device), expected, 'kept');
}

