import type { ActivityDef, AppDef } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { fab, screen, stack } from '../../view/widgets.js';
import { bootExpenses, EXPENSE_DB, EXPENSE_SCHEMA } from './db.js';
import { expenseDialog } from './dialogs.js';
import { entryDialog, entryScreen, openEntry } from './entry.js';
import { homeScreen } from './home.js';
import { logsScreen } from './logs.js';
import { drawer, secondaryScreen } from './pages.js';
import { initialState, MAIN_ACTIVITY, popBack, top, type Ctx, type ExpenseState } from './state.js';

/**
 * Pro Expense (com.arduia.expense): a single MainActivity hosting the home, expense logs, entry,
 * statistics and settings fragments, with the navigation drawer and the add FAB (fb_main_add).
 * Expenses live in Room's accounting.db (see db.ts), so checkers query it as on a real device.
 */
function content(ctx: Ctx): { appBar: ViewSpec; body: ViewSpec[] } {
  const dest = top(ctx.s);
  switch (dest) {
    case 'home': return homeScreen(ctx);
    case 'logs': return logsScreen(ctx);
    case 'entry': return entryScreen(ctx);
    default: return secondaryScreen(ctx, dest);
  }
}

const main: ActivityDef<ExpenseState> = {
  name: MAIN_ACTIVITY,
  create: () => initialState(),
  render: (ctx) => {
    const dest = top(ctx.s);
    const { appBar, body } = content(ctx);
    // The activity's FAB shows on the home and logs fragments, not in selection mode.
    const showFab = (dest === 'home' || dest === 'logs') && !ctx.s.selection;
    let spec = screen({ appBar, body, ...(showFab ? { fab: fab('add', 'Add', () => openEntry(ctx, null), { id: 'fb_main_add' }) } : {}), id: 'cl_main' });
    if (ctx.s.drawer) spec = stack([spec, drawer(ctx)]);
    const dialog = dest === 'entry' ? entryDialog(ctx) : expenseDialog(ctx);
    return { body: spec, ...(dialog ? { dialog } : {}) };
  },
  onBack: (ctx) => {
    if (ctx.s.drawer) {
      ctx.s.drawer = false;
      return true;
    }
    if (ctx.s.selection) {
      ctx.s.selection = null;
      return true;
    }
    return popBack(ctx);
  },
};

export const expenseApp: AppDef = {
  package: 'com.arduia.expense',
  label: 'Pro Expense',
  icon: { glyph: 'receipt', color: '#0D47A1' },
  accent: '#1565C0',
  launchActivity: MAIN_ACTIVITY,
  activities: [main],
  databases: [{ path: EXPENSE_DB, schema: EXPENSE_SCHEMA }],
  boot: ({ app, rng }) => bootExpenses(app.db, rng),
};
