import type { DialogView } from '../../runtime/app.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { datePickerDialog, datePickerState, timePickerDialog, timePickerState } from '../../view/pickers.js';
import { appBar, button, caption, chip, column, iconButton, row, scroll, text, textField } from '../../view/widgets.js';
import { CATEGORIES, FOOD, getExpense, insertExpense, parseAmount, updateExpense } from './db.js';
import { entryDate } from './format.js';
import { navigate, popBack, type Ctx } from './state.js';

/**
 * The expense entry fragment (frag_expense_entry): Name, Amount (decimal keyboard), the category
 * chooser, Note and Save; the date and time come from the toolbar's Calendar and Time actions and
 * show as its subtitle. Opened on an expense it becomes "Update Data" with an Update button.
 */
const FIELDS = ['name', 'amount', 'note'] as const;
const MINUTE = 60_000;

/** Opens the entry form, empty (today, Food) or filled from an expense. */
export function openEntry(ctx: Ctx, id: number | null): void {
  const e = id === null ? undefined : getExpense(ctx.app.db, id);
  for (const f of FIELDS) delete ctx.fields[f];
  ctx.s.dialog = null;
  if (e) {
    ctx.fields.name = e.name ?? '';
    ctx.fields.amount = (e.amount / 100).toFixed(2);
    ctx.fields.note = e.note ?? '';
    ctx.s.entry = { id: e.expense_id, category: e.category, time: e.modified_date, nameError: null, amountError: null };
    navigate(ctx, 'entry');
    return;
  }
  ctx.s.entry = { id: null, category: FOOD, time: Math.floor(ctx.sys.clock.now() / MINUTE) * MINUTE, nameError: null, amountError: null };
  navigate(ctx, 'entry');
  // The real form asks for the name straight away (edtName.requestFocus()).
  ctx.nav.focus('name');
}

function save(ctx: Ctx): void {
  const entry = ctx.s.entry!;
  const name = (ctx.fields.name ?? '').trim();
  const amountText = (ctx.fields.amount ?? '').trim();
  const amount = parseAmount(amountText);
  entry.nameError = name ? null : 'Name is Empty';
  entry.amountError = amountText === '' ? 'Cost is Empty' : amount === null ? 'Invalid Amount' : null;
  if (entry.nameError || entry.amountError || amount === null) return;
  const input = { name, amount, category: entry.category, note: (ctx.fields.note ?? '').trim(), time: entry.time };
  if (entry.id === null) {
    insertExpense(ctx.app.db, input);
  } else {
    updateExpense(ctx.app.db, entry.id, input);
    ctx.nav.toast('Data Updated!');
  }
  popBack(ctx);
}

function categoryChooser(ctx: Ctx): ViewSpec {
  const entry = ctx.s.entry!;
  const rows: ViewSpec[] = [];
  for (let i = 0; i < CATEGORIES.length; i += 3) {
    const chips: ViewSpec[] = CATEGORIES.slice(i, i + 3).map((c) => {
      const spec = chip(c.name, entry.category === c.id, () => { entry.category = c.id; }, { id: 'cd_category' });
      delete spec.w;
      return { ...spec, weight: 1, style: { ...spec.style, size: 13 } };
    });
    // Keep the grid's columns when the last row is short.
    while (chips.length < 3) chips.push({ cls: W.View, weight: 1 });
    rows.push(row(chips, { gap: 8 }));
  }
  return column(rows, { id: 'rv_category', gap: 8, pad: [4, 16, 8, 16] });
}

/** An outlined field whose hint floats above the box once it holds text (TextInputLayout). */
function labelled(ctx: Ctx, o: { field: string; hint: string; id: string; accept?: 'number'; multiline?: boolean }): ViewSpec {
  const filled = (ctx.fields[o.field] ?? '') !== '';
  return column([
    filled ? text(o.hint, { size: 12, fg: 'primary', pad: [0, 20, 0, 20], h: 16 }) : { cls: W.View, h: 16 },
    textField({ ...o, pad: [0, 16, 4, 16], ...(o.multiline ? { lines: 3 } : {}) }),
  ]);
}

function errorText(message: string | null): ViewSpec[] {
  return message ? [text(message, { id: 'textinput_error', size: 12, fg: 'error', pad: [0, 32, 4, 32] })] : [];
}

export function entryScreen(ctx: Ctx): { appBar: ViewSpec; body: ViewSpec[] } {
  const entry = ctx.s.entry!;
  const update = entry.id !== null;
  const d = new Date(entry.time);
  const bar = appBar({
    title: update ? 'Update Data' : 'Expense Entry',
    subtitle: entryDate(entry.time),
    onBack: () => popBack(ctx),
    actions: [
      iconButton('clock', 'Time', () => {
        ctx.s.dialog = { kind: 'time', picker: timePickerState(ctx.fields, 'time', d.getUTCHours(), d.getUTCMinutes()) };
      }, { id: 'time' }),
      iconButton('calendar', 'Calendar', () => {
        ctx.s.dialog = { kind: 'date', picker: datePickerState(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()) };
      }, { id: 'calendar' }),
    ],
  });
  const body = scroll('entry', [
    labelled(ctx, { field: 'name', hint: 'Name', id: 'edt_name' }),
    ...errorText(entry.nameError),
    labelled(ctx, { field: 'amount', hint: 'Amount', id: 'edt_amount', accept: 'number' }),
    ...errorText(entry.amountError),
    caption('Category', { pad: [8, 20, 0, 20] }),
    categoryChooser(ctx),
    labelled(ctx, { field: 'note', hint: 'Note', id: 'edt_note', multiline: true }),
    column([button(update ? 'Update' : 'Save', () => save(ctx), { id: 'btn_save' })], { pad: [12, 16, 24, 16] }),
  ], { id: 'sv_entry' });
  return { appBar: bar, body: [body] };
}

/** The entry's date and time pickers, while one is open. */
export function entryDialog(ctx: Ctx): DialogView | undefined {
  const dlg = ctx.s.dialog;
  const entry = ctx.s.entry;
  if (!entry || !dlg) return undefined;
  const close = () => { ctx.s.dialog = null; };
  if (dlg.kind === 'date') {
    return datePickerDialog(dlg.picker, {
      onOk: ({ year, month, day }) => {
        const t = new Date(entry.time);
        entry.time = Date.UTC(year, month - 1, day, t.getUTCHours(), t.getUTCMinutes());
        close();
      },
      onCancel: close,
    });
  }
  if (dlg.kind === 'time') {
    return timePickerDialog(dlg.picker, ctx.fields, 'time', {
      onOk: ({ hour, minute }) => {
        const t = new Date(entry.time);
        entry.time = Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate(), hour, minute);
        ctx.nav.hideKeyboard();
        close();
      },
      onCancel: () => { ctx.nav.hideKeyboard(); close(); },
    });
  }
  return undefined;
}
