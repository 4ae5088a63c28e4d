import { z } from 'zod';
import { dollars, EXPENSE_CATEGORY_NAMES, type ExpenseDraft } from '../../../seed-data/expenses.js';

/** The zod shape of an expense draft, and how instructions spell one out. */
export const Draft = z.object({
  name: z.string().min(1).max(20),
  amount: z.int().positive(),
  category: z.enum(EXPENSE_CATEGORY_NAMES),
  note: z.string(),
  date: z.int(),
});

/** "name Coffee, amount $12.50, category Food, note Paid by card" */
export function describe(e: ExpenseDraft): string {
  return `name ${e.name}, amount ${dollars(e.amount)}, category ${e.category}, note ${e.note}`;
}
