import type { ActivityView, DialogView, MenuView } from '../../runtime/app.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { APP_BAR_DP } from '../../view/theme.js';
import { appBar, column, dialog, fab, iconButton, list, radio, row, screen, searchBar, strip, text } from '../../view/widgets.js';
import { activeTasks, clearCompleted, completedTasks, markDeleted, setCompleted, tagsByTask, type TaskRow } from './db.js';
import { isOverdue, listDueLabel } from './dates.js';
import { openEditor } from './edit.js';
import { F, PREF_SHOW_COMPLETED, PREF_SORT, SORTS, priorityColor, showCompleted, sortMode, type Ctx } from './state.js';

/**
 * TaskListFragment for the "My Tasks" filter: rows of task_adapter_row (a check box tinted with
 * the priority colour, the title, the description, tag chips and the due date on the right),
 * completed tasks at the bottom when "Show completed" is on, a search action that filters as you
 * type, the sort dialog, "Clear Completed", long-press selection with "Delete", and the "Create new
 * task" button.
 */
export const LIST_KEY = 'tasks';

/**
 * The completion check box: a CheckBox whose box is drawn as an icon in the priority colour, as
 * Tasks.org tints its CheckableImageView. The negative start padding moves SimDroid's own
 * (theme-coloured) box out of the view so only the tinted icon shows.
 */
function completeBox(ctx: Ctx, t: TaskRow): ViewSpec {
  const done = t.completed > 0;
  return strip({
    cls: W.CheckBox, id: 'completeBox', desc: t.title ?? '', checkable: true, checked: done, w: 56, h: 56,
    pad: [0, 0, 0, -64],
    onClick: () => setCompleted(ctx.app.db, t._id, !done, ctx.sys.clock.now()),
    style: { icon: done ? 'checkbox_on' : 'checkbox_off', iconColor: done ? 'onSurfaceVariant' : priorityColor(t.importance) },
  });
}

function tagChip(name: string): ViewSpec {
  return { cls: W.TextView, text: name, w: 'wrap', h: 24, pad: [2, 10, 2, 10], style: { variant: 'chip', size: 12, radius: 8, fg: 'onSurfaceVariant' } };
}

function taskRow(ctx: Ctx, t: TaskRow, tags: string[], now: number): ViewSpec {
  const done = t.completed > 0;
  const lines: ViewSpec[] = [text(t.title ?? '', { id: 'title', size: 16, lines: 1, pad: [16, 0, 0, 0], fg: done ? 'onSurfaceVariant' : 'onSurface' })];
  if (t.notes) lines.push(text(t.notes, { id: 'description', size: 14, lines: 2, pad: [2, 0, 0, 0], fg: 'onSurfaceVariant' }));
  if (tags.length) {
    lines.push(row(tags.map(tagChip), { id: 'chip_group', gap: 6, pad: [4, 0, 0, 0] }));
  }
  const parts: ViewSpec[] = [completeBox(ctx, t), column([...lines, { cls: W.View, h: 16 }], { weight: 1 })];
  const due = listDueLabel(t.dueDate, now);
  if (due) {
    // In a column so it keeps the title's line instead of centring in the row.
    const label = text(due, { id: 'due_date', size: 14, pad: [17, 12, 0, 8], fg: !done && isOverdue(t.dueDate, now) ? 'error' : 'onSurfaceVariant' });
    parts.push(column([label], { w: 'wrap' }));
  }
  const selected = ctx.s.selected.includes(t._id);
  const toggle = () => {
    ctx.s.selected = selected ? ctx.s.selected.filter((x) => x !== t._id) : [...ctx.s.selected, t._id];
  };
  return row(parts, {
    id: 'rowBody', clickable: true, selected,
    // A long-press starts selecting; while selecting, taps pick rows instead of opening them.
    onClick: ctx.s.selected.length ? toggle : () => openEditor(ctx, t._id),
    onLongClick: toggle,
    style: { divider: true, ...(selected ? { bg: 'primaryContainer' as const } : {}) },
  });
}

/** The action mode's bar while rows are selected. */
function selectionBar(ctx: Ctx): ViewSpec {
  return row([
    iconButton('close', 'Done', () => { ctx.s.selected = []; }, { id: 'action_mode_close_button' }),
    { ...text(`${ctx.s.selected.length} selected`, { size: 20, lines: 1, pad: [0, 8, 0, 8] }), weight: 1 },
    iconButton('delete', 'Delete', () => { ctx.s.dialog = 'delete_selected'; }, { id: 'delete' }),
  ], { cls: W.ViewGroup, id: 'action_bar', h: APP_BAR_DP, pad: [8, 4, 8, 4], style: { bg: 'primaryContainer' } });
}

function deleteSelectedDialog(ctx: Ctx): DialogView {
  const close = () => { ctx.s.dialog = null; };
  return {
    spec: dialog({
      message: 'Delete selected tasks?',
      buttons: [
        { label: 'Cancel', onClick: close },
        { label: 'OK', onClick: () => {
          const n = ctx.s.selected.length;
          markDeleted(ctx.app.db, ctx.s.selected, ctx.sys.clock.now());
          ctx.s.selected = [];
          close();
          ctx.nav.toast(`${n} deleted`);
        } },
      ],
    }),
    onCancel: close,
  };
}

