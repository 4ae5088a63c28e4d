import type { DialogView } from '../../runtime/app.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { button, caption, column, iconButton, list, row, strip, text } from '../../view/widgets.js';
import { fabBar, fabButton, labelDialog, openLabelDialog, sideButton, type Ctx } from './common.js';
import {
  addMinute, deleteTimer, listTimers, pauseTimer, resetTimer, resumeTimer, setTimerLabel, startNewTimer, timerRemaining,
  type TimerRow,
} from './db.js';
import { lengthText, setupDescription, setupLengthMs, setupText, timerText } from './format.js';

/**
 * The Timer tab. With no timers (or after "Add timer") it is DeskClock's keypad: digits enter from
 * the right into "00h 00m 00s" and the FAB starts a timer of that length. Otherwise each timer is
 * a card whose remaining time is computed from the virtual clock, with Reset, play/pause, +1:00,
 * a label and Delete.
 */
const MAX_DIGITS = 6;

function keypad(ctx: Ctx): ViewSpec {
  const digit = (d: string): ViewSpec => strip({
    cls: W.Button, id: `timer_setup_digit_${d}`, text: d, weight: 1, h: 72,
    onClick: () => {
      // Leading zeros are dropped, so "0" on an empty display does nothing, as in DeskClock.
      const next = (ctx.s.timerDigits + d).replace(/^0+/, '');
      if (next.length <= MAX_DIGITS) ctx.s.timerDigits = next;
    },
    style: { variant: 'tonal', radius: 36, size: 28, textAlign: 'center' },
  });
  const rows = [['1', '2', '3'], ['4', '5', '6'], ['7', '8', '9']].map((r) => row(r.map(digit), { gap: 16, h: 72 }));
  rows.push(row([
    digit('00'),
    digit('0'),
    row([{ cls: W.View, weight: 1 }, iconButton('backspace', 'Delete', () => {
      ctx.s.timerDigits = ctx.s.timerDigits.slice(0, -1);
    }, {
      id: 'timer_setup_delete', enabled: ctx.s.timerDigits !== '',
      onLongClick: () => {
        ctx.s.timerDigits = '';
      },
    }), { cls: W.View, weight: 1 }], { weight: 1, h: 72, pad: [12, 0, 12, 0] }),
  ], { gap: 16, h: 72 }));
  return column(rows, { gap: 12, pad: [8, 32, 8, 32], id: 'timer_setup_keypad' });
}

function setupBody(ctx: Ctx, hasTimers: boolean): ViewSpec[] {
  const digits = ctx.s.timerDigits;
  const ready = digits !== '' && setupLengthMs(digits) > 0;
  const display = text(setupText(digits), {
    id: 'timer_setup_time', desc: setupDescription(digits), size: 48, align: 'center', pad: [32, 16, 24, 16],
    fg: digits === '' ? 'onSurfaceVariant' : 'primary',
  });
  const start = () => {
    startNewTimer(ctx.app.db, setupLengthMs(ctx.s.timerDigits), ctx.sys.clock.now());
    ctx.s.timerDigits = '';
    ctx.s.timerSetup = false;
  };
  return [
    column([display, keypad(ctx)], { h: 'fill', id: 'timer_setup' }),
    fabBar({
      ...(hasTimers ? { left: sideButton('Cancel', () => {
        ctx.s.timerSetup = false;
        ctx.s.timerDigits = '';
      }, 'timer_cancel') } : {}),
      ...(ready ? { fab: fabButton('play', 'Start', start) } : {}),
    }),
  ];
}

/** A timer card's own start/pause button, styled like a small FAB. */
function roundButton(icon: string, desc: string, onClick: () => void): ViewSpec {
  return strip({ cls: W.ImageButton, id: 'play_pause', desc, onClick, w: 64, h: 56, style: { variant: 'fab', icon, radius: 28 } });
}

function timerCard(ctx: Ctx, t: TimerRow, now: number): ViewSpec {
  const db = ctx.app.db;
  const remaining = timerRemaining(t, now);
  const expired = t.state === 'running' && remaining <= 0;
  const status = expired ? "Time's up" : t.state === 'paused' ? 'Paused' : t.state === 'reset' ? 'Not started' : 'Running';
  const playPause = expired
    ? roundButton('stop', 'Stop', () => resetTimer(db, t))
    : t.state === 'running'
      ? roundButton('pause', 'Pause', () => pauseTimer(db, t, ctx.sys.clock.now()))
      : roundButton('play', 'Start', () => resumeTimer(db, t, ctx.sys.clock.now()));
  return column([
    column([
      row([
        text(t.label || 'Label', {
          id: 'timer_label', size: 16, pad: [0, 0, 0, 4], lines: 1, fg: t.label ? 'onSurface' : 'onSurfaceVariant',
          onClick: () => openLabelDialog(ctx, t.label, { kind: 'timer_label', timerId: t._id }),
        }),
        iconButton('close', 'Delete timer', () => deleteTimer(db, t._id), { id: 'delete' }),
      ], { h: 48 }),
      text(timerText(remaining), { id: 'timer_time_text', size: 56, align: 'center', pad: [8, 0, 0, 0], fg: expired ? 'error' : 'onSurface' }),
      caption(`${status} · ${lengthText(t.length_ms)}`, { id: 'timer_status', align: 'center', pad: [0, 0, 8, 0] }),
      row([
        column([button('Reset', () => resetTimer(db, t), { id: 'reset', variant: 'outlined', enabled: t.state !== 'reset' })], { weight: 1, pad: [4, 0, 4, 0] }),
        playPause,
        column([button('+1:00', () => addMinute(db, t, ctx.sys.clock.now()), { id: 'add_one_minute', variant: 'outlined', desc: 'Add 1 minute' })], { weight: 1, pad: [4, 0, 4, 0] }),
      ], { gap: 12, h: 56 }),
    ], { id: 'timer_item', pad: [8, 16, 16, 16], style: { variant: 'card', radius: 24 } }),
  ], { pad: [6, 12, 6, 12] });
}

export function timerBody(ctx: Ctx): ViewSpec[] {
  const timers = listTimers(ctx.app.db);
  if (timers.length === 0 || ctx.s.timerSetup) return setupBody(ctx, timers.length > 0);
  const now = ctx.sys.clock.now();
  return [
    list('timers', timers.map((t) => timerCard(ctx, t, now)), { id: 'timer_recycler_view' }),
    fabBar({
      fab: fabButton('add', 'Add timer', () => {
        ctx.s.timerSetup = true;
        ctx.s.timerDigits = '';
      }),
    }),
  ];
}

export function timerDialog(ctx: Ctx): DialogView | undefined {
  const d = ctx.s.dialog;
  if (d?.kind !== 'timer_label') return undefined;
  return labelDialog(ctx, (label) => setTimerLabel(ctx.app.db, d.timerId, label));
}
