import type { Action } from '../../../actions/schema.js';
import type { DateParts } from '../../../seed-data/dates.js';
import { launch, nodeWithId, scrollTo, type OracleUi } from '../../oracle.js';
import { enterTime, pickDate } from '../../pickers.js';
import { PRIORITY_DESC } from './common.js';

/**
 * Oracle moves in Tasks, found the way a person finds them: rows by their title, the check box by
 * its description, the editor's controls by their labels.
 */
type Steps<T = void> = Generator<Action, T, void>;

const CHECKBOX = 'android.widget.CheckBox';

export function* openTasks(ui: OracleUi): Steps {
  yield* launch(ui, 'Tasks');
}

export interface TaskSpec {
  title: string;
  due?: DateParts;
  time?: { hour: number; minute: number };
  importance?: number;
  notes?: string;
}

/** FAB → editor → fields → Save. */
export function* createTask(ui: OracleUi, t: TaskSpec): Steps {
  yield ui.tap({ contentDesc: 'Create new task' });
  yield ui.type({ resourceId: 'title', className: 'android.widget.EditText' }, t.title);
  if (t.due) {
    yield ui.tap({ contentDesc: 'Due date' });
    yield* pickDate(ui, t.due);
  }
  if (t.time) {
    yield ui.tap({ contentDesc: 'Due time' });
    yield* enterTime(ui, t.time.hour, t.time.minute);
  }
  if (t.importance !== undefined) yield ui.tap({ contentDesc: PRIORITY_DESC[t.importance]! });
  if (t.notes) yield ui.type({ resourceId: 'notes' }, t.notes);
  yield ui.tap({ contentDesc: 'Save' });
}

/** Scrolls the list to a task and opens it in the editor. */
export function* openTask(ui: OracleUi, title: string): Steps {
  const el = yield* scrollTo(ui, { resourceId: 'title', text: title });
  yield ui.tap(el);
}

/** Scrolls to a task and ticks its check box. */
export function* completeTask(ui: OracleUi, title: string): Steps {
  const el = yield* scrollTo(ui, { className: CHECKBOX, contentDesc: title });
  yield ui.tap(el);
}

export interface ListRow {
  title: string;
  /** The due-date text on the right ("Today", "3:00 PM", "Tmrw", "Oct 24"), '' for none. */
  due: string;
  checked: boolean;
}

/** The task rows on screen. */
export function visibleRows(ui: OracleUi): ListRow[] {
  return ui.findAll({ resourceId: 'rowBody' }).flatMap((r) => {
    const title = nodeWithId(r.node, 'title');
    if (!title) return [];
    return [{ title: title.text, due: nodeWithId(r.node, 'due_date')?.text ?? '', checked: nodeWithId(r.node, 'completeBox')?.checked ?? false }];
  });
}

/** Reads every row of the list, scrolling down to its end; the list must start at the top. */
export function* readAllRows(ui: OracleUi): Steps<ListRow[]> {
  const seen = new Map<string, ListRow>();
  for (let guard = 0; guard < 40; guard++) {
    for (const r of visibleRows(ui)) seen.set(r.title, r);
    if (!ui.find({ resourceId: 'recycler_view' })?.node.scrollable) break;
    const before = ui.fingerprint();
    yield ui.scroll('down', { resourceId: 'recycler_view' });
    if (ui.fingerprint() === before) break;
  }
  return [...seen.values()];
}

/** A list due-date label meaning "today": "Today", or a bare time for a task due today at a time. */
export function isTodayLabel(due: string): boolean {
  return due === 'Today' || /^\d{1,2}:\d{2} [AP]M$/.test(due);
}

/** Opens the sort dialog and picks an order ("By priority", "By due date", …). */
export function* sortBy(ui: OracleUi, label: string): Steps {
  yield ui.tap({ contentDesc: 'Sort' });
  yield ui.tap({ text: label, className: 'android.widget.RadioButton' });
}
