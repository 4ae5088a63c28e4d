import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { appBar, caption, column, divider, list, listItem, row, scroll, text } from '../../view/widgets.js';
import { allExpenses, CATEGORIES, INCOME } from './db.js';
import { navigateTopLevel, popBack, top, type Ctx, type Dest } from './state.js';

/**
 * The navigation drawer (nv_main, menu_home) and the secondary fragments it reaches: Statistics
 * (category shares of spending) and the plain Backup, Feedback, About and Settings pages.
 */
const DRAWER: Array<{ dest: Dest; title: string; icon: string }> = [
  { dest: 'home', title: 'Home', icon: 'home' },
  { dest: 'logs', title: 'Expense Logs', icon: 'list' },
  { dest: 'statistics', title: 'Statistics', icon: 'bar_chart' },
  { dest: 'backup', title: 'Backup', icon: 'cloud' },
  { dest: 'feedback', title: 'Feedback', icon: 'mail' },
  { dest: 'about', title: 'About', icon: 'info' },
  { dest: 'settings', title: 'Settings', icon: 'settings' },
];

export function drawer(ctx: Ctx): ViewSpec {
  const current = top(ctx.s);
  const panel = column([
    column([
      text('Pro Expense', { size: 22, bold: true, pad: 0 }),
      caption('Record your daily expenses', { pad: [4, 0, 0, 0] }),
    ], { pad: [32, 24, 16, 24] }),
    divider(),
    ...DRAWER.map((d) => listItem({
      id: `dest_${d.dest === 'logs' ? 'expense_logs' : d.dest}`, title: d.title, leading: d.icon, selected: d.dest === current,
      onClick: () => navigateTopLevel(ctx, d.dest),
    })),
  ], { id: 'nv_main', w: 300, style: { bg: 'surface' } });
  const scrim: ViewSpec = { cls: W.View, weight: 1, clickable: true, onClick: () => { ctx.s.drawer = false; }, style: { bg: '#00000066' } };
  return row([panel, scrim], { id: 'dl_main' });
}

function statistics(ctx: Ctx): ViewSpec[] {
  const spent = allExpenses(ctx.app.db).filter((e) => e.category !== INCOME);
  const total = spent.reduce((s, e) => s + e.amount, 0);
  const shares = CATEGORIES.filter((c) => c.id !== INCOME)
    .map((c) => ({ c, sum: spent.filter((e) => e.category === c.id).reduce((s, e) => s + e.amount, 0) }))
    .filter((x) => x.sum > 0)
    .sort((a, b) => b.sum - a.sum);
  const rows: ViewSpec[] = shares.map(({ c, sum }) => column([
    row([
      text(c.name, { id: 'tv_category_name', size: 16, pad: 0 }),
      text(`${((sum / total) * 100).toFixed(1)}%`, { id: 'tv_progress', size: 14, pad: 0, w: 'wrap', fg: 'onSurfaceVariant' }),
    ]),
    row([
      { cls: W.View, weight: sum / total, style: { bg: 'primary', radius: 4 } },
      { cls: W.View, weight: 1 - sum / total, style: { bg: 'surfaceVariant', radius: 4 } },
    ], { id: 'pv_progress', h: 8 }),
  ], { pad: [8, 24, 8, 24], gap: 4 }));
  return [
    text('Category Statistics', { id: 'tv_category_statistics', size: 18, bold: true, pad: [16, 24, 8, 24] }),
    ...(rows.length ? rows : [caption('No Data', { id: 'tv_no_data', pad: [8, 24, 8, 24] })]),
  ];
}

const PLAIN: Partial<Record<Dest, { title: string; lines: Array<[string, string]> }>> = {
  backup: { title: 'Backup', lines: [['Backup Logs', 'No Data'], ['Export', 'Save your expenses as a file'], ['Import', 'Restore expenses from a file']] },
  feedback: { title: 'Feedback', lines: [['Feedback', "We want to know what you thought of your experience at Pro Expense app so we'd love to hear your feedback."]] },
  about: { title: 'About', lines: [['Pro Expense', 'Pro Expense is a free and open-source software to simply and safely record daily expenses.'], ['Version', '0.0.1-beta'], ['Developer', 'Developed by Arduia and Open-source contributors']] },
  settings: { title: 'Settings', lines: [['Language', 'English'], ['Currency', 'USD ($)'], ['Theme Mode', 'System Default']] },
};

export function secondaryScreen(ctx: Ctx, dest: Dest): { appBar: ViewSpec; body: ViewSpec[] } {
  const back = () => popBack(ctx);
  if (dest === 'statistics') {
    return { appBar: appBar({ title: 'Statistics', onBack: back, id: 'tb_statistic' }), body: [scroll('statistics', statistics(ctx), { id: 'nsv_statistic' })] };
  }
  const page = PLAIN[dest] ?? { title: dest, lines: [] };
  return {
    appBar: appBar({ title: page.title, onBack: back }),
    body: [list(dest, page.lines.map(([title, subtitle]) => listItem({ title, subtitle, subtitleLines: 4 })))],
  };
}
