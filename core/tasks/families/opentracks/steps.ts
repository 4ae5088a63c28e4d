import type { Action } from '../../../actions/schema.js';
import type { UiElement, UiNode } from '../../../a11y/ui-tree.js';
import type { DateParts } from '../../../seed-data/dates.js';
import { launch, OracleError, screenSummary, type OracleUi } from '../../oracle.js';
import { openClockTab } from '../clock/common.js';
import { shiftDay } from './common.js';

/**
 * Oracle moves in OpenTracks, read off the screen as a person reads it: today's date on the
 * Clock, then every row of the track list (scrolling to its end) with its activity type (the
 * icon's description), day label, total time and distance.
 */
type Steps<T> = Generator<Action, T, void>;

export interface ShownTrack {
  name: string;
  category: string;
  /** The day label: "Today", "Yesterday" or "Oct 12, 2023". */
  date: string;
  /** "1:30:00 (5.23 mi)". */
  timeDistance: string;
  /** "17:30". */
  time: string;
}

const MONTH_ABBR = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Today's month and day off the Clock tab ("Sun, Oct 15"); the year comes later from the list. */
export function* todayOnClock(ui: OracleUi): Steps<{ month: number; day: number }> {
  yield* openClockTab(ui, 'clock');
  const shown = ui.require({ resourceId: 'date' }).node.text;
  const m = /(\w{3}) (\d{1,2})$/.exec(shown.trim());
  if (!m || !MONTH_ABBR.includes(m[1]!)) throw new OracleError(`The Clock shows no date: ${JSON.stringify(shown)}`, screenSummary(ui.obs));
  return { month: MONTH_ABBR.indexOf(m[1]!) + 1, day: Number(m[2]) };
}

function findIn(n: UiNode, id: string): UiNode | undefined {
  if (n.resourceId.endsWith(`:id/${id}`)) return n;
  for (const c of n.children) {
    const hit = findIn(c, id);
    if (hit) return hit;
  }
  return undefined;
}

function visibleTracks(ui: OracleUi): ShownTrack[] {
  return ui.findAll({ resourceId: 'track_list_item' }).flatMap((r: UiElement) => {
    const name = findIn(r.node, 'track_list_item_name');
    const td = findIn(r.node, 'track_list_item_time_distance');
    if (!name || !td) return [];
    return [{
      name: name.text, category: findIn(r.node, 'track_list_item_icon')?.contentDesc ?? '', date: findIn(r.node, 'track_list_item_date')?.text ?? '',
      timeDistance: td.text, time: findIn(r.node, 'track_list_item_time')?.text ?? '',
    }];
  });
}

/**
 * Every track row, scrolling the list to its end. Rows are told apart by all they show; identical
 * rows count as often as one screen shows them side by side.
 */
export function* readTrackList(ui: OracleUi): Steps<ShownTrack[]> {
  yield* launch(ui, 'OpenTracks');
  const seen = new Map<string, { row: ShownTrack; n: number }>();
  for (let guard = 0; guard < 60; guard++) {
    const here = new Map<string, { row: ShownTrack; n: number }>();
    for (const r of visibleTracks(ui)) {
      const k = [r.name, r.category, r.date, r.timeDistance, r.time].join('|');
      here.set(k, { row: r, n: (here.get(k)?.n ?? 0) + 1 });
    }
    for (const [k, v] of here) if ((seen.get(k)?.n ?? 0) < v.n) seen.set(k, v);
    const listEl = ui.find({ resourceId: 'track_list' });
    if (!listEl?.node.scrollable) break;
    const before = ui.fingerprint();
    yield ui.scroll('down', { resourceId: 'track_list' });
    if (ui.fingerprint() === before) break;
  }
  return [...seen.values()].flatMap((v) => Array.from({ length: v.n }, () => v.row));
}

/** The year the list's dated rows show (the latest), for a today read off a clock that shows none. */
export function yearOf(rows: readonly ShownTrack[]): number | null {
  const years = rows.map((r) => /, (\d{4})$/.exec(r.date)?.[1]).filter((y): y is string => y !== undefined).map(Number);
  return years.length ? Math.max(...years) : null;
}

/** The day a row's label names. */
export function rowDay(r: ShownTrack, today: DateParts): DateParts {
  if (r.date === 'Today') return today;
  if (r.date === 'Yesterday') return shiftDay(today, -1);
  const m = /^(\w{3}) (\d{1,2}), (\d{4})$/.exec(r.date);
  if (!m || !MONTH_ABBR.includes(m[1]!)) throw new OracleError(`Unread track date ${JSON.stringify(r.date)}`, '');
  return { year: Number(m[3]), month: MONTH_ABBR.indexOf(m[1]!) + 1, day: Number(m[2]) };
}

/** Total time in whole minutes, from "45:00" or "1:30:00". */
export function rowMinutes(r: ShownTrack): number {
  const m = /^(?:(\d+):)?(\d{1,2}):(\d{2}) \(/.exec(r.timeDistance);
  if (!m) throw new OracleError(`Unread total time in ${JSON.stringify(r.timeDistance)}`, '');
  return Math.round((Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3])) / 60);
}

/** Distance in metres, from "(5.23 mi)" or "(1476.38 ft)". */
export function rowMeters(r: ShownTrack): number {
  const m = /\(([\d.,]+) (mi|ft|km|m)\)$/.exec(r.timeDistance);
  if (!m) throw new OracleError(`Unread distance in ${JSON.stringify(r.timeDistance)}`, '');
  const v = Number(m[1]!.replace(/,/g, ''));
  const factor = { mi: 1609.344, ft: 0.3048, km: 1000, m: 1 }[m[2] as 'mi' | 'ft' | 'km' | 'm'];
  return v * factor;
}

/** Today with its year, from the Clock and the list. */
export function* readToday(ui: OracleUi): Steps<{ today: DateParts; rows: ShownTrack[] }> {
  const md = yield* todayOnClock(ui);
  const rows = yield* readTrackList(ui);
  // A list of only "Today"/"Yesterday" rows needs no year: any year reads them alike.
  return { today: { year: yearOf(rows) ?? 2000, ...md }, rows };
}
