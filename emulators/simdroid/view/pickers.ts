import { MONTH_NAMES as MONTHS } from '../../../core/util/calendar-names.js';
import type { DialogView } from '../runtime/app.js';
import { W, type ViewSpec } from './spec.js';
import { column, dialog, iconButton, radio, row, strip, text, textField } from './widgets.js';

/**
 * Material date and time pickers as dialogs. Their transient state (the month on view, the day
 * picked so far) is plain data the activity keeps in its own state and passes in, so pickers
 * survive snapshots like everything else.
 */
const SHORT_DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export interface DatePickerState {
  year: number;
  /** 1..12 */
  month: number;
  day: number;
  viewYear: number;
  viewMonth: number;
}

export function datePickerState(year: number, month: number, day: number): DatePickerState {
  return { year, month, day, viewYear: year, viewMonth: month };
}

function daysIn(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * A calendar-grid date picker: "Previous month" / "Next month" buttons, day cells whose
 * content-desc reads like Android's ("22 October 2023"), Cancel and OK.
 */
export function datePickerDialog(st: DatePickerState, h: { onOk: (d: { year: number; month: number; day: number }) => void; onCancel: () => void; title?: string }): DialogView {
  const first = new Date(Date.UTC(st.viewYear, st.viewMonth - 1, 1)).getUTCDay();
  const n = daysIn(st.viewYear, st.viewMonth);
  const cells: ViewSpec[] = [];
  for (let i = 0; i < first; i++) cells.push({ cls: W.View, h: 40 });
  for (let d = 1; d <= n; d++) {
    const selected = st.year === st.viewYear && st.month === st.viewMonth && st.day === d;
    cells.push(strip({
      cls: W.TextView, text: String(d), desc: `${d} ${MONTHS[st.viewMonth - 1]} ${st.viewYear}`, h: 40, clickable: true, selected,
      onClick: () => {
        st.year = st.viewYear;
        st.month = st.viewMonth;
        st.day = d;
      },
      style: { textAlign: 'center', size: 14, ...(selected ? { variant: 'avatar' as const, bg: 'primary' as const, fg: 'onPrimary' as const } : {}) },
    }));
  }
  while (cells.length % 7) cells.push({ cls: W.View, h: 40 });
  const weeks: ViewSpec[] = [];
  for (let i = 0; i < cells.length; i += 7) weeks.push(row(cells.slice(i, i + 7), { h: 40 }));
  const shift = (delta: number) => () => {
    const m = st.viewMonth - 1 + delta;
    st.viewYear += Math.floor(m / 12);
    st.viewMonth = ((m % 12) + 12) % 12 + 1;
  };
  const selDay = new Date(Date.UTC(st.year, st.month - 1, st.day));
  return {
    spec: dialog({
      body: [
        text(h.title ?? 'Select date', { size: 14, pad: [20, 24, 0, 24], fg: 'onSurfaceVariant' }),
        text(`${SHORT_DAYS[selDay.getUTCDay()]}, ${MONTHS[st.month - 1]!.slice(0, 3)} ${st.day}`, { size: 28, pad: [4, 24, 12, 24], id: 'date_picker_header_date' }),
        row([
          text(`${MONTHS[st.viewMonth - 1]} ${st.viewYear}`, { id: 'month_navigation_fragment_toggle', size: 16, bold: true, pad: [0, 24, 0, 24] }),
          iconButton('chevron_left', 'Previous month', shift(-1), { id: 'month_navigation_previous' }),
          iconButton('chevron_right', 'Next month', shift(1), { id: 'month_navigation_next' }),
        ], { h: 48 }),
        row(['S', 'M', 'T', 'W', 'T', 'F', 'S'].map((l) => text(l, { align: 'center', size: 12, fg: 'onSurfaceVariant', pad: 0 })), { h: 24, pad: [0, 12, 0, 12] }),
        column(weeks, { id: 'month_grid', pad: [0, 12, 0, 12] }),
      ],
      buttons: [
        { label: 'Cancel', onClick: h.onCancel },
        { label: 'OK', onClick: () => h.onOk({ year: st.year, month: st.month, day: st.day }) },
      ],
    }),
    onCancel: h.onCancel,
  };
}

export interface TimePickerState {
  /** Whether PM is selected (the hour field holds 1..12). */
  pm: boolean;
  error: boolean;
}

/**
 * Prepares a keyboard-input time picker: fills the window's `<prefix>_hour` and `<prefix>_minute`
 * fields from a 24-hour time and returns the state to keep.
 */
export function timePickerState(fields: Record<string, string>, prefix: string, hour: number, minute: number): TimePickerState {
  fields[`${prefix}_hour`] = String(hour % 12 === 0 ? 12 : hour % 12);
  fields[`${prefix}_minute`] = String(minute).padStart(2, '0');
  return { pm: hour >= 12, error: false };
}

/** Android's "Enter time" picker (keyboard mode): hour and minute fields, AM/PM, Cancel and OK. */
export function timePickerDialog(
  st: TimePickerState,
  fields: Record<string, string>,
  prefix: string,
  h: { onOk: (t: { hour: number; minute: number }) => void; onCancel: () => void; title?: string },
): DialogView {
  const ok = () => {
    const hh = Number(fields[`${prefix}_hour`]);
    const mm = Number(fields[`${prefix}_minute`]);
    if (!Number.isInteger(hh) || hh < 1 || hh > 12 || !Number.isInteger(mm) || mm < 0 || mm > 59 || (fields[`${prefix}_minute`] ?? '') === '') {
      st.error = true;
      return;
    }
    st.error = false;
    h.onOk({ hour: (hh % 12) + (st.pm ? 12 : 0), minute: mm });
  };
  const body: ViewSpec[] = [
    text(h.title ?? 'Enter time', { size: 14, pad: [20, 24, 8, 24], fg: 'onSurfaceVariant' }),
    row([
      column([textField({ field: `${prefix}_hour`, hint: 'hour', id: 'input_hour', accept: 'digits', pad: 0 }), text('Hour', { size: 12, pad: [4, 0, 0, 0], fg: 'onSurfaceVariant' })], { weight: 1 }),
      text(':', { size: 32, w: 24, align: 'center', pad: 0 }),
      column([textField({ field: `${prefix}_minute`, hint: 'minute', id: 'input_minute', accept: 'digits', pad: 0 }), text('Minute', { size: 12, pad: [4, 0, 0, 0], fg: 'onSurfaceVariant' })], { weight: 1 }),
      column([
        radio({ label: 'AM', checked: !st.pm, onSelect: () => { st.pm = false; }, id: 'am_label' }),
        radio({ label: 'PM', checked: st.pm, onSelect: () => { st.pm = true; }, id: 'pm_label' }),
      ], { w: 96 }),
    ], { pad: [0, 24, 0, 24], gap: 8 }),
  ];
  if (st.error) body.push(text('Enter a valid time', { size: 12, fg: 'error', pad: [4, 24, 0, 24], id: 'error_message' }));
  return {
    spec: dialog({ body, buttons: [{ label: 'Cancel', onClick: h.onCancel }, { label: 'OK', onClick: ok }] }),
    onCancel: h.onCancel,
  };
}
