import type { ActivityView, DialogView } from '../../runtime/app.js';
import { formatTime } from '../../system/clock.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { APP_BAR_DP } from '../../view/theme.js';
import { datePickerDialog, datePickerState, timePickerDialog, timePickerState } from '../../view/pickers.js';
import { button, checkbox, column, dialog, divider, iconButton, row, screen, scroll, strip, text, textField } from '../../view/widgets.js';
import { allTagNames, getTask, insertTask, markDeleted, setTaskTags, tagsOf, updateTask } from './db.js';
import { dueDateOnly, dueDateTime, dueParts, editorDueLabel, hasDueTime, isOverdue } from './dates.js';
import { F, PRIORITIES, type Ctx, type EditState } from './state.js';

/**
 * TaskEditFragment: the title (hint "Task name"), then rows for the due date and time, the
 * priority (four radio buttons tinted grey, blue, amber and red), the description and the tags.
 * As in Tasks.org's default settings the toolbar's navigation button is "Save", Back asks before
 * discarding changes, and "Delete task" (existing tasks only) asks for confirmation. Saving a new
 * task with nothing entered discards it; a blank title with other changes saves "(No title)".
 */
const EDIT_KEY = 'edit';
const NO_TITLE = '(No title)';

export function openEditor(ctx: Ctx, id: number | null): void {
  const t = id === null ? undefined : getTask(ctx.app.db, id);
  const title = t?.title ?? '';
  const notes = t?.notes ?? '';
  const importance = t?.importance ?? 3;
  const dueDate = t?.dueDate ?? 0;
  const tags = t ? tagsOf(ctx.app.db, t._id) : [];
  ctx.fields[F.title] = title;
  ctx.fields[F.notes] = notes;
  ctx.s.edit = {
    id: t ? t._id : null, importance, dueDate, tags: [...tags],
    orig: { title, notes, importance, dueDate, tags: [...tags] },
    dialog: null, tagChoice: [], datePicker: null, timePicker: null,
  };
  ctx.nav.scrollTo(EDIT_KEY, 0);
  // A new task opens with the keyboard on the title, as Tasks.org does.
  if (!t) ctx.nav.focus(F.title);
  else ctx.nav.hideKeyboard();
}

function sameTags(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
}

/** TaskEditViewModel.hasChanges. */
export function hasChanges(ctx: Ctx, e: EditState): boolean {
  const title = (ctx.fields[F.title] ?? '').trim();
  const notes = (ctx.fields[F.notes] ?? '').trim();
  return title !== e.orig.title || notes !== e.orig.notes.trim() || e.importance !== e.orig.importance
    || e.dueDate !== e.orig.dueDate || !sameTags(e.tags, e.orig.tags);
}

export function closeEditor(ctx: Ctx): void {
  ctx.s.edit = null;
  ctx.fields[F.title] = '';
  ctx.fields[F.notes] = '';
  ctx.nav.hideKeyboard();
}

function save(ctx: Ctx, e: EditState): void {
  if (!hasChanges(ctx, e)) {
    closeEditor(ctx);
    return;
  }
  const db = ctx.app.db;
  const now = ctx.sys.clock.now();
  const typed = (ctx.fields[F.title] ?? '').trim();
  const fields = { title: typed || NO_TITLE, notes: (ctx.fields[F.notes] ?? '').trim(), importance: e.importance, dueDate: e.dueDate };
  const id = e.id ?? insertTask(db, fields, now);
  if (e.id !== null) updateTask(db, e.id, fields, now);
  if (!sameTags(e.tags, e.orig.tags)) setTaskTags(db, id, e.tags, now);
  closeEditor(ctx);
}

/** Back in the editor: close it, asking first when something changed. */
export function backFromEditor(ctx: Ctx, e: EditState): void {
  if (hasChanges(ctx, e)) e.dialog = 'discard';
  else closeEditor(ctx);
}

function toolbar(ctx: Ctx, e: EditState): ViewSpec {
  const parts: ViewSpec[] = [iconButton('save', 'Save', () => save(ctx, e)), { cls: W.View, weight: 1 }];
  if (e.id !== null) parts.push(iconButton('delete', 'Delete task', () => { ctx.nav.hideKeyboard(); e.dialog = 'delete'; }, { id: 'menu_delete' }));
  return row(parts, { cls: W.ViewGroup, id: 'toolbar', h: APP_BAR_DP, pad: [8, 4, 8, 4], style: { bg: 'background' } });
}

