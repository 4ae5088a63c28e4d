import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { APP_BAR_DP } from '../../view/theme.js';
import { appBar, column, fill, iconButton, list, row, text } from '../../view/widgets.js';
import { allExpenses, type Expense } from './db.js';
import { dayHeader, dayKey } from './format.js';
import { expenseRow } from './rows.js';
import { popBack, type Ctx } from './state.js';

/**
 * The expense logs fragment (frag_expense_logs): every expense, newest first, under date headers.
 * A long press starts selection mode (tap to add or remove rows; the toolbar offers Select All and
 * Delete); a tap outside selection mode opens the detail sheet.
 */
export function itemsText(n: number): string {
  return `${n} ${n === 1 ? 'item' : 'items'}`;
}

function toggle(ctx: Ctx, id: number): void {
  const sel = ctx.s.selection ?? [];
  const next = sel.includes(id) ? sel.filter((x) => x !== id) : [...sel, id];
  ctx.s.selection = next.length ? next : null;
}

function rowsFor(ctx: Ctx, expenses: Expense[]): ViewSpec[] {
  const now = ctx.sys.clock.now();
  const sel = ctx.s.selection;
  const out: ViewSpec[] = [];
  let day: number | null = null;
  for (const e of expenses) {
    if (dayKey(e.modified_date) !== day) {
      day = dayKey(e.modified_date);
      out.push(text(dayHeader(e.modified_date, now), { id: 'tv_date', size: 14, bold: true, fg: 'primary', pad: [16, 16, 4, 16] }));
    }
    out.push(expenseRow(e, now, {
      selected: sel?.includes(e.expense_id) ?? false,
      onClick: () => {
        if (ctx.s.selection) toggle(ctx, e.expense_id);
        else ctx.s.dialog = { kind: 'detail', id: e.expense_id };
      },
      onLongClick: () => toggle(ctx, e.expense_id),
    }));
  }
  return out;
}

/** The contextual toolbar of selection mode: Close, the count, Select All and Delete. */
function selectionBar(title: string, buttons: ViewSpec[]): ViewSpec {
  const [close, ...actions] = buttons;
  return row([close!, column([fill(), text(title, { size: 22, pad: [0, 8, 0, 8], lines: 1, id: 'toolbar_title' }), fill()], { weight: 1 }), ...actions], {
    cls: W.ViewGroup, id: 'tb_expense', h: APP_BAR_DP, pad: [8, 4, 8, 4], style: { bg: 'primaryContainer' },
  });
}

export function logsScreen(ctx: Ctx): { appBar: ViewSpec; body: ViewSpec[] } {
  const expenses = allExpenses(ctx.app.db);
  const sel = ctx.s.selection;
  const bar = sel
    ? selectionBar(itemsText(sel.length), [
      iconButton('close', 'Close', () => { ctx.s.selection = null; }),
      iconButton('checkbox_on', 'Select All', () => { ctx.s.selection = expenses.map((e) => e.expense_id); }, { id: 'select_all' }),
      iconButton('delete', 'Delete', () => { ctx.s.dialog = { kind: 'delete', ids: [...sel] }; }, { id: 'delete' }),
    ])
    : appBar({ title: 'Expense Logs', id: 'tb_expense', onBack: () => popBack(ctx) });
  return { appBar: bar, body: [list('logs', rowsFor(ctx, expenses), { id: 'rv_expense', empty: 'No Data', pad: [0, 0, 88, 0] })] };
}
