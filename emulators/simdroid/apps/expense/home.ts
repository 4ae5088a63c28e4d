import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { appBar, button, caption, column, fill, list, row, text } from '../../view/widgets.js';
import { expensesBetween, formatAmount, INCOME, recentExpenses } from './db.js';
import { currentWeek, DAY_MS, weekRangeText, WEEK_DAYS } from './format.js';
import { CURRENCY_SYMBOL, expenseRow } from './rows.js';
import { navigate, type Ctx } from './state.js';

/** The home fragment (frag_home): this week's graph and totals, then the recent expenses and "More". */
const RECENT_COUNT = 5;

function card(children: ViewSpec[], id: string): ViewSpec {
  return column([column(children, { id, pad: [16, 16, 16, 16], gap: 4, style: { variant: 'card', radius: 16 } })], { pad: [8, 16, 8, 16] });
}

function weekGraph(ctx: Ctx): ViewSpec {
  const now = ctx.sys.clock.now();
  const { start, end } = currentWeek(now);
  const week = expensesBetween(ctx.app.db, start, end).filter((e) => e.category !== INCOME);
  const perDay = WEEK_DAYS.map((_, i) => week.filter((e) => e.modified_date >= start + i * DAY_MS && e.modified_date < start + (i + 1) * DAY_MS).reduce((s, e) => s + e.amount, 0));
  const max = Math.max(1, ...perDay);
  const bars = WEEK_DAYS.map((label, i) => column([
    fill(),
    { cls: W.View, h: Math.max(4, Math.round((80 * perDay[i]!) / max)), style: { bg: perDay[i] ? 'primary' : 'surfaceVariant', radius: 3 } },
    text(label, { size: 11, align: 'center', pad: [4, 0, 0, 0], fg: 'onSurfaceVariant' }),
  ], { weight: 1, h: 112, pad: [0, 8, 0, 8] }));
  return card([
    text(weekRangeText(now), { id: 'tv_date_range', size: 12, pad: 0, fg: 'onSurfaceVariant' }),
    text('Expenses in this Week', { id: 'tv_title', size: 18, bold: true, pad: [0, 0, 8, 0] }),
    row(bars, { id: 'expense_graph', h: 112 }),
  ], 'cv_graph');
}

function weekTotals(ctx: Ctx): ViewSpec {
  const now = ctx.sys.clock.now();
  const { start, end } = currentWeek(now);
  const week = expensesBetween(ctx.app.db, start, end);
  const income = week.filter((e) => e.category === INCOME).reduce((s, e) => s + e.amount, 0);
  const outcome = week.filter((e) => e.category !== INCOME).reduce((s, e) => s + e.amount, 0);
  const figure = (label: string, id: string, cents: number) => column([
    caption(label, { id: id.replace('_value', ''), pad: 0 }),
    row([
      text(formatAmount(cents), { id, size: 20, bold: true, pad: 0, w: 'wrap' }),
      text(CURRENCY_SYMBOL, { size: 14, pad: [0, 0, 0, 4], w: 'wrap', fg: 'onSurfaceVariant' }),
    ]),
  ], { weight: 1 });
  return card([
    row([
      text('Totals', { id: 'tv_expense_in_out_title', size: 18, bold: true, pad: 0 }),
      caption(weekRangeText(now), { pad: 0, w: 'wrap', size: 12 }),
    ]),
    row([figure('Income', 'tv_income_value', income), figure('Outcome', 'tv_outcome_value', outcome)], { pad: [8, 0, 0, 0] }),
  ], 'cv_in_out');
}

export function homeScreen(ctx: Ctx): { appBar: ViewSpec; body: ViewSpec[] } {
  const now = ctx.sys.clock.now();
  const recent = recentExpenses(ctx.app.db, RECENT_COUNT);
  const rows: ViewSpec[] = [
    weekGraph(ctx),
    weekTotals(ctx),
    // "More" sits by the header: at the list's end it would be under the FAB.
    row([
      column([fill(), text('Recent', { id: 'tv_recent_lists', size: 18, bold: true, pad: 0 }), fill()], { weight: 1 }),
      button('More', () => navigate(ctx, 'logs'), { id: 'btn_more_logs', variant: 'text', w: 'wrap' }),
    ], { pad: [8, 16, 0, 24] }),
  ];
  if (recent.length === 0) rows.push(caption('No Items', { align: 'center', pad: [16, 24, 16, 24], id: 'tv_no_item' }));
  for (const e of recent) {
    rows.push(expenseRow(e, now, { onClick: () => { ctx.s.dialog = { kind: 'detail', id: e.expense_id }; } }));
  }
  rows.push({ cls: W.View, h: 88 });
  return {
    appBar: appBar({ title: 'Home', onMenu: () => { ctx.s.drawer = true; } }),
    body: [list('home', rows, { id: 'rv_home' })],
  };
}
