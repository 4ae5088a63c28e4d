import type { ActivityContext } from '../../runtime/app.js';
import type { FileType, SortOrder } from './files.js';

/** MainActivity's bottom navigation tabs, as in Markor. */
export type Tab = 'notebook' | 'todo' | 'quicknote' | 'more';

/** The open dialog of the file browser (transient UI, kept as data). */
export type BrowserDialog =
  | { kind: 'new'; type: FileType }
  | { kind: 'delete' }
  | { kind: 'rename'; name: string }
  /** The folder picker of Move / Copy, browsing `dir`. */
  | { kind: 'move' | 'copy'; dir: string };

export interface MainState {
  tab: Tab;
  /** The folder the Notebook tab shows (absolute path inside the notebook). */
  dir: string;
  /** Selected entry names in `dir`; non-empty means selection mode. */
  selected: string[];
  /** The search field is open in place of the toolbar title. */
  search: boolean;
  dialog: BrowserDialog | null;
  menu: null | 'browser' | 'selection';
  /** What the To-Do and QuickNote editors last loaded or saved, to save only real changes. */
  saved: { todo: string; quicknote: string };
}

export type MainCtx = ActivityContext<MainState>;

/** SharedPreferences key of the file browser's sort order (Markor remembers it). */
export const SORT_PREF = 'pref_key__file_browser__sort_by';

export function sortOrder(ctx: { app: { prefs: Record<string, string> } }): SortOrder {
  return ctx.app.prefs[SORT_PREF] === 'date' ? 'date' : 'name';
}

/** Form fields of MainActivity's windows. */
export const FIELD = {
  newName: 'new_file_name',
  newExt: 'new_file_ext',
  rename: 'rename_name',
  search: 'search_query',
  todo: 'todo_text',
  quicknote: 'quicknote_text',
} as const;
