import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { randomExpenses, type ExpenseDraft } from '../../../core/seed-data/expenses.js';
import { resetExpenses } from '../../../core/tasks/families/expense/expense-db.js';
import { createRng } from '../../../core/util/rng.js';
import { device, elements, find, get, longPress, scroll, sh, tap, texts, typeInto } from '../../helpers/simdroid.js';

/** Pro Expense in SimDroid, driven through the UI and read back with sqlite3. */
const d = device();
afterAll(() => d.close());

const PKG = 'com.arduia.expense';
const DB = '/data/data/com.arduia.expense/databases/accounting.db';
const open = () => sh(d, `am start -n ${PKG}/${PKG}.ui.MainActivity`);
const back = () => d.inputSync({ kind: 'key', key: 'BACK' });
const sql = (q: string) => sh(d, `sqlite3 ${DB} "${q}"`).trim();
const names = () => elements(d).filter((e) => e.node.resourceId === `${PKG}:id/tv_name`).map((e) => e.node.text);
const title = () => get(d, { resourceId: 'toolbar_title' }).node.text;

const OCT = (day: number, hour = 12) => Date.UTC(2023, 9, day, hour);
const draft = (name: string, amount: number, category: ExpenseDraft['category'], date: number, note = ''): ExpenseDraft => ({ name, amount, category, note, date });

async function seed(rows: ExpenseDraft[]): Promise<void> {
  await resetExpenses(d, rows);
}

beforeEach(async () => {
  await d.loadSnapshot(BOOT_SNAPSHOT);
});

