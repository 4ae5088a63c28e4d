import type { ActivityDef, DialogView, MenuView } from '../../runtime/app.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { appBar, dialog, divider, iconButton, radio, row, screen, scroll, strip, text, textField } from '../../view/widgets.js';
import { datePickerDialog, datePickerState, timePickerDialog, timePickerState } from '../../view/pickers.js';
import { DEFAULT_REMINDER, getEvent } from './db.js';
import { editorDate, REMINDER_CHOICES, reminderText, timeText } from './format.js';
import { EVENT_ACTIVITY } from './main-activity.js';
import { leave, remove, save, setDate, setTime, type EditorCtx, type EditorState } from './editor-state.js';
import { NO_REPEAT } from './repeat.js';
import { repetitionDialog, repetitionRows } from './repeat-views.js';

/**
 * EventActivity, Simple Calendar's event editor: title, location, description, an All-day switch,
 * start and end date/time (tap for the date and time pickers), a reminder; Save in the toolbar,
 * Delete for a stored event, Duplicate in the overflow menu. Extras: `event_id` (edit),
 * `new_event_start_ts` (seconds; new), `duplicate_of` (a copy of a stored event).
 */
const TIME_PREFIX = 'time';

function dateTimeRow(ctx: EditorCtx, which: 'start' | 'end'): ViewSpec {
  const s = ctx.s;
  const ms = which === 'start' ? s.start : s.end;
  const invalid = which === 'end' && s.end < s.start;
  const openDate = () => {
    ctx.nav.hideKeyboard();
    const d = new Date(ms);
    s.dialog = { kind: 'date', which, picker: datePickerState(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()) };
  };
  const openTime = () => {
    ctx.nav.hideKeyboard();
    const d = new Date(ms);
    s.dialog = { kind: 'time', which, picker: timePickerState(ctx.fields, TIME_PREFIX, d.getUTCHours(), d.getUTCMinutes()) };
  };
  const parts: ViewSpec[] = [
    text(editorDate(ms), { id: `event_${which}_date`, onClick: openDate, pad: [14, 16, 14, 56], ...(invalid ? { fg: 'error' as const } : {}) }),
  ];
  if (!s.allDay) parts.push(text(timeText(ms, ctx.sys.settings), { id: `event_${which}_time`, onClick: openTime, w: 'wrap', pad: [14, 16, 14, 16], ...(invalid ? { fg: 'error' as const } : {}) }));
  return row(parts);
}

function iconRow(icon: string, content: ViewSpec, padEnd = 0): ViewSpec {
  return row([strip({ cls: W.ImageView, w: 24, h: 24, style: { icon, iconColor: 'onSurfaceVariant' } }), content], { pad: [0, padEnd, 0, 16], gap: 16 });
}

function form(ctx: EditorCtx): ViewSpec {
  const s = ctx.s;
  return scroll('event_scrollview', [
    textField({ field: 'title', hint: 'Title', id: 'event_title' }),
    textField({ field: 'location', hint: 'Location', id: 'event_location' }),
    textField({ field: 'description', hint: 'Description', id: 'event_description', multiline: true, lines: 2 }),
    divider(),
    // A SwitchCompat with its own text, as the real layout has it.
    iconRow('clock', strip({
      cls: W.Switch, id: 'event_all_day', text: 'All-day', checkable: true, checked: s.allDay, weight: 1, pad: [14, 16, 14, 0],
      onClick: () => { ctx.nav.hideKeyboard(); s.allDay = !s.allDay; },
    }), 16),
    dateTimeRow(ctx, 'start'),
    dateTimeRow(ctx, 'end'),
    divider(),
    iconRow('notifications', text(reminderText(s.reminder), {
      id: 'event_reminder_1', pad: [16, 16, 16, 0], onClick: () => { ctx.nav.hideKeyboard(); s.dialog = { kind: 'reminder' }; },
    })),
    divider(),
    ...repetitionRows(ctx),
    divider(),
    iconRow('label', text('Regular event', { id: 'event_type', pad: [16, 16, 16, 0] })),
  ], { id: 'event_scrollview', pad: [8, 0, 88, 0] });
}

