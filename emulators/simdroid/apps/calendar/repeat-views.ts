import type { DialogView } from '../../runtime/app.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { caption, checkbox, column, dialog, radio, row, strip, text, textField } from '../../view/widgets.js';
import { datePickerDialog, datePickerState, type DatePickerState } from '../../view/pickers.js';
import { dayStart } from './db.js';
import { editorDate } from './format.js';
import {
  defaultRule, isMonthly, isWeekly, limitText, REPEAT_CHOICES, REPEAT_LAST_DAY, REPEAT_SAME_DAY, repeatText, ruleText,
  WEEKDAYS_MONDAY_FIRST, type Repeat,
} from './repeat.js';
import type { EditorCtx } from './editor-state.js';

/**
 * The editor's repetition rows and their dialogs, as Simple Calendar has them: "No repetition"
 * (event_repetition) opens the choice of Daily, Weekly, Monthly, Yearly; a repeating event adds
 * "Repeat on" (the weekdays of a weekly event, same day or last day for a monthly one) and
 * "Repeat till" (Forever, a number of repetitions, or a date).
 */
export type RepeatDialog =
  | { kind: 'repeat' }
  | { kind: 'repeat_weekdays'; rule: number }
  | { kind: 'repeat_monthly' }
  | { kind: 'repeat_limit'; choice: 'forever' | 'count' | 'date'; until: number }
  | { kind: 'repeat_until'; picker: DatePickerState; choice: 'date' };

const COUNT_FIELD = 'repeat_count';

/** Picking an interval: the rule follows it (setRepeatInterval → setRepeatRule in the real editor). */
export function setInterval(ctx: EditorCtx, interval: number): void {
  const r = ctx.s.repeat;
  ctx.s.repeat = { interval, rule: defaultRule(interval, ctx.s.start), limit: interval === 0 ? 0 : r.limit };
}

/** A new start day moves a weekly event's one weekday along with it (checkRepeatRule). */
export function followStart(r: Repeat, oldStart: number, newStart: number): Repeat {
  if (!isWeekly(r.interval)) return r;
  const old = defaultRule(r.interval, oldStart);
  return r.rule === old ? { ...r, rule: defaultRule(r.interval, newStart) } : r;
}

function holder(id: string, label: string | null, value: string, valueId: string, onClick: () => void, icon: string | null): ViewSpec {
  const texts: ViewSpec[] = label === null
    ? [text(value, { id: valueId, size: 16, pad: 0 })]
    : [caption(label, { id: `${id.replace(/_holder$/, '')}_label`, pad: 0 }), text(value, { id: valueId, size: 16, pad: 0 })];
  return row([
    strip({ cls: W.ImageView, w: 24, h: 24, style: icon ? { icon, iconColor: 'onSurfaceVariant' } : {} }),
    column(texts, { weight: 1, gap: 2 }),
  ], { id, clickable: true, onClick, pad: [14, 16, 14, 16], gap: 16 });
}

/** The rows under the reminder: repetition, then (when repeating) the rule and the limit. */
export function repetitionRows(ctx: EditorCtx): ViewSpec[] {
  const s = ctx.s;
  const r = s.repeat;
  const open = (d: RepeatDialog) => () => { ctx.nav.hideKeyboard(); s.dialog = d; };
  const rows = [holder('event_repetition_holder', null, repeatText(r.interval), 'event_repetition', open({ kind: 'repeat' }), 'repeat')];
  if (r.interval === 0) return rows;
  if (isWeekly(r.interval)) rows.push(holder('event_repetition_rule_holder', 'Repeat on', ruleText(r), 'event_repetition_rule', open({ kind: 'repeat_weekdays', rule: r.rule }), null));
  else if (isMonthly(r.interval)) rows.push(holder('event_repetition_rule_holder', 'Repeat on', ruleText(r), 'event_repetition_rule', open({ kind: 'repeat_monthly' }), null));
  const choice = r.limit === 0 ? 'forever' : r.limit < 0 ? 'count' : 'date';
  const until = r.limit > 0 ? r.limit * 1000 : dayStart(s.start);
  rows.push(holder('event_repetition_limit_holder', 'Repeat till', limitText(r.limit, editorDate), 'event_repetition_limit', open({ kind: 'repeat_limit', choice, until }), null));
  return rows;
}

