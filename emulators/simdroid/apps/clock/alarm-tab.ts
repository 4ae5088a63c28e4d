import type { DialogView } from '../../runtime/app.js';
import { timePickerDialog, timePickerState } from '../../view/pickers.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { button, caption, checkbox, column, iconButton, list, row, strip, text } from '../../view/widgets.js';
import { fabBar, fabButton, labelDialog, openLabelDialog, uses24h, type Ctx } from './common.js';
import { deleteAlarm, getAlarm, insertAlarm, listAlarms, updateAlarm, type Alarm } from './db.js';
import { DAY_BITS, DAY_LETTERS, DAY_NAMES, alarmSetToast, alarmSummary, clockTime, nextAlarmTime } from './format.js';

/**
 * The Alarm tab: a card per alarm (time, on/off switch, repeat summary), one card expanded at a
 * time with repeat days, label, ringtone, vibrate and Delete; the FAB adds an alarm through the
 * time picker. Tapping a time reopens the picker for that alarm.
 */
const PICKER = 'alarm';
/** Height of a collapsed alarm card with its margins. */
const CARD_DP = 140;

function announce(ctx: Ctx, a: Pick<Alarm, 'hour' | 'minutes' | 'daysofweek'>): void {
  const now = ctx.sys.clock.now();
  ctx.nav.toast(alarmSetToast(nextAlarmTime(a, now) - now));
}

function openPicker(ctx: Ctx, alarmId: number | null, hour: number, minute: number): void {
  ctx.s.dialog = { kind: 'alarm_time', alarmId, picker: timePickerState(ctx.fields, PICKER, hour, minute) };
}

function dayButtons(ctx: Ctx, a: Alarm): ViewSpec {
  const cells: ViewSpec[] = [];
  DAY_LETTERS.forEach((letter, i) => {
    const bit = DAY_BITS[i]!;
    const on = (a.daysofweek & bit) !== 0;
    if (i > 0) cells.push({ cls: W.View, weight: 1 });
    cells.push(strip({
      cls: 'android.widget.ToggleButton', id: `day_button_${i}`, text: letter, desc: DAY_NAMES[i], checkable: true, checked: on,
      w: 40, h: 40, onClick: () => updateAlarm(ctx.app.db, a._id, { daysofweek: a.daysofweek ^ bit }),
      style: { variant: 'chip', radius: 20, textAlign: 'center', size: 14, bold: on },
    }));
  });
  return row(cells, { id: 'repeat_days', h: 40 });
}

function detailRow(icon: string, label: string, o: { id: string; onClick?: () => void }): ViewSpec {
  return row([
    strip({ cls: W.ImageView, w: 24, h: 24, style: { icon, iconColor: 'onSurfaceVariant' } }),
    text(label, { size: 16, pad: 0, lines: 1 }),
  ], strip({ id: o.id, clickable: o.onClick !== undefined, onClick: o.onClick, h: 48, gap: 16, pad: [12, 0, 12, 0] }));
}