describe('Pro Expense app', () => {
  it('boots with expenses in accounting.db, shown on the home screen', () => {
    open();
    expect(d.wm.foreground()).toEqual({ package: PKG, activity: `${PKG}.ui.MainActivity` });
    expect(title()).toBe('Home');
    expect(find(d, { text: 'Expenses in this Week' })).toBeDefined();
    expect(Number(sql('select count(*) from expense'))).toBeGreaterThanOrEqual(5);
    const newest = sql('select name from expense order by modified_date desc limit 1');
    expect(names()[0]).toBe(newest);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('adds an expense through the entry form, amount in cents and category as its id', () => {
    open();
    tap(d, { contentDesc: 'Add' });
    expect(title()).toBe('Expense Entry');
    // The form asks for the name straight away.
    expect(d.wm.state.keyboard.visible).toBe(true);
    expect(get(d, { resourceId: 'cd_category', text: 'Food' }).node.checked).toBe(true);
    d.inputSync({ kind: 'text', text: 'Museum Tickets' });
    typeInto(d, { resourceId: 'edt_amount' }, 'ab12.5x');
    expect(get(d, { resourceId: 'edt_amount' }).node.text).toBe('12.5');
    tap(d, { resourceId: 'cd_category', text: 'Entertainment' });
    typeInto(d, { resourceId: 'edt_note' }, 'With the kids');
    back();
    tap(d, { text: 'Save' });
    expect(title()).toBe('Home');
    const row = sql("select amount, category, note, created_date = modified_date from expense where name = 'Museum Tickets'");
    expect(row).toBe('1250|6|With the kids|1');
    expect(names()[0]).toBe('Museum Tickets');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('requires a name and an amount', () => {
    open();
    const before = sql('select count(*) from expense');
    tap(d, { contentDesc: 'Add' });
    back();
    tap(d, { text: 'Save' });
    expect(texts(d)).toEqual(expect.arrayContaining(['Name is Empty', 'Cost is Empty']));
    typeInto(d, { resourceId: 'edt_name' }, 'Coffee');
    typeInto(d, { resourceId: 'edt_amount' }, '.');
    back();
    tap(d, { text: 'Save' });
    expect(find(d, { text: 'Name is Empty' })).toBeUndefined();
    expect(find(d, { text: 'Invalid Amount' })).toBeDefined();
    expect(title()).toBe('Expense Entry');
    expect(sql('select count(*) from expense')).toBe(before);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('dates an expense with the toolbar calendar, defaulting to now', () => {
    open();
    tap(d, { contentDesc: 'Add' });
    expect(find(d, { text: '15 Oct 2023 3:34 PM' })).toBeDefined();
    tap(d, { contentDesc: 'Calendar' });
    tap(d, { contentDesc: '12 October 2023' });
    tap(d, { text: 'OK' });
    expect(find(d, { text: '12 Oct 2023 3:34 PM' })).toBeDefined();
    typeInto(d, { resourceId: 'edt_name' }, 'Taxi Fare');
    typeInto(d, { resourceId: 'edt_amount' }, '20');
    back();
    tap(d, { text: 'Save' });
    expect(Number(sql("select created_date from expense where name = 'Taxi Fare'"))).toBe(Date.UTC(2023, 9, 12, 15, 34));
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('shows an expense in the detail sheet and updates it through Edit', async () => {
    await seed([draft('Groceries', 4520, 'Food', OCT(14), 'Weekly shop'), draft('Gas', 3000, 'Transportation', OCT(13))]);
    open();
    tap(d, { text: 'More' });
    expect(title()).toBe('Expense Logs');
    tap(d, { text: 'Groceries' });
    expect(find(d, { text: 'Expense Detail' })).toBeDefined();
    expect(get(d, { resourceId: 'tv_amount_value' }).node.text).toBe('45.20 $');
    expect(get(d, { resourceId: 'tv_note_value' }).node.text).toBe('Weekly shop');
    expect(get(d, { resourceId: 'imv_category' }).node.contentDesc).toBe('Food');
    tap(d, { text: 'Edit' });
    expect(title()).toBe('Update Data');
    expect(get(d, { resourceId: 'edt_amount' }).node.text).toBe('45.20');
    tap(d, { resourceId: 'edt_amount' });
    for (let i = 0; i < 5; i++) d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'text', text: '51.05' });
    back();
    tap(d, { text: 'Update' });
    expect(d.wm.state.toast?.text).toBe('Data Updated!');
    expect(title()).toBe('Expense Logs');
    expect(sql("select amount, category, note, created_date from expense where name = 'Groceries'")).toBe(`5105|3|Weekly shop|${OCT(14)}`);
    expect(sql("select amount from expense where name = 'Gas'")).toBe('3000');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('deletes from the detail sheet only after confirmation', async () => {
    await seed([draft('Groceries', 4520, 'Food', OCT(14)), draft('Gas', 3000, 'Transportation', OCT(13))]);
    open();
    tap(d, { text: 'More' });
    tap(d, { text: 'Gas' });
    tap(d, { contentDesc: 'Delete' });
    expect(get(d, { resourceId: 'android:id/message' }).node.text).toBe('1 item will be deleted!');
    tap(d, { text: 'Cancel' });
    expect(sql('select count(*) from expense')).toBe('2');
    tap(d, { text: 'Gas' });
    tap(d, { contentDesc: 'Delete' });
    tap(d, { text: 'Confirm' });
    expect(d.wm.state.toast?.text).toBe('Item Deleted');
    expect(sql('select name from expense')).toBe('Groceries');
    expect(names()).toEqual(['Groceries']);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('deletes several expenses in selection mode, and Back leaves selection mode first', async () => {
    await seed([draft('Groceries', 4520, 'Food', OCT(14)), draft('Gas', 3000, 'Transportation', OCT(13)), draft('Rent Payment', 90000, 'Housing', OCT(1))]);
    open();
    tap(d, { text: 'More' });
    longPress(d, { text: 'Groceries' });
    expect(title()).toBe('1 item');
    tap(d, { text: 'Rent Payment' });
    expect(title()).toBe('2 items');
    tap(d, { text: 'Gas' });
    tap(d, { text: 'Gas' });
    expect(title()).toBe('2 items');
    back();
    expect(title()).toBe('Expense Logs');
    longPress(d, { text: 'Groceries' });
    tap(d, { text: 'Rent Payment' });
    tap(d, { contentDesc: 'Delete' });
    expect(get(d, { resourceId: 'android:id/message' }).node.text).toBe('2 items will be deleted!');
    tap(d, { text: 'Confirm' });
    expect(d.wm.state.toast?.text).toBe('Items Deleted');
    expect(sql('select name from expense')).toBe('Gas');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('groups the logs by day, newest first, and scrolls to the oldest', async () => {
    const rows = randomExpenses(createRng('expense-logs'), 24);
    await seed(rows);
    open();
    tap(d, { text: 'More' });
    const sorted = [...rows].sort((a, b) => b.date - a.date);
    expect(names()[0]).toBe(sorted[0]!.name);
    const oldest = sorted[sorted.length - 1]!.name;
    expect(find(d, { text: oldest })).toBeUndefined();
    for (let i = 0; i < 12 && !find(d, { text: oldest }); i++) scroll(d, 'down');
    expect(find(d, { text: oldest })).toBeDefined();
    expect(find(d, { resourceId: 'tv_date', text: /^October \d+, 2023$/ })).toBeDefined();
    expect(d.wm.state.crashes).toEqual([]);
  });

  it("totals this week's spending on the home screen, income apart", async () => {
    await seed([
      draft('Coffee', 450, 'Food', Date.UTC(2023, 9, 15, 9)), draft('Taxi Fare', 1830, 'Transportation', Date.UTC(2023, 9, 15, 11)),
      draft('Salary', 250000, 'Income', Date.UTC(2023, 9, 15, 8)), draft('Groceries', 9999, 'Food', OCT(14)),
    ]);
    open();
    expect(get(d, { resourceId: 'tv_outcome_value' }).node.text).toBe('22.80');
    expect(get(d, { resourceId: 'tv_income_value' }).node.text).toBe('2,500.00');
    expect(get(d, { resourceId: 'tv_date_range' }).node.text).toBe('OCT 15 - OCT 21');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('navigates with the drawer and Back: drawer, fragments, then home', async () => {
    await seed([draft('Groceries', 4000, 'Food', OCT(14)), draft('Gas', 1000, 'Transportation', OCT(13))]);
    open();
    tap(d, { contentDesc: 'Open navigation drawer' });
    expect(find(d, { text: 'Statistics' })).toBeDefined();
    back();
    expect(find(d, { resourceId: 'nv_main' })).toBeUndefined();
    tap(d, { contentDesc: 'Open navigation drawer' });
    tap(d, { text: 'Statistics' });
    expect(title()).toBe('Statistics');
    expect(texts(d)).toEqual(expect.arrayContaining(['Food', '80.0%', 'Transportation', '20.0%']));
    back();
    expect(title()).toBe('Home');
    back();
    expect(d.wm.foreground().package).toBe('com.google.android.apps.nexuslauncher');
    open();
    expect(title()).toBe('Home');
    expect(d.wm.state.crashes).toEqual([]);
  });
});
