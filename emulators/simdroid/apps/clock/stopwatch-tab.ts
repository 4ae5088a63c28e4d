import { W, type ViewSpec } from '../../view/spec.js';
import { caption, column, list, row, text } from '../../view/widgets.js';
import { fabBar, fabButton, sideButton, type Ctx } from './common.js';
import { MAX_LAPS, addLap, getStopwatch, listLaps, pauseStopwatch, resetStopwatch, startStopwatch, stopwatchElapsed, type Lap } from './db.js';
import { stopwatchParts, stopwatchText } from './format.js';

/**
 * The Stopwatch tab: elapsed time (from the virtual clock) with hundredths, the laps list newest
 * first, and DeskClock's buttons: Reset on the left, Start/Pause in the FAB, Lap on the right.
 */
function lapRow(l: Lap): ViewSpec {
  return row([
    text(`# ${l.lap_number}`, { id: 'lap_number', size: 16, pad: 0, w: 64 }),
    text(stopwatchText(l.lap_time_ms), { id: 'lap_time', size: 16, pad: 0, align: 'center' }),
    caption(stopwatchText(l.total_time_ms), { id: 'lap_total', pad: 0, align: 'right' }),
  ], { pad: [12, 32, 12, 32], gap: 8 });
}

export function stopwatchBody(ctx: Ctx): ViewSpec[] {
  const db = ctx.app.db;
  const now = ctx.sys.clock.now();
  const sw = getStopwatch(db);
  const parts = stopwatchParts(stopwatchElapsed(sw, now));
  const laps = listLaps(db);
  const running = sw.state === 'running';
  const time = row([
    { cls: W.View, weight: 1 },
    text(parts.main, { id: 'stopwatch_time_text', size: 64, w: 'wrap', pad: 0, fg: sw.state === 'paused' ? 'onSurfaceVariant' : 'onSurface' }),
    text(parts.hundredths, { id: 'stopwatch_hundredths_text', size: 28, w: 'wrap', pad: [26, 0, 0, 4], fg: 'onSurfaceVariant' }),
    { cls: W.View, weight: 1 },
  ], { pad: [48, 0, 24, 0], id: 'stopwatch_time_wrapper' });
  const body: ViewSpec[] = [time];
  if (laps.length) {
    body.push(list('laps', laps.map(lapRow), { id: 'laps_list' }));
  } else {
    body.push({ cls: W.View, h: 'fill' });
  }
  return [
    column(body, { h: 'fill' }),
    fabBar({
      ...(sw.state !== 'reset' ? { left: sideButton('Reset', () => resetStopwatch(db), 'reset', 'Reset') } : {}),
      fab: running
        ? fabButton('pause', 'Pause', () => pauseStopwatch(db, ctx.sys.clock.now()))
        : fabButton('play', 'Start', () => startStopwatch(db, ctx.sys.clock.now())),
      ...(running && laps.length < MAX_LAPS ? { right: sideButton('Lap', () => addLap(db, ctx.sys.clock.now()), 'lap', 'Lap') } : {}),
    }),
  ];
}