/** A TaskEditRow: a leading icon and content, the whole row clickable when it opens something. */
function editRow(icon: string, content: ViewSpec[], onClick?: () => void, desc?: string): ViewSpec {
  return row([
    strip({ cls: W.ImageView, w: 56, h: 56, style: { icon, iconColor: 'onSurfaceVariant' } }),
    column([{ cls: W.View, h: 'fill' }, ...content, { cls: W.View, h: 'fill' }], { weight: 1 }),
  ], strip({ clickable: onClick !== undefined, onClick, desc, pad: [4, 8, 4, 8], style: { divider: true } }));
}

function dueRows(ctx: Ctx, e: EditState, now: number): ViewSpec[] {
  const openDate = () => {
    const p = dueParts(e.dueDate, now);
    ctx.nav.hideKeyboard();
    e.datePicker = datePickerState(p.year, p.month, p.day);
  };
  const label = editorDueLabel(e.dueDate, now);
  const dateContent = row([
    {
      ...text(label || 'No due date', {
        id: 'due_date', size: 16, pad: [16, 8, 16, 8],
        fg: !label ? 'onSurfaceVariant' : isOverdue(e.dueDate, now) ? 'error' : 'onSurface',
      }),
      weight: 1,
    },
    ...(e.dueDate > 0 ? [iconButton('close', 'Remove due date', () => { e.dueDate = 0; }, { id: 'clear_due_date' })] : []),
  ]);
  const rows = [editRow('clock', [dateContent], openDate, 'Due date')];
  if (e.dueDate > 0) {
    const openTime = () => {
      const d = new Date(e.dueDate);
      ctx.nav.hideKeyboard();
      e.timePicker = timePickerState(ctx.fields, F.time, hasDueTime(e.dueDate) ? d.getUTCHours() : 9, hasDueTime(e.dueDate) ? d.getUTCMinutes() : 0);
    };
    const timeLabel = hasDueTime(e.dueDate) ? formatTime(e.dueDate) : 'No time';
    const timeContent = row([
      { ...text(timeLabel, { id: 'due_time', size: 16, pad: [16, 8, 16, 8], fg: hasDueTime(e.dueDate) ? 'onSurface' : 'onSurfaceVariant' }), weight: 1 },
      ...(hasDueTime(e.dueDate) ? [iconButton('close', 'Remove due time', () => {
        const p = dueParts(e.dueDate, now);
        e.dueDate = dueDateOnly(p.year, p.month, p.day);
      }, { id: 'clear_due_time' })] : []),
    ]);
    rows.push(editRow('alarm', [timeContent], openTime, 'Due time'));
  }
  return rows;
}

function priorityRow(e: EditState): ViewSpec {
  // Left to right none, low, medium, high, as PriorityRow lays them out.
  const buttons = [...PRIORITIES].reverse().map((p) => strip({
    cls: W.RadioButton, desc: p.desc, checkable: true, checked: e.importance === p.value, w: 48, h: 56,
    // As the list's check box: the framework's radio is moved out of view; the tinted icon shows.
    pad: [0, 0, 0, -64],
    onClick: () => { e.importance = p.value; },
    style: { icon: e.importance === p.value ? 'radio_checked' : 'circle', iconColor: p.color },
  }));
  return editRow('flag', [row([{ ...text('Priority', { size: 16, pad: [0, 8, 0, 8] }), weight: 1 }, ...buttons], { id: 'priority_row' })]);
}

function tagsRow(ctx: Ctx, e: EditState): ViewSpec {
  const label = e.tags.length ? e.tags.join(', ') : 'Tags';
  return editRow('label', [text(label, { id: 'tags', size: 16, pad: [16, 8, 16, 8], fg: e.tags.length ? 'onSurface' : 'onSurfaceVariant' })], () => {
    ctx.nav.hideKeyboard();
    e.tagChoice = [...e.tags];
    e.dialog = 'tags';
  }, 'Tags');
}

