import type { ActivityContext, ActivityDef, DialogView, MenuView } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { appBar, column, dialog, divider, fab, iconButton, list, radio, screen, text } from '../../view/widgets.js';
import { datePickerDialog, datePickerState, type DatePickerState } from '../../view/pickers.js';
import { DAY_MS, dayStart, eventsBetween, eventsByDay, eventsFrom } from './db.js';
import { addMonths, dayTitle, monthOf, monthStartMs, monthTitle, type YearMonth } from './format.js';
import { eventRow, gridStart, GRID_DAYS, monthGrid, sectionTitle, topNavigation } from './views.js';

/**
 * Simple Calendar's MainActivity: the calendar in the view the user chose (monthly, monthly +
 * daily, daily, or the simple event list, remembered in preferences), a FAB for a new event, and a
 * day opened from the month grid stacked over it (Back returns to the month, like the real app's
 * fragment stack).
 */
export const MAIN_ACTIVITY = 'com.simplemobiletools.calendar.pro.activities.MainActivity';
export const EVENT_ACTIVITY = 'com.simplemobiletools.calendar.pro.activities.EventActivity';

export type ViewMode = 'month' | 'month_day' | 'day' | 'list';

const VIEWS: Array<[ViewMode, string]> = [
  ['day', 'Daily view'], ['month', 'Monthly view'], ['month_day', 'Monthly + daily view'], ['list', 'Simple event list'],
];

interface MainState {
  mode: ViewMode;
  /** The month on view (monthly views). */
  ym: YearMonth;
  /** The day on view (daily view) or selected (monthly + daily), ms at midnight. */
  day: number;
  /** A day opened by tapping the month grid, shown over the month. */
  dayFromMonth: boolean;
  dialog: null | { kind: 'change_view' } | { kind: 'about' } | { kind: 'go_to'; picker: DatePickerState };
  menu: boolean;
}

type Ctx = ActivityContext<MainState>;

const PREF_VIEW = 'view';

function isMode(v: string | undefined): v is ViewMode {
  return VIEWS.some(([m]) => m === v);
}

function showing(s: MainState): ViewMode {
  return s.dayFromMonth ? 'day' : s.mode;
}

function goToday(ctx: Ctx): void {
  const today = dayStart(ctx.sys.clock.now());
  ctx.s.ym = monthOf(today);
  setDay(ctx, today);
  ctx.nav.scrollTo('events_list', 0);
}

/** The new event's start: the day in view at the next full hour, as getNewEventTimestampFromCode does. */
function newEventStart(ctx: Ctx): number {
  const s = ctx.s;
  const now = ctx.sys.clock.now();
  let day: number;
  switch (showing(s)) {
    case 'day':
    case 'month_day':
      day = s.day;
      break;
    case 'month': {
      const cur = monthOf(now);
      day = cur.year === s.ym.year && cur.month === s.ym.month ? dayStart(now) : monthStartMs(s.ym);
      break;
    }
    case 'list':
      day = dayStart(now);
      break;
  }
  return day + (new Date(now).getUTCHours() + 1) * 3_600_000;
}

function openEvent(ctx: Ctx, id: number): () => void {
  return () => ctx.nav.start(EVENT_ACTIVITY, { event_id: id });
}

function setDay(ctx: Ctx, day: number): void {
  ctx.s.day = day;
  ctx.nav.scrollTo('day_events', 0);
  ctx.nav.scrollTo('month_day_events', 0);
}

function dayEvents(ctx: Ctx, day: number, key: string, id: string): ViewSpec {
  const rows = eventsBetween(ctx.app.db, day, day + DAY_MS).map((e) => eventRow(e, ctx.sys.settings, openEvent(ctx, e.id)));
  return list(key, rows, { id, empty: 'No events on this day' });
}

function monthBody(ctx: Ctx, compact: boolean): ViewSpec[] {
  const s = ctx.s;
  const start = gridStart(s.ym);
  const shift = (d: number) => () => {
    s.ym = addMonths(s.ym, d);
    if (compact) setDay(ctx, monthStartMs(s.ym));
  };
  const grid = monthGrid({
    ym: s.ym, today: ctx.sys.clock.now(), selected: compact ? s.day : null, compact,
    byDay: eventsByDay(ctx.app.db, start, start + GRID_DAYS * DAY_MS),
    onDay: (day) => {
      setDay(ctx, day);
      if (!compact) s.dayFromMonth = true;
    },
    onSwipe: (dir) => {
      if (dir === 'left') shift(1)();
      else if (dir === 'right') shift(-1)();
    },
  });
  const nav = topNavigation({
    title: monthTitle(s.ym), prev: 'Previous', next: 'Next', onPrev: shift(-1), onNext: shift(1),
    onTitle: () => { s.dialog = { kind: 'go_to', picker: datePickerState(s.ym.year, s.ym.month, 1) }; },
  });
  if (!compact) return [nav, grid];
  return [nav, grid, divider(), text(dayTitle(s.day), { size: 14, bold: true, fg: 'primary', pad: [8, 16, 4, 16] }), dayEvents(ctx, s.day, 'month_day_events', 'month_day_events')];
}