function dialogView(ctx: EditorCtx): DialogView | undefined {
  const s = ctx.s;
  const dlg = s.dialog;
  const close = () => { s.dialog = null; };
  if (!dlg) return undefined;
  switch (dlg.kind) {
    case 'date':
      return datePickerDialog(dlg.picker, {
        onCancel: close,
        onOk: ({ year, month, day }) => {
          setDate(s, dlg.which, year, month, day);
          close();
        },
      });
    case 'time':
      return timePickerDialog(dlg.picker, ctx.fields, TIME_PREFIX, {
        onCancel: () => { close(); ctx.nav.hideKeyboard(); },
        onOk: ({ hour, minute }) => {
          setTime(s, dlg.which, hour, minute);
          close();
          ctx.nav.hideKeyboard();
        },
      });
    case 'reminder':
      return {
        spec: dialog({
          title: 'Reminder',
          body: REMINDER_CHOICES.map((m) => radio({ label: reminderText(m), checked: s.reminder === m, onSelect: () => { s.reminder = m; close(); } })),
          buttons: [{ label: 'Cancel', onClick: close }],
        }),
        onCancel: close,
      };
    case 'discard':
      return {
        spec: dialog({
          message: 'You have unsaved changes. Save before closing?',
          buttons: [
            { label: 'Discard', onClick: () => { close(); ctx.nav.finish(); } },
            { label: 'Save', onClick: () => save(ctx) },
          ],
        }),
        onCancel: close,
      };
    case 'repeat':
    case 'repeat_weekdays':
    case 'repeat_monthly':
    case 'repeat_limit':
    case 'repeat_until':
      return repetitionDialog(ctx, dlg);
    case 'delete':
      return {
        spec: dialog({
          title: 'Delete event',
          message: 'Are you sure you want to delete this event?',
          buttons: [{ label: 'Cancel', onClick: close }, { label: 'Delete', onClick: () => { close(); remove(ctx); } }],
        }),
        onCancel: close,
      };
  }
}

function menuView(ctx: EditorCtx): MenuView | undefined {
  if (!ctx.s.menu) return undefined;
  const close = () => { ctx.s.menu = false; };
  return {
    items: [{
      label: 'Duplicate event', id: 'duplicate',
      onClick: () => {
        close();
        ctx.nav.replace(EVENT_ACTIVITY, { duplicate_of: ctx.s.id });
      },
    }],
    onDismiss: close,
  };
}

export const eventActivity: ActivityDef<EditorState> = {
  name: EVENT_ACTIVITY,
  create: (intent, env) => {
    const ex = intent.extras;
    const sourceId = typeof ex.event_id === 'number' ? ex.event_id : typeof ex.duplicate_of === 'number' ? ex.duplicate_of : null;
    const stored = sourceId === null ? undefined : getEvent(env.app.db, sourceId);
    if (stored) {
      env.fields.title = stored.title;
      env.fields.location = stored.location;
      env.fields.description = stored.description;
      const values = { start: stored.start, end: stored.end, allDay: stored.allDay, reminder: stored.reminder, repeat: stored.repeat };
      const isCopy = typeof ex.event_id !== 'number';
      return {
        id: isCopy ? null : stored.id, ...values, dialog: null, menu: false,
        // A duplicate is unsaved from the start: Back asks before dropping it.
        original: isCopy
          ? { title: '', location: '', description: '', ...values, start: 0, end: 0 }
          : { title: stored.title, location: stored.location, description: stored.description, ...values },
      };
    }
    const now = env.sys.clock.now();
    const start = typeof ex.new_event_start_ts === 'number' ? ex.new_event_start_ts * 1000 : Math.ceil(now / 3_600_000) * 3_600_000;
    // The real app's default duration is 0 minutes: a new event ends when it starts.
    const values = { start, end: start, allDay: false, reminder: DEFAULT_REMINDER, repeat: NO_REPEAT };
    return { id: null, ...values, dialog: null, menu: false, original: { title: '', location: '', description: '', ...values } };
  },
  onBack: (ctx) => {
    leave(ctx);
    return true;
  },
  render: (ctx) => {
    const s = ctx.s;
    const actions: ViewSpec[] = [iconButton('check', 'Save', () => save(ctx), { id: 'save' })];
    if (s.id !== null) actions.push(iconButton('delete', 'Delete', () => { ctx.nav.hideKeyboard(); s.dialog = { kind: 'delete' }; }, { id: 'delete' }));
    const bar = appBar({
      title: s.id === null ? 'New event' : 'Edit event',
      onBack: () => leave(ctx),
      actions,
      ...(s.id !== null ? { onOverflow: () => { s.menu = true; } } : {}),
    });
    const dlg = dialogView(ctx);
    const menu = menuView(ctx);
    return {
      body: screen({ appBar: bar, body: [form(ctx)], id: 'event_coordinator' }),
      ...(dlg ? { dialog: dlg } : {}),
      ...(menu ? { menu } : {}),
    };
  },
};
