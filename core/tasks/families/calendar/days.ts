import type { Action } from '../../../actions/schema.js';
import { OracleError, screenSummary, type OracleUi } from '../../oracle.js';
import { monthNumber } from '../../../util/calendar-names.js';
import { DAY_MS, msOf, type DateParts } from '../../../seed-data/dates.js';
import { pickDate } from '../../pickers.js';
import { openEventInDay } from './common.js';

/**
 * Oracle moves on Simple Calendar's day views, for tasks worded relative to today ("this Monday",
 * "in two weeks") and questions about days and times: today is read where a person reads it (the
 * daily view opens on today, its header names the day), days are stepped to with the arrows, and a
 * day's events are read with their start times. The view the user had chosen is put back after.
 */
export interface ShownEvent {
  title: string;
  /** Minutes after midnight; null for an all-day event. */
  start: number | null;
}

/** "Sunday, October 15, 2023" → the day. */
export function parseDayTitle(text: string): DateParts {
  const m = /^\w+, (\w+) (\d{1,2}), (\d{4})$/.exec(text.trim());
  if (!m || monthNumber(m[1]!) === 0) throw new OracleError(`Not a day header: ${JSON.stringify(text)}`, '');
  return { year: Number(m[3]), month: monthNumber(m[1]!), day: Number(m[2]) };
}

/** The day the daily view shows. */
export function dayShown(ui: OracleUi): DateParts {
  return parseDayTitle(ui.require({ resourceId: 'top_value' }).node.text);
}

/** Switches to the daily view (it opens on today) and returns the view that was chosen before. */
export function* toDailyView(ui: OracleUi): Generator<Action, string, void> {
  yield ui.tap({ contentDesc: 'Change view' });
  const was = ui.find({ className: 'android.widget.RadioButton', checked: true })?.node.text ?? 'Monthly view';
  yield ui.tap({ text: 'Daily view' });
  return was;
}

export function* restoreView(ui: OracleUi, was: string): Generator<Action, void, void> {
  if (was === 'Daily view') return;
  yield ui.tap({ contentDesc: 'Change view' });
  yield ui.tap({ text: was });
}

/** In the daily view: the arrows to `target`, or "Go to date" for a day more than two weeks away. */
export function* stepToDay(ui: OracleUi, target: DateParts): Generator<Action, void, void> {
  for (let guard = 0; guard < 40; guard++) {
    const diff = Math.round((msOf(target) - msOf(dayShown(ui))) / DAY_MS);
    if (diff === 0) return;
    if (Math.abs(diff) > 14) {
      yield ui.tap({ resourceId: 'top_value' });
      yield* pickDate(ui, target);
      continue;
    }
    yield ui.tap({ resourceId: diff > 0 ? 'top_right_arrow' : 'top_left_arrow' });
  }
  throw new OracleError('The daily view never reached the day', screenSummary(ui.obs));
}

/** "3:00 PM", "15:00", "3:00 PM – 4:30 PM": the first time, in minutes; null for "All day". */
export function startMinutes(text: string): number | null {
  const m = /(\d{1,2}):(\d{2})\s*(AM|PM)?/i.exec(text);
  if (!m) return null;
  const h = Number(m[1]);
  const pm = m[3]?.toUpperCase() === 'PM';
  const hour = m[3] ? (h % 12) + (pm ? 12 : 0) : h;
  return hour * 60 + Number(m[2]);
}

/** The events of the day on view with their start times, scrolling a long day. */
export function* readDayEvents(ui: OracleUi): Generator<Action, ShownEvent[], void> {
  const seen: ShownEvent[] = [];
  const key = (e: ShownEvent) => `${e.title}|${e.start}`;
  for (let i = 0; i < 20; i++) {
    for (const row of ui.findAll({ resourceId: 'event_item_holder' })) {
      const title = descendantText(row.node, 'event_item_title');
      const time = descendantText(row.node, 'event_item_time');
      if (title === undefined || time === undefined) continue;
      const e = { title, start: startMinutes(time) };
      if (!seen.some((s) => key(s) === key(e))) seen.push(e);
    }
    const list = ui.find({ resourceId: 'day_events' });
    if (!list?.node.scrollable) return seen;
    const before = ui.fingerprint();
    yield ui.scroll('down', { resourceId: 'day_events' });
    if (ui.fingerprint() === before) return seen;
  }
  return seen;
}

function descendantText(node: { resourceId: string; text: string; children: readonly { resourceId: string; text: string; children: readonly unknown[] }[] }, id: string): string | undefined {
  for (const c of node.children as Array<typeof node>) {
    if (c.resourceId.endsWith(`:id/${id}`)) return c.text;
    const d = descendantText(c, id);
    if (d !== undefined) return d;
  }
  return undefined;
}

/** The delete confirmation's button. */
export const CONFIRM = { text: 'Delete', className: 'android.widget.Button' };

/** Deletes every event of the day on view (daily view, or a day opened from the month), one after another. */
export function* deleteAllEventsShown(ui: OracleUi, listId: 'day_events'): Generator<Action, void, void> {
  for (let guard = 0; guard < 30; guard++) {
    const first = ui.find({ resourceId: 'event_item_title' });
    if (!first || !ui.exists({ resourceId: listId })) return;
    yield* openEventInDay(ui, first.node.text);
    yield ui.tap({ contentDesc: 'Delete' });
    yield ui.tap(CONFIRM);
  }
  throw new OracleError('Events kept coming back', screenSummary(ui.obs));
}