function dayBody(ctx: Ctx): ViewSpec[] {
  const s = ctx.s;
  const shift = (d: number) => () => setDay(ctx, s.day + d * DAY_MS);
  const d = new Date(s.day);
  return [
    topNavigation({
      title: dayTitle(s.day), prev: 'Previous', next: 'Next', onPrev: shift(-1), onNext: shift(1),
      onTitle: () => { s.dialog = { kind: 'go_to', picker: datePickerState(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()) }; },
    }),
    divider(),
    dayEvents(ctx, s.day, 'day_events', 'day_events'),
  ];
}

function listBody(ctx: Ctx): ViewSpec[] {
  const rows: ViewSpec[] = [];
  let section = -1;
  for (const e of eventsFrom(ctx.app.db, dayStart(ctx.sys.clock.now()))) {
    const day = dayStart(e.start);
    if (day !== section) {
      rows.push(sectionTitle(dayTitle(day)));
      section = day;
    }
    rows.push(eventRow(e, ctx.sys.settings, openEvent(ctx, e.id)));
  }
  return [list('events_list', rows, { id: 'calendar_events_list', empty: 'No upcoming events found' })];
}

function dialogView(ctx: Ctx): DialogView | undefined {
  const s = ctx.s;
  const close = () => { s.dialog = null; };
  const dlg = s.dialog;
  if (!dlg) return undefined;
  if (dlg.kind === 'change_view') {
    return {
      spec: dialog({
        title: 'Change view',
        body: VIEWS.map(([mode, label]) => radio({
          label, checked: s.mode === mode, id: `dialog_radio_${mode}`,
          onSelect: () => {
            s.mode = mode;
            s.dayFromMonth = false;
            ctx.app.prefs[PREF_VIEW] = mode;
            goToday(ctx);
            close();
          },
        })),
        buttons: [{ label: 'Cancel', onClick: close }],
      }),
      onCancel: close,
    };
  }
  if (dlg.kind === 'about') {
    return {
      spec: dialog({ title: 'Simple Calendar Pro', message: 'Version 6.22.1\nA simple calendar with events and reminders, without ads.', buttons: [{ label: 'OK', onClick: close }] }),
      onCancel: close,
    };
  }
  return datePickerDialog(dlg.picker, {
    title: 'Go to date',
    onCancel: close,
    onOk: ({ year, month, day }) => {
      const ms = Date.UTC(year, month - 1, day);
      s.ym = { year, month };
      setDay(ctx, ms);
      close();
    },
  });
}

function menuView(ctx: Ctx): MenuView | undefined {
  if (!ctx.s.menu) return undefined;
  const close = () => { ctx.s.menu = false; };
  return {
    items: [{ label: 'About', id: 'about', onClick: () => { close(); ctx.s.dialog = { kind: 'about' }; } }],
    onDismiss: close,
  };
}

export const mainActivity: ActivityDef<MainState> = {
  name: MAIN_ACTIVITY,
  create: (_intent, env) => {
    const now = dayStart(env.sys.clock.now());
    const pref = env.app.prefs[PREF_VIEW];
    return { mode: isMode(pref) ? pref : 'month', ym: monthOf(now), day: now, dayFromMonth: false, dialog: null, menu: false };
  },
  onBack: (ctx) => {
    if (!ctx.s.dayFromMonth) return false;
    ctx.s.dayFromMonth = false;
    return true;
  },
  render: (ctx) => {
    const s = ctx.s;
    const mode = showing(s);
    const body = mode === 'day' ? dayBody(ctx) : mode === 'list' ? listBody(ctx) : monthBody(ctx, mode === 'month_day');
    const bar = appBar({
      title: 'Simple Calendar',
      ...(s.dayFromMonth ? { onBack: () => { s.dayFromMonth = false; } } : {}),
      actions: [
        iconButton('event', 'Go to today', () => goToday(ctx), { id: 'go_to_today' }),
        iconButton('apps_grid', 'Change view', () => { s.dialog = { kind: 'change_view' }; }, { id: 'change_view' }),
      ],
      onOverflow: () => { s.menu = true; },
    });
    const dlg = dialogView(ctx);
    const menu = menuView(ctx);
    return {
      body: screen({
        appBar: bar,
        body: [column(body, { h: 'fill', id: 'fragments_holder' })],
        fab: fab('add', 'New event', () => ctx.nav.start(EVENT_ACTIVITY, { new_event_start_ts: Math.floor(newEventStart(ctx) / 1000) }), { id: 'calendar_fab' }),
      }),
      ...(dlg ? { dialog: dlg } : {}),
      ...(menu ? { menu } : {}),
    };
  },
};
