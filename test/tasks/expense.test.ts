import { afterAll, describe, expect, it } from 'vitest';
import { resetForTask } from '../../core/episode/runner.js';
import { dollars, EXPENSE_CATEGORY_IDS, type ExpenseDraft } from '../../core/seed-data/expenses.js';
import { AddMultiple, AddSingle } from '../../core/tasks/families/expense/add.js';
import { DeleteDuplicates, DeleteMultiple, DeleteSingle } from '../../core/tasks/families/expense/delete.js';
import { EditAmount } from '../../core/tasks/families/expense/edit.js';
import { EXPENSE_DB_PATH, expenseInsert, listExpenses } from '../../core/tasks/families/expense/expense-db.js';
import { CategoryTotalQuestion, WeekTotalQuestion } from '../../core/tasks/families/expense/questions.js';
import { instantiate } from '../../core/tasks/instance.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { sqlExec, sqlLiteral } from '../../core/tasks/validators/sqlite.js';
import { device, get, tap, typeInto } from '../helpers/simdroid.js';

/** Each Pro Expense checker accepts the right end state and rejects near misses. */
const d = device();
afterAll(() => d.close());

const none = { actions: [] };
const answer = (text: string) => ({ actions: [], answer: text });
const exec = (sql: string) => sqlExec(d, EXPENSE_DB_PATH, sql);
const add = (e: ExpenseDraft) => exec(expenseInsert(e));
const del = (name: string, extra = '') => exec(`DELETE FROM expense WHERE expense_id = (SELECT expense_id FROM expense WHERE name = ${sqlLiteral(name)} ${extra} LIMIT 1);`);
const set = (name: string, assignments: string) => exec(`UPDATE expense SET ${assignments} WHERE name = ${sqlLiteral(name)};`);

async function start<P>(t: TaskTemplate<P>, seed = 0): Promise<P> {
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return inst.params;
}

describe('ExpenseAddSingle', () => {
  it('accepts the expense with its values, whatever the case of the text', async () => {
    const p = await start(AddSingle, 1);
    const t = p.targets[0]!;
    expect((await AddSingle.check(d, p, none)).ok).toBe(false);
    await add({ ...t, name: t.name.toUpperCase(), note: ` ${t.note.toLowerCase()} `, date: Date.UTC(2023, 9, 15, 15, 30) });
    expect((await AddSingle.check(d, p, none)).ok).toBe(true);
  });

  it.each([
    ['a wrong amount', (t: ExpenseDraft) => ({ ...t, amount: t.amount + 1 })],
    ['the amount in dollars instead of cents', (t: ExpenseDraft) => ({ ...t, amount: Math.round(t.amount / 100) })],
    ['a wrong category', (t: ExpenseDraft) => ({ ...t, category: t.category === 'Food' ? 'Clothes' as const : 'Food' as const })],
    ['a missing note', (t: ExpenseDraft) => ({ ...t, note: '' })],
    ['a wrong name', (t: ExpenseDraft) => ({ ...t, name: `${t.name}s` })],
  ])('rejects %s', async (_what, change) => {
    const p = await start(AddSingle, 2);
    await add(change(p.targets[0]!));
    expect((await AddSingle.check(d, p, none)).ok).toBe(false);
  });

  it('rejects the expense added twice, or a noise expense deleted', async () => {
    const p = await start(AddSingle, 3);
    await add(p.targets[0]!);
    await add(p.targets[0]!);
    expect((await AddSingle.check(d, p, none)).ok).toBe(false);
    await del(p.targets[0]!.name);
    expect((await AddSingle.check(d, p, none)).ok).toBe(true);
    await del(p.noise[0]!.name);
    expect((await AddSingle.check(d, p, none)).ok).toBe(false);
  });

  it('accepts the expense entered through the app', async () => {
    const p = await start(AddSingle, 4);
    const t = p.targets[0]!;
    d.wm.launchApp('com.arduia.expense');
    d.changed();
    tap(d, { contentDesc: 'Add' });
    typeInto(d, { resourceId: 'edt_name' }, t.name);
    typeInto(d, { resourceId: 'edt_amount' }, dollars(t.amount));
    typeInto(d, { resourceId: 'edt_note' }, t.note);
    d.inputSync({ kind: 'key', key: 'BACK' });
    tap(d, { resourceId: 'cd_category', text: t.category });
    tap(d, { resourceId: 'btn_save' });
    const rows = await listExpenses(d);
    expect(rows.some((r) => r.name === t.name && r.category === EXPENSE_CATEGORY_IDS[t.category])).toBe(true);
    expect((await AddSingle.check(d, p, none)).ok).toBe(true);
    expect(get(d, { resourceId: 'toolbar_title' }).node.text).toBe('Home');
  });
});

describe('ExpenseAddMultiple', () => {
  it('needs every expense', async () => {
    const p = await start(AddMultiple, 0);
    for (const t of p.targets.slice(1)) await add(t);
    expect((await AddMultiple.check(d, p, none)).ok).toBe(false);
    await add(p.targets[0]!);
    expect((await AddMultiple.check(d, p, none)).ok).toBe(true);
    await add({ ...p.targets[0]!, name: 'Extra Snacks' });
    expect((await AddMultiple.check(d, p, none)).ok).toBe(false);
  });
});

