import type { AppDef } from '../../runtime/app.js';
import { bootCalendar } from './boot.js';
import { CALENDAR_PKG, EVENTS_DB_PATH, EVENTS_SCHEMA } from './db.js';
import { eventActivity } from './event-activity.js';
import { MAIN_ACTIVITY, mainActivity } from './main-activity.js';

/**
 * Simple Calendar Pro (com.simplemobiletools.calendar.pro), the calendar AndroidWorld uses: a
 * month grid, daily view, monthly + daily view and a simple event list in MainActivity, and the
 * EventActivity editor. Events live in the app's Room database (databases/events.db, table
 * `events`, times in unix seconds), so checkers query it with sqlite3 exactly as on an emulator.
 */
export const calendarApp: AppDef = {
  package: CALENDAR_PKG,
  label: 'Calendar',
  icon: { glyph: 'calendar', color: '#F57C00' },
  accent: '#F57C00',
  launchActivity: MAIN_ACTIVITY,
  activities: [mainActivity, eventActivity],
  databases: [{ path: EVENTS_DB_PATH, schema: EVENTS_SCHEMA }],
  boot: bootCalendar,
};
