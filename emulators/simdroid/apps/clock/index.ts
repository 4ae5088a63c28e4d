import type { ActivityDef, AppDef } from '../../runtime/app.js';
import { appBar, column, screen } from '../../view/widgets.js';
import { alarmBody, alarmDialog } from './alarm-tab.js';
import { citySelection } from './city-picker.js';
import { clockBody } from './clock-tab.js';
import { TABS, bottomNav, type DeskClockState } from './common.js';
import { ALARMS_DB, CLOCK_PKG, CLOCK_SCHEMA, insertAlarm } from './db.js';
import { CLOCK_SETTINGS, clockSettings } from './settings.js';
import { stopwatchBody } from './stopwatch-tab.js';
import { timerBody, timerDialog } from './timer-tab.js';

/**
 * Clock (Google's DeskClock, com.google.android.deskclock): Alarm, Clock, Timer and Stopwatch tabs
 * in one activity, a city chooser and a settings screen. Everything lives in alarms.db (schema in
 * db.ts) and every time shown is computed from the device's virtual clock, so timers and the
 * stopwatch run as device time passes and stop when it does.
 */
const DESK_CLOCK = 'com.android.deskclock.DeskClock';

const deskClock: ActivityDef<DeskClockState> = {
  name: DESK_CLOCK,
  create: () => ({ tab: 'alarm', expanded: null, dialog: null, menu: false, timerDigits: '', timerSetup: false }),
  render: (ctx) => {
    const tab = TABS.find((t) => t.tab === ctx.s.tab)!;
    const content = ctx.s.tab === 'alarm' ? alarmBody(ctx)
      : ctx.s.tab === 'clock' ? clockBody(ctx)
        : ctx.s.tab === 'timer' ? timerBody(ctx)
          : stopwatchBody(ctx);
    const body = column(content, {
      h: 'fill',
      // Swiping sideways pages between tabs, as DeskClock's ViewPager does.
      onSwipe: (dir) => {
        const i = TABS.indexOf(tab) + (dir === 'left' ? 1 : dir === 'right' ? -1 : 0);
        if (i >= 0 && i < TABS.length) ctx.s.tab = TABS[i]!.tab;
      },
    });
    const dialog = alarmDialog(ctx) ?? timerDialog(ctx);
    const close = () => {
      ctx.s.menu = false;
    };
    return {
      body: screen({ appBar: appBar({ title: tab.label, onOverflow: () => { ctx.s.menu = true; } }), body: [body], bottom: bottomNav(ctx) }),
      ...(dialog ? { dialog } : {}),
      ...(ctx.s.menu ? {
        menu: {
          onDismiss: close,
          items: [
            { label: 'Screen saver', onClick: () => { close(); ctx.nav.toast('Screen saver starts when the phone is charging'); } },
            { label: 'Settings', onClick: () => { close(); ctx.nav.start(CLOCK_SETTINGS); } },
            { label: 'Send feedback', onClick: close },
            { label: 'Help', onClick: close },
          ],
        },
      } : {}),
    };
  },
};

export const clockApp: AppDef = {
  package: CLOCK_PKG,
  label: 'Clock',
  icon: { glyph: 'alarm', color: '#1A73E8' },
  accent: '#0B57D0',
  launchActivity: DESK_CLOCK,
  activities: [deskClock, citySelection, clockSettings],
  databases: [{ path: ALARMS_DB, schema: CLOCK_SCHEMA }],
  boot: ({ app, rng }) => {
    // DeskClock's two default alarms (off), plus the owner's own wake-up alarm.
    insertAlarm(app.db, { hour: 8, minutes: 30, enabled: 0, daysofweek: 31 });
    insertAlarm(app.db, { hour: 9, minutes: 0, enabled: 0, daysofweek: 96 });
    insertAlarm(app.db, { hour: rng.int(5, 7), minutes: rng.pick([0, 15, 30, 45]), enabled: 1, daysofweek: 31, label: rng.pick(['Wake up', 'Gym', 'Work']) });
  },
};