describe('ExpenseDeleteSingle', () => {
  it('accepts the target deleted, and only it', async () => {
    const p = await start(DeleteSingle, 0);
    expect((await DeleteSingle.check(d, p, none)).ok).toBe(false);
    await del(p.targets[0]!.name);
    expect((await DeleteSingle.check(d, p, none)).ok).toBe(true);
    await del(p.noise[0]!.name);
    expect((await DeleteSingle.check(d, p, none)).ok).toBe(false);
  });

  it('rejects a wrong expense deleted instead', async () => {
    const p = await start(DeleteSingle, 1);
    await del(p.noise[1]!.name);
    expect((await DeleteSingle.check(d, p, none)).ok).toBe(false);
  });

  it('rejects a remaining expense that was changed', async () => {
    const p = await start(DeleteSingle, 2);
    await del(p.targets[0]!.name);
    await set(p.noise[0]!.name, 'amount = amount + 100');
    expect((await DeleteSingle.check(d, p, none)).ok).toBe(false);
  });
});

describe('ExpenseDeleteMultiple', () => {
  it('needs all three deleted and nothing else', async () => {
    const p = await start(DeleteMultiple, 0);
    expect(p.noise.length).toBeGreaterThanOrEqual(14);
    await del(p.targets[0]!.name);
    await del(p.targets[1]!.name);
    expect((await DeleteMultiple.check(d, p, none)).ok).toBe(false);
    await del(p.targets[2]!.name);
    expect((await DeleteMultiple.check(d, p, none)).ok).toBe(true);
    await del(p.noise[5]!.name);
    expect((await DeleteMultiple.check(d, p, none)).ok).toBe(false);
  });
});

describe('ExpenseDeleteDuplicates', () => {
  it('accepts one copy deleted; rejects both copies or the near copy deleted', async () => {
    const p = await start(DeleteDuplicates, 0);
    const same = `AND amount = ${p.target.amount}`;
    await del(p.target.name, same);
    expect((await DeleteDuplicates.check(d, p, none)).ok).toBe(true);
    await del(p.target.name, same);
    expect((await DeleteDuplicates.check(d, p, none)).ok).toBe(false);
  });

  it('rejects deleting the near copy (same name, other amount)', async () => {
    const p = await start(DeleteDuplicates, 1);
    await del(p.near.name, `AND amount = ${p.near.amount}`);
    expect((await DeleteDuplicates.check(d, p, none)).ok).toBe(false);
    await start(DeleteDuplicates, 1);
    await del(p.target.name, `AND amount = ${p.target.amount}`);
    await del(p.noise[0]!.name);
    expect((await DeleteDuplicates.check(d, p, none)).ok).toBe(false);
  });
});

describe('ExpenseEditAmount', () => {
  it('accepts the new amount on the target, other fields kept', async () => {
    const p = await start(EditAmount, 0);
    expect((await EditAmount.check(d, p, none)).ok).toBe(false);
    await set(p.target.name, `amount = ${p.amount}, modified_date = ${Date.UTC(2023, 9, 15)}`);
    expect((await EditAmount.check(d, p, none)).ok).toBe(true);
  });

  it.each([
    ['a wrong amount', (p: { amount: number }) => `amount = ${p.amount + 1}`],
    ['the right amount but a changed note', (p: { amount: number }) => `amount = ${p.amount}, note = 'Changed'`],
    ['the right amount but another category', (p: { amount: number }) => `amount = ${p.amount}, category = 99`],
  ])('rejects %s', async (_what, assign) => {
    const p = await start(EditAmount, 1);
    await set(p.target.name, assign(p));
    expect((await EditAmount.check(d, p, none)).ok).toBe(false);
  });

  it('rejects the amount put on another expense', async () => {
    const p = await start(EditAmount, 2);
    await set(p.noise[0]!.name, `amount = ${p.amount}`);
    expect((await EditAmount.check(d, p, none)).ok).toBe(false);
  });
});

describe('ExpenseCategoryTotalQuestion', () => {
  it('compares the total as a number', async () => {
    const p = await start(CategoryTotalQuestion, 0);
    const sum = p.rows.filter((r) => r.category === p.category).reduce((s, r) => s + r.amount, 0);
    expect(sum).toBe(p.total);
    expect((await CategoryTotalQuestion.check(d, p, answer(dollars(sum)))).ok).toBe(true);
    expect((await CategoryTotalQuestion.check(d, p, answer((sum / 100).toFixed(2)))).ok).toBe(true);
    expect((await CategoryTotalQuestion.check(d, p, answer(dollars(sum + 1)))).ok).toBe(false);
    const all = p.rows.reduce((s, r) => s + r.amount, 0);
    expect((await CategoryTotalQuestion.check(d, p, answer(dollars(all)))).ok).toBe(false);
    expect((await CategoryTotalQuestion.check(d, p, none)).ok).toBe(false);
  });
});

describe('ExpenseWeekTotalQuestion', () => {
  it("wants today's spending without the income", async () => {
    const p = await start(WeekTotalQuestion, 0);
    const today = p.rows.filter((r) => r.date >= Date.UTC(2023, 9, 15));
    const income = today.filter((r) => r.category === 'Income').reduce((s, r) => s + r.amount, 0);
    expect(income).toBeGreaterThan(0);
    expect((await WeekTotalQuestion.check(d, p, answer(dollars(p.total)))).ok).toBe(true);
    expect((await WeekTotalQuestion.check(d, p, answer(dollars(p.total + income)))).ok).toBe(false);
    // The app shows the same figure the checker expects.
    d.wm.launchApp('com.arduia.expense');
    d.changed();
    expect(get(d, { resourceId: 'tv_outcome_value' }).node.text.replace(/,/g, '')).toBe((p.total / 100).toFixed(2));
  });
});
