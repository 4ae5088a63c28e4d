import type { ActivityContext } from '../../runtime/app.js';
import type { DatePickerState, TimePickerState } from '../../view/pickers.js';

/**
 * Pro Expense is a single-activity app (com.arduia.expense.ui.MainActivity) whose screens are
 * Navigation-component fragments; so is this simulation: the fragment back stack, the open
 * drawer, dialog and selection are plain data in the activity's state.
 */
export type Dest = 'home' | 'logs' | 'entry' | 'statistics' | 'backup' | 'feedback' | 'about' | 'settings';

export interface EntryState {
  /** The expense being updated, or null for a new one. */
  id: number | null;
  category: number;
  /** The expense's date and time (epoch ms), shown as the toolbar subtitle. */
  time: number;
  nameError: string | null;
  amountError: string | null;
}

export type ExpenseDialog =
  | { kind: 'detail'; id: number }
  | { kind: 'delete'; ids: number[] }
  | { kind: 'date'; picker: DatePickerState }
  | { kind: 'time'; picker: TimePickerState };

export interface ExpenseState {
  stack: Dest[];
  drawer: boolean;
  entry: EntryState | null;
  /** Expense ids selected in the logs (selection mode), or null. */
  selection: number[] | null;
  dialog: ExpenseDialog | null;
}

export type Ctx = ActivityContext<ExpenseState>;

export const MAIN_ACTIVITY = 'com.arduia.expense.ui.MainActivity';

export function initialState(): ExpenseState {
  return { stack: ['home'], drawer: false, entry: null, selection: null, dialog: null };
}

export function top(s: ExpenseState): Dest {
  return s.stack[s.stack.length - 1]!;
}

/** Navigates to a fragment on top of the current one (NavController.navigate). */
export function navigate(ctx: Ctx, dest: Dest): void {
  ctx.s.stack.push(dest);
  ctx.s.drawer = false;
  ctx.s.selection = null;
  ctx.nav.hideKeyboard();
  ctx.nav.scrollTo(dest, 0);
}

/** A top-level destination from the drawer: the stack becomes home, then it. */
export function navigateTopLevel(ctx: Ctx, dest: Dest): void {
  ctx.s.stack = dest === 'home' ? ['home'] : ['home', dest];
  ctx.s.drawer = false;
  ctx.s.selection = null;
  ctx.s.entry = null;
  ctx.nav.hideKeyboard();
  ctx.nav.scrollTo(dest, 0);
}

/** Pops the top fragment; false when it was the last one. */
export function popBack(ctx: Ctx): boolean {
  if (ctx.s.stack.length <= 1) return false;
  const left = ctx.s.stack.pop();
  if (left === 'entry') {
    ctx.s.entry = null;
    for (const f of ['name', 'amount', 'note']) delete ctx.fields[f];
  }
  ctx.s.selection = null;
  ctx.nav.hideKeyboard();
  return true;
}