export function repetitionDialog(ctx: EditorCtx, dlg: RepeatDialog): DialogView {
  const s = ctx.s;
  const close = () => { s.dialog = null; };
  switch (dlg.kind) {
    case 'repeat':
      return {
        spec: dialog({
          body: REPEAT_CHOICES.map(([seconds, label]) => radio({
            label, checked: s.repeat.interval === seconds, onSelect: () => { setInterval(ctx, seconds); close(); },
          })),
          buttons: [],
        }),
        onCancel: close,
      };
    case 'repeat_weekdays':
      return {
        spec: dialog({
          body: WEEKDAYS_MONDAY_FIRST.map((d) => checkbox({
            label: d.name, checked: (dlg.rule & d.bit) !== 0, onToggle: () => { dlg.rule ^= d.bit; },
          })),
          buttons: [
            { label: 'Cancel', onClick: close },
            // No weekday left: no repetition (setRepeatRule(0) resets the interval).
            { label: 'OK', onClick: () => { s.repeat = dlg.rule === 0 ? { interval: 0, rule: 0, limit: 0 } : { ...s.repeat, rule: dlg.rule }; close(); } },
          ],
        }),
        onCancel: close,
      };
    case 'repeat_monthly':
      return {
        spec: dialog({
          body: [[REPEAT_SAME_DAY, 'Same day'] as const, [REPEAT_LAST_DAY, 'Last day of the month'] as const].map(([rule, label]) => radio({
            label, checked: s.repeat.rule === rule, onSelect: () => { s.repeat = { ...s.repeat, rule }; close(); },
          })),
          buttons: [],
        }),
        onCancel: close,
      };
    case 'repeat_limit':
      return limitDialog(ctx, dlg, close);
    case 'repeat_until':
      return datePickerDialog(dlg.picker, {
        onCancel: () => { s.dialog = { kind: 'repeat_limit', choice: 'forever', until: dayStart(s.start) }; },
        onOk: ({ year, month, day }) => { s.dialog = { kind: 'repeat_limit', choice: 'date', until: Date.UTC(year, month - 1, day) }; },
      });
  }
}

function limitDialog(ctx: EditorCtx, dlg: Extract<RepeatDialog, { kind: 'repeat_limit' }>, close: () => void): DialogView {
  const s = ctx.s;
  const untilDate = new Date(dlg.until);
  const apply = () => {
    if (dlg.choice === 'forever') s.repeat = { ...s.repeat, limit: 0 };
    else if (dlg.choice === 'date') s.repeat = { ...s.repeat, limit: Math.floor(dlg.until / 1000) };
    else {
      const n = Number(ctx.fields[COUNT_FIELD] ?? '');
      if (!Number.isInteger(n) || n < 1) {
        ctx.nav.toast('Invalid value');
        return;
      }
      s.repeat = { ...s.repeat, limit: -n };
    }
    ctx.nav.hideKeyboard();
    close();
  };
  return {
    spec: dialog({
      title: 'Repeat till',
      body: [
        radio({ label: 'Forever', id: 'repeat_type_forever', checked: dlg.choice === 'forever', onSelect: () => { dlg.choice = 'forever'; } }),
        radio({
          label: `Repeat till a date: ${editorDate(dlg.until)}`, id: 'repeat_type_till_date', checked: dlg.choice === 'date',
          onSelect: () => { s.dialog = { kind: 'repeat_until', choice: 'date', picker: datePickerState(untilDate.getUTCFullYear(), untilDate.getUTCMonth() + 1, untilDate.getUTCDate()) }; },
        }),
        radio({ label: 'Number of repetitions', id: 'repeat_type_x_times', checked: dlg.choice === 'count', onSelect: () => { dlg.choice = 'count'; ctx.nav.focus(COUNT_FIELD); } }),
        textField({ field: COUNT_FIELD, hint: 'Number of repetitions', id: 'repeat_type_count', accept: 'digits' }),
      ],
      buttons: [{ label: 'Cancel', onClick: () => { ctx.nav.hideKeyboard(); close(); } }, { label: 'OK', onClick: apply }],
    }),
    onCancel: close,
  };
}