function editorDialog(ctx: Ctx, e: EditState): DialogView | undefined {
  if (e.datePicker) {
    const cancel = () => { e.datePicker = null; };
    return datePickerDialog(e.datePicker, {
      title: 'Due date',
      onCancel: cancel,
      onOk: ({ year, month, day }) => {
        const d = new Date(e.dueDate);
        e.dueDate = hasDueTime(e.dueDate) ? dueDateTime(year, month, day, d.getUTCHours(), d.getUTCMinutes()) : dueDateOnly(year, month, day);
        e.datePicker = null;
      },
    });
  }
  if (e.timePicker) {
    const cancel = () => { e.timePicker = null; ctx.nav.hideKeyboard(); };
    return timePickerDialog(e.timePicker, ctx.fields, F.time, {
      title: 'Due time',
      onCancel: cancel,
      onOk: ({ hour, minute }) => {
        const p = dueParts(e.dueDate, ctx.sys.clock.now());
        e.dueDate = dueDateTime(p.year, p.month, p.day, hour, minute);
        cancel();
      },
    });
  }
  const close = () => { e.dialog = null; ctx.nav.hideKeyboard(); };
  switch (e.dialog) {
    case 'discard':
      return {
        spec: dialog({
          message: 'Are you sure you want to discard your changes?',
          buttons: [{ label: 'Discard', onClick: () => closeEditor(ctx) }, { label: 'Keep editing', onClick: close }],
        }),
        onCancel: close,
      };
    case 'delete':
      return {
        spec: dialog({
          message: 'Delete this task?',
          buttons: [
            { label: 'Cancel', onClick: close },
            { label: 'OK', onClick: () => { if (e.id !== null) markDeleted(ctx.app.db, [e.id], ctx.sys.clock.now()); closeEditor(ctx); } },
          ],
        }),
        onCancel: close,
      };
    case 'tags':
      return tagsDialog(ctx, e, close);
    default:
      return undefined;
  }
}

/** The tag picker: existing tags as check boxes, and a field to create one. */
function tagsDialog(ctx: Ctx, e: EditState, close: () => void): DialogView {
  const names = [...new Set([...allTagNames(ctx.app.db), ...e.tagChoice])];
  const toggle = (n: string) => () => {
    e.tagChoice = e.tagChoice.includes(n) ? e.tagChoice.filter((x) => x !== n) : [...e.tagChoice, n];
  };
  const create = () => {
    const name = (ctx.fields[F.newTag] ?? '').trim();
    if (name && !e.tagChoice.includes(name)) e.tagChoice = [...e.tagChoice, name];
    ctx.fields[F.newTag] = '';
  };
  return {
    spec: dialog({
      title: 'Tags',
      body: [
        ...names.map((n) => checkbox({ label: n, checked: e.tagChoice.includes(n), onToggle: toggle(n), id: 'tag_checkbox' })),
        row([
          column([textField({ field: F.newTag, hint: 'Create new tag', id: 'new_tag', onSubmit: create, pad: 0 })], { weight: 1 }),
          button('Create', create, { variant: 'text', w: 'wrap', id: 'create_tag' }),
        ], { pad: [8, 16, 0, 16], gap: 8 }),
      ],
      buttons: [
        { label: 'Cancel', onClick: () => { ctx.fields[F.newTag] = ''; close(); } },
        { label: 'OK', onClick: () => { create(); e.tags = [...e.tagChoice].sort((a, b) => a.localeCompare(b)); close(); } },
      ],
    }),
    onCancel: close,
  };
}

export function renderEditor(ctx: Ctx, e: EditState): ActivityView {
  const now = ctx.sys.clock.now();
  const title: ViewSpec = strip({
    cls: W.EditText, field: F.title, hint: 'Task name', id: 'title', multiline: false, pad: [8, 16, 16, 16],
    // The title's IME action "done" saves, as in TaskEditFragment.
    onSubmit: () => save(ctx, e), style: { size: 24 },
  });
  // Borderless, as Tasks.org's description box.
  const notes: ViewSpec = strip({ cls: W.EditText, field: F.notes, hint: 'Description', id: 'notes', multiline: true, pad: [16, 8, 16, 8] });
  const content = scroll(EDIT_KEY, [
    column([title], { pad: [0, 0, 8, 0] }),
    ...dueRows(ctx, e, now),
    priorityRow(e),
    editRow('subject', [notes]),
    tagsRow(ctx, e),
    divider(),
  ]);
  const dlg = editorDialog(ctx, e);
  return {
    body: screen({ body: [toolbar(ctx, e), content] }),
    ...(dlg ? { dialog: dlg } : {}),
  };
}
