import { W, type Handler, type ViewSpec } from '../../view/spec.js';
import { caption, column, iconButton, row, strip, text } from '../../view/widgets.js';
import type { SettingsStore } from '../../system/settings.js';
import { DAY_MS, dayStart, type CalEvent } from './db.js';
import { cellDesc, eventTimeText, monthStartMs, type YearMonth } from './format.js';

/**
 * The pieces of Simple Calendar's main screen: the top navigation of the month and day fragments
 * (arrows around a title that opens "Go to date"), the month grid, and event rows as the day view
 * and the simple event list show them.
 */
export function topNavigation(o: { title: string; prev: string; next: string; onPrev: Handler; onNext: Handler; onTitle: Handler }): ViewSpec {
  return row([
    iconButton('chevron_left', o.prev, o.onPrev, { id: 'top_left_arrow' }),
    strip({
      cls: W.TextView, id: 'top_value', text: o.title, clickable: true, onClick: o.onTitle, weight: 1, pad: [12, 8, 12, 8],
      style: { size: 18, bold: true, textAlign: 'center', lines: 1 },
    }),
    iconButton('chevron_right', o.next, o.onNext, { id: 'top_right_arrow' }),
  ], { h: 48, pad: [0, 4, 0, 4] });
}

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

export interface GridOpts {
  ym: YearMonth;
  today: number;
  /** The highlighted day (Monthly + daily view), ms at midnight. */
  selected: number | null;
  byDay: Map<number, CalEvent[]>;
  onDay: (dayMs: number) => void;
  onSwipe: (dir: 'left' | 'right' | 'up' | 'down') => void;
  /** Short rows with a dot for days with events instead of event labels. */
  compact: boolean;
}

/** The first day the six-week grid shows (Sunday first, as in the US locale). */
export function gridStart(ym: YearMonth): number {
  const first = monthStartMs(ym);
  return first - new Date(first).getUTCDay() * DAY_MS;
}

export const GRID_DAYS = 42;
const MAX_LABELS = 4;

function dayCell(o: GridOpts, ms: number): ViewSpec {
  const d = new Date(ms);
  const inMonth = d.getUTCMonth() + 1 === o.ym.month;
  const isToday = ms === dayStart(o.today);
  const events = o.byDay.get(ms) ?? [];
  const number = strip({
    cls: W.TextView, id: 'day_monthly_number_id', text: String(d.getUTCDate()), h: 24, pad: 0,
    style: {
      size: 13, textAlign: 'center', bold: isToday,
      ...(isToday ? { variant: 'avatar' as const, bg: 'primary' as const, fg: 'onPrimary' as const } : { fg: inMonth ? 'onSurface' as const : 'outline' as const }),
    },
  });
  const parts: ViewSpec[] = [number];
  if (o.compact) {
    if (events.length) parts.push(strip({ cls: W.TextView, text: '•', h: 14, pad: 0, style: { size: 14, textAlign: 'center', fg: events[0]!.color } }));
  } else {
    for (const e of events.slice(0, MAX_LABELS)) {
      parts.push(strip({
        cls: W.TextView, id: 'day_monthly_event_id', text: e.title, h: 16, pad: [0, 2, 0, 2],
        style: { size: 10, lines: 1, bg: e.color, fg: '#FFFFFF', radius: 2, ...(inMonth ? {} : { fg: '#E0E0E0' as const }) },
      }));
    }
    if (events.length > MAX_LABELS) parts.push(strip({ cls: W.TextView, text: `+${events.length - MAX_LABELS}`, h: 14, pad: [0, 2, 0, 2], style: { size: 10, fg: 'onSurfaceVariant' } }));
  }
  const selected = o.selected === ms;
  return column(parts, {
    desc: cellDesc(ms), clickable: true, onClick: () => o.onDay(ms), selected, gap: 2, pad: [4, 1, 0, 1],
    style: { ...(selected ? { bg: 'primaryContainer' as const } : {}), divider: !o.compact },
  });
}

/** Weekday initials and six weeks of day cells. Horizontal swipes page months, as the real ViewPager does. */
export function monthGrid(o: GridOpts): ViewSpec {
  const start = gridStart(o.ym);
  const weeks: ViewSpec[] = [];
  for (let w = 0; w < 6; w++) {
    const cells: ViewSpec[] = [];
    for (let i = 0; i < 7; i++) cells.push(dayCell(o, start + (w * 7 + i) * DAY_MS));
    weeks.push(row(cells, { id: `month_line_holder_${w + 1}`, h: o.compact ? 46 : 'fill' }));
  }
  const header = row(WEEKDAYS.map((l) => text(l, { align: 'center', size: 12, fg: 'onSurfaceVariant', pad: 0 })), { h: 24, id: 'first_row' });
  return column([header, ...weeks], { id: 'month_view_wrapper', h: o.compact ? undefined : 'fill', onSwipe: o.onSwipe });
}

/** One event as a row of the day view and the event list: colour bar, title, time, where or what. */
export function eventRow(e: CalEvent, settings: SettingsStore, onClick: Handler): ViewSpec {
  const lines: ViewSpec[] = [
    text(e.title, { id: 'event_item_title', size: 16, pad: 0, lines: 1 }),
    caption(eventTimeText(e, settings), { id: 'event_item_time', pad: 0 }),
  ];
  const extra = e.location || e.description;
  if (extra) lines.push(caption(extra, { id: 'event_item_description', pad: 0, lines: 1 }));
  return row([
    { cls: W.View, w: 4, style: { bg: e.color, radius: 2 } },
    column(lines, { weight: 1, gap: 2 }),
  ], { id: 'event_item_holder', clickable: true, onClick, pad: [10, 16, 10, 12], gap: 12 });
}

/** A date heading of the simple event list. */
export function sectionTitle(title: string): ViewSpec {
  return text(title, { id: 'event_section_title', size: 14, bold: true, fg: 'primary', pad: [16, 16, 4, 16] });
}
