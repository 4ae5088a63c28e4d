import type { ActivityContext } from '../../runtime/app.js';
import type { DatePickerState, TimePickerState } from '../../view/pickers.js';
import type { SortMode } from './db.js';

/**
 * MainActivity's state. Tasks.org shows the task list and the task editor as two fragments of one
 * activity (`dumpsys activity` names MainActivity for both), so the editor is `edit` here rather
 * than an activity of its own. Everything is plain data.
 */
export interface EditState {
  /** The task being edited; null for a new one. */
  id: number | null;
  importance: number;
  /** Tasks.org's encoding (see dates.ts); 0 = no due date. */
  dueDate: number;
  tags: string[];
  /** The values the editor opened with, to tell whether anything changed. */
  orig: { title: string; notes: string; importance: number; dueDate: number; tags: string[] };
  dialog: null | 'discard' | 'delete' | 'tags';
  /** Tag checkboxes while the tags dialog is open. */
  tagChoice: string[];
  datePicker: DatePickerState | null;
  timePicker: TimePickerState | null;
}

export interface MainState {
  edit: EditState | null;
  searching: boolean;
  dialog: null | 'sort' | 'clear_completed' | 'delete_selected';
  /** Rows picked by long-press (the list's action mode); empty when not selecting. */
  selected: number[];
  menu: boolean;
  completedCollapsed: boolean;
}

export type Ctx = ActivityContext<MainState>;

/** Form fields of the window. */
export const F = { title: 'title', notes: 'notes', query: 'query', newTag: 'new_tag', time: 'due_time' } as const;
// (`time` is the time picker's prefix: its fields are due_time_hour and due_time_minute.)

/** SharedPreferences keys (strings, as the app stores them). */
export const PREF_SORT = 'sort_mode';
export const PREF_SHOW_COMPLETED = 'show_completed';

export const SORTS: ReadonlyArray<{ mode: SortMode; label: string }> = [
  { mode: 'auto', label: 'Smart sort' },
  { mode: 'due', label: 'By due date' },
  { mode: 'importance', label: 'By priority' },
  { mode: 'alpha', label: 'By title' },
  { mode: 'modified', label: 'By last modified' },
  { mode: 'created', label: 'By creation time' },
];

export function sortMode(ctx: Ctx): SortMode {
  const v = ctx.app.prefs[PREF_SORT];
  return SORTS.some((s) => s.mode === v) ? (v as SortMode) : 'auto';
}

export function showCompleted(ctx: Ctx): boolean {
  return ctx.app.prefs[PREF_SHOW_COMPLETED] === 'true';
}

/** ColorProvider.priorityColor (red, amber, blue, grey) and the words the editor's buttons use. */
export const PRIORITIES: ReadonlyArray<{ value: number; color: `#${string}`; desc: string }> = [
  { value: 0, color: '#F44336', desc: 'High priority' },
  { value: 1, color: '#FFC107', desc: 'Medium priority' },
  { value: 2, color: '#2196F3', desc: 'Low priority' },
  { value: 3, color: '#9E9E9E', desc: 'No priority' },
];

export function priorityColor(importance: number): `#${string}` {
  return PRIORITIES[Math.min(3, Math.max(0, importance))]!.color;
}