function completedHeader(ctx: Ctx, count: number): ViewSpec {
  const collapsed = ctx.s.completedCollapsed;
  return row([
    { ...text(`Completed (${count})`, { size: 14, bold: true, fg: 'primary', pad: [0, 16, 0, 16] }), weight: 1 },
    strip({ cls: W.ImageView, w: 40, h: 40, style: { icon: collapsed ? 'expand_more' : 'expand_less', iconColor: 'onSurfaceVariant' } }),
  ], { id: 'header', h: 48, clickable: true, desc: collapsed ? 'Expand completed' : 'Collapse completed', onClick: () => { ctx.s.completedCollapsed = !collapsed; } });
}

function sortDialog(ctx: Ctx): DialogView {
  const close = () => { ctx.s.dialog = null; };
  const current = sortMode(ctx);
  return {
    spec: dialog({
      title: 'Sort',
      body: SORTS.map((s) => radio({
        label: s.label, checked: s.mode === current, id: 'sort_option',
        onSelect: () => { ctx.app.prefs[PREF_SORT] = s.mode; ctx.nav.scrollTo(LIST_KEY, 0); close(); },
      })),
      buttons: [{ label: 'Cancel', onClick: close }],
    }),
    onCancel: close,
  };
}

function clearCompletedDialog(ctx: Ctx): DialogView {
  const close = () => { ctx.s.dialog = null; };
  return {
    spec: dialog({
      message: 'Clear completed tasks?',
      buttons: [
        { label: 'Cancel', onClick: close },
        { label: 'OK', onClick: () => {
          const n = clearCompleted(ctx.app.db, ctx.sys.clock.now());
          close();
          ctx.nav.toast(`${n} deleted`);
        } },
      ],
    }),
    onCancel: close,
  };
}

function overflowMenu(ctx: Ctx): MenuView {
  const close = () => { ctx.s.menu = false; };
  const shown = showCompleted(ctx);
  return {
    items: [
      { label: shown ? 'Hide completed' : 'Show completed', id: 'menu_show_completed', onClick: () => {
        ctx.app.prefs[PREF_SHOW_COMPLETED] = shown ? 'false' : 'true';
        close();
      } },
      { label: 'Clear Completed', id: 'menu_clear_completed', onClick: () => { close(); ctx.s.dialog = 'clear_completed'; } },
      { label: 'Sort', id: 'menu_sort', onClick: () => { close(); ctx.s.dialog = 'sort'; } },
    ],
    onDismiss: close,
  };
}

export function closeSearch(ctx: Ctx): void {
  ctx.s.searching = false;
  ctx.fields[F.query] = '';
  ctx.nav.hideKeyboard();
  ctx.nav.scrollTo(LIST_KEY, 0);
}

export function renderList(ctx: Ctx): ActivityView {
  const db = ctx.app.db;
  const now = ctx.sys.clock.now();
  const query = ctx.s.searching ? (ctx.fields[F.query] ?? '').trim() : '';
  const active = activeTasks(db, sortMode(ctx), now, query);
  const done = showCompleted(ctx) ? completedTasks(db, query) : [];
  const tags = tagsByTask(db);
  const rows = active.map((t) => taskRow(ctx, t, tags[t._id] ?? [], now));
  if (done.length) {
    rows.push(completedHeader(ctx, done.length));
    if (!ctx.s.completedCollapsed) rows.push(...done.map((t) => taskRow(ctx, t, tags[t._id] ?? [], now)));
  }
  const bar = ctx.s.selected.length ? selectionBar(ctx) : ctx.s.searching
    ? searchBar({ field: F.query, hint: 'Search', onBack: () => closeSearch(ctx), id: 'search_src_text' })
    : appBar({
      title: 'My Tasks',
      actions: [
        iconButton('search', 'Search', () => { ctx.s.searching = true; ctx.fields[F.query] = ''; ctx.nav.focus(F.query); }, { id: 'menu_search' }),
        iconButton('sort', 'Sort', () => { ctx.s.dialog = 'sort'; }, { id: 'menu_sort' }),
      ],
      onOverflow: () => { ctx.s.menu = true; },
    });
  const body = rows.length
    ? list(LIST_KEY, rows, { id: 'recycler_view', pad: [0, 0, 88, 0] })
    : column([
      { cls: W.View, h: 'fill' },
      text(query ? 'No results' : 'There are no tasks here.', { align: 'center', fg: 'onSurfaceVariant', id: 'empty_view' }),
      { cls: W.View, h: 'fill' },
    ], { h: 'fill' });
  const dialogs = { sort: sortDialog, clear_completed: clearCompletedDialog, delete_selected: deleteSelectedDialog };
  const dlg = ctx.s.dialog ? dialogs[ctx.s.dialog](ctx) : undefined;
  return {
    body: screen({ appBar: bar, body: [body], fab: fab('add', 'Create new task', () => openEditor(ctx, null), { id: 'fab' }) }),
    ...(dlg ? { dialog: dlg } : {}),
    ...(ctx.s.menu ? { menu: overflowMenu(ctx) } : {}),
  };
}
