import type { Rng } from '../../../../core/util/rng.js';
import type { Db } from '../../system/databases.js';
import { EXPENSE_CATEGORY_IDS, randomExpense } from '../../../../core/seed-data/expenses.js';

/**
 * Pro Expense's Room database (ProExpenseDatabase v6): `accounting.db`, table `expense`. Amounts are
 * stored as the app stores them, an INTEGER scaled by 100 (cents), so "$12.50" is 1250, as
 * AndroidWorld reads them; dates are epoch milliseconds; category is the app's integer id.
 */
export const EXPENSE_DB = '/data/data/com.arduia.expense/databases/accounting.db';

export const EXPENSE_SCHEMA = `
CREATE TABLE expense (expense_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, name TEXT, amount INTEGER NOT NULL,
  category INTEGER NOT NULL, note TEXT, created_date INTEGER NOT NULL, modified_date INTEGER NOT NULL);
CREATE TABLE backup (backup_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, name TEXT NOT NULL, path TEXT NOT NULL,
  created_date INTEGER NOT NULL, item_total INTEGER NOT NULL, worker_id TEXT NOT NULL, is_completed INTEGER NOT NULL);
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
`;

export interface Category {
  id: number;
  name: string;
  icon: string;
}

/** In the order the app's category chooser lists them (ExpenseCategoryProviderImpl). */
export const CATEGORIES: readonly Category[] = [
  { id: 2, name: 'Income', icon: 'money' },
  { id: 3, name: 'Food', icon: 'food' },
  { id: 4, name: 'Housing', icon: 'home' },
  { id: 5, name: 'Social', icon: 'people' },
  { id: 6, name: 'Entertainment', icon: 'movie' },
  { id: 7, name: 'Transportation', icon: 'car' },
  { id: 8, name: 'Clothes', icon: 'shirt' },
  { id: 9, name: 'Health Care', icon: 'health' },
  { id: 10, name: 'Education', icon: 'school' },
  { id: 11, name: 'Donation', icon: 'gift' },
  { id: 1, name: 'Others', icon: 'receipt' },
];
export const INCOME = 2;
export const FOOD = 3;

export function category(id: number): Category {
  return CATEGORIES.find((c) => c.id === id) ?? { id, name: 'Others', icon: 'receipt' };
}

export interface Expense {
  expense_id: number;
  name: string | null;
  amount: number;
  category: number;
  note: string | null;
  created_date: number;
  modified_date: number;
}

/** Newest first, as the logs and the recent list show them. */
export function allExpenses(db: Db): Expense[] {
  return db.prepare('SELECT * FROM expense ORDER BY modified_date DESC, expense_id DESC').all() as Expense[];
}

export function recentExpenses(db: Db, limit: number): Expense[] {
  return db.prepare('SELECT * FROM expense ORDER BY modified_date DESC, expense_id DESC LIMIT ?').all(limit) as Expense[];
}

export function getExpense(db: Db, id: number): Expense | undefined {
  return db.prepare('SELECT * FROM expense WHERE expense_id = ?').get(id) as Expense | undefined;
}

export function expensesBetween(db: Db, from: number, to: number): Expense[] {
  return db.prepare('SELECT * FROM expense WHERE modified_date >= ? AND modified_date < ?').all(from, to) as Expense[];
}

export interface ExpenseInput {
  name: string;
  amount: number;
  category: number;
  note: string;
  time: number;
}

export function insertExpense(db: Db, e: ExpenseInput): number {
  const r = db.prepare('INSERT INTO expense (name, amount, category, note, created_date, modified_date) VALUES (?, ?, ?, ?, ?, ?)')
    .run(e.name, e.amount, e.category, e.note, e.time, e.time);
  return Number(r.lastInsertRowid);
}

export function updateExpense(db: Db, id: number, e: ExpenseInput): void {
  db.prepare('UPDATE expense SET name = ?, amount = ?, category = ?, note = ?, modified_date = ? WHERE expense_id = ?')
    .run(e.name, e.amount, e.category, e.note, e.time, id);
}

export function deleteExpenses(db: Db, ids: readonly number[]): void {
  const del = db.prepare('DELETE FROM expense WHERE expense_id = ?');
  db.transaction(() => ids.forEach((id) => del.run(id)))();
}

/** "1,234.50" from cents (the app's currency decimal format). */
export function formatAmount(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const whole = Math.floor(abs / 100).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${whole}.${String(abs % 100).padStart(2, '0')}`;
}

/** Cents from what was typed in the amount field, or null when it is not a positive amount. */
export function parseAmount(text: string): number | null {
  const t = text.trim();
  if (!/^\d+(\.\d*)?$|^\.\d+$/.test(t)) return null;
  const cents = Math.round(Number(t) * 100);
  return Number.isSafeInteger(cents) && cents > 0 ? cents : null;
}

/** First-launch content: a few of the owner's expenses this month. */
export function bootExpenses(db: Db, rng: Rng): void {
  for (let i = 0; i < 6; i++) {
    const e = randomExpense(rng, { withIncome: i === 5 });
    insertExpense(db, { name: e.name, amount: e.amount, category: EXPENSE_CATEGORY_IDS[e.category], note: e.note, time: e.date });
  }
}