function alarmCard(ctx: Ctx, a: Alarm, now: number): ViewSpec {
  const db = ctx.app.db;
  const expanded = ctx.s.expanded === a._id;
  const toggleExpand = () => {
    ctx.s.expanded = expanded ? null : a._id;
  };
  const parts: ViewSpec[] = [];
  if (a.label && !expanded) parts.push(text(a.label, { size: 14, pad: [0, 0, 0, 0], id: 'label', lines: 1 }));
  parts.push(row([
    text(clockTime(a.hour, a.minutes, uses24h(ctx)), {
      id: 'digital_clock', size: 44, pad: [0, 4, 0, 0], w: 'wrap', fg: a.enabled ? 'onSurface' : 'onSurfaceVariant',
      onClick: () => openPicker(ctx, a._id, a.hour, a.minutes),
    }),
    { cls: W.View, weight: 1 },
    strip({
      cls: W.Switch, id: 'onoff', checkable: true, checked: a.enabled === 1, w: 60, focusable: true,
      desc: clockTime(a.hour, a.minutes, uses24h(ctx)),
      onClick: () => {
        updateAlarm(db, a._id, { enabled: a.enabled ? 0 : 1 });
        if (!a.enabled) announce(ctx, a);
      },
    }),
  ], { h: 64 }));
  parts.push(row([
    caption(alarmSummary(a, now), { id: 'days_of_week', pad: 0, lines: 1 }),
    iconButton(expanded ? 'expand_less' : 'expand_more', expanded ? 'Collapse alarm' : 'Expand alarm', toggleExpand, { id: 'arrow' }),
  ], { h: 48 }));
  if (expanded) {
    parts.push(
      dayButtons(ctx, a),
      detailRow('label', a.label || 'Add label', { id: 'edit_label', onClick: () => openLabelDialog(ctx, a.label, { kind: 'alarm_label', alarmId: a._id }) }),
      detailRow('notifications', a.ringtone === null ? 'Silent' : 'Default (Cesium)', { id: 'choose_ringtone' }),
      row([checkbox({ label: 'Vibrate', id: 'vibrate_onoff', checked: a.vibrate === 1, onToggle: () => updateAlarm(db, a._id, { vibrate: a.vibrate ? 0 : 1 }) })], { h: 48 }),
      row([
        button('Delete', () => {
          deleteAlarm(db, a._id);
          ctx.s.expanded = null;
          ctx.nav.toast('Alarm deleted');
        }, { id: 'delete', variant: 'text', icon: 'delete', w: 'wrap' }),
      ], { h: 48 }),
    );
  }
  return column([
    column(parts, {
      id: 'alarm_item', clickable: true, onClick: toggleExpand, pad: [12, 16, 4, 20],
      style: { variant: 'card', radius: 24, bg: expanded ? 'surfaceVariant' : 'surface' },
    }),
  ], { pad: [6, 12, 6, 12] });
}

export function alarmBody(ctx: Ctx): ViewSpec[] {
  const now = ctx.sys.clock.now();
  const alarms = listAlarms(ctx.app.db);
  return [
    list('alarms', alarms.map((a) => alarmCard(ctx, a, now)), { id: 'alarm_recycler_view', empty: 'No alarms' }),
    fabBar({
      fab: fabButton('add', 'Add alarm', () => {
        // The picker opens at the next whole hour, as DeskClock's does.
        const hour = (new Date(now).getUTCHours() + 1) % 24;
        openPicker(ctx, null, hour, 0);
      }),
    }),
  ];
}

export function alarmDialog(ctx: Ctx): DialogView | undefined {
  const d = ctx.s.dialog;
  const db = ctx.app.db;
  if (d?.kind === 'alarm_time') {
    const close = () => {
      ctx.s.dialog = null;
      ctx.nav.hideKeyboard();
    };
    return timePickerDialog(d.picker, ctx.fields, PICKER, {
      onCancel: close,
      onOk: ({ hour, minute }) => {
        const existing = d.alarmId === null ? undefined : getAlarm(db, d.alarmId);
        if (existing) {
          updateAlarm(db, existing._id, { hour, minutes: minute, enabled: 1 });
          announce(ctx, { hour, minutes: minute, daysofweek: existing.daysofweek });
        } else {
          const id = insertAlarm(db, { hour, minutes: minute });
          ctx.s.expanded = id;
          // Bring the new card into view (about a collapsed card's height per alarm above it).
          const above = listAlarms(db).findIndex((a) => a._id === id);
          ctx.nav.scrollTo('alarms', above * CARD_DP);
          announce(ctx, { hour, minutes: minute, daysofweek: 0 });
        }
        close();
      },
    });
  }
  if (d?.kind === 'alarm_label') {
    return labelDialog(ctx, (label) => updateAlarm(db, d.alarmId, { label }));
  }
  return undefined;
}
