import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import type { SimDroid } from '../../../emulators/simdroid/simdroid.js';
import { alarmSetToast, cityDifference, nextAlarmTime, stopwatchText, timerText } from '../../../emulators/simdroid/apps/clock/format.js';
import { device, find, get, scroll, sh, tap, texts, typeInto } from '../../helpers/simdroid.js';

const DB = '/data/data/com.google.android.deskclock/databases/alarms.db';
const q = (d: SimDroid, sql: string) => sh(d, `sqlite3 ${DB} "${sql}"`).trim();
const key = (d: SimDroid, k: 'BACK' | 'DEL') => d.inputSync({ kind: 'key', key: k });
const open = (d: SimDroid) => sh(d, 'am start -n com.google.android.deskclock/com.android.deskclock.DeskClock');
const tab = (d: SimDroid, name: 'alarm' | 'clock' | 'timer' | 'stopwatch') => tap(d, { resourceId: `tab_menu_${name}` });
const toast = (d: SimDroid) => d.wm.state.toast?.text;

/** Types a time into the open time picker (keyboard mode), replacing what it holds. */
function enterTime(d: SimDroid, hour12: number, minute: number, pm: boolean): void {
  for (const [field, value] of [['input_hour', String(hour12)], ['input_minute', String(minute).padStart(2, '0')]] as const) {
    tap(d, { resourceId: field });
    for (let i = 0; i < 3; i++) key(d, 'DEL');
    d.inputSync({ kind: 'text', text: value });
  }
  tap(d, { text: pm ? 'PM' : 'AM', className: 'android.widget.RadioButton' });
  tap(d, { text: 'OK' });
}

let d: SimDroid;
beforeEach(() => {
  d = device();
});
afterEach(() => {
  expect(d.wm.state.crashes).toEqual([]);
  d.close();
});

describe('Clock: alarms', () => {
  it('opens on the Alarm tab with the boot alarms from alarms.db', () => {
    open(d);
    expect(d.wm.foreground()).toEqual({ package: 'com.google.android.deskclock', activity: 'com.android.deskclock.DeskClock' });
    expect(get(d, { resourceId: 'tab_menu_alarm' }).node.selected).toBe(true);
    expect(q(d, 'SELECT hour, minutes, enabled, daysofweek FROM alarm_templates WHERE label = \'\' ORDER BY hour')).toBe('8|30|0|31\n9|0|0|96');
    expect(texts(d)).toEqual(expect.arrayContaining(['8:30 AM', '9:00 AM', 'Mon, Tue, Wed, Thu, Fri', 'Sun, Sat']));
  });

  it('adds an alarm through the FAB and the time picker, enabled, with a toast', () => {
    open(d);
    tap(d, { contentDesc: 'Add alarm' });
    expect(find(d, { resourceId: 'input_hour' })?.node.text).toBe('4');
    enterTime(d, 7, 5, false);
    expect(q(d, 'SELECT hour, minutes, enabled, daysofweek, vibrate, label FROM alarm_templates WHERE hour = 7 AND minutes = 5')).toBe('7|5|1|0|1|');
    expect(toast(d)).toMatch(/^Alarm set for 15 hours and 3\d minutes from now\.$/);
    expect(get(d, { resourceId: 'days_of_week', text: 'Tomorrow' })).toBeDefined();
    // The new alarm opens expanded: its Delete button is on screen.
    expect(find(d, { resourceId: 'delete' })).toBeDefined();
  });

  it('rejects an invalid time and keeps the picker open', () => {
    open(d);
    tap(d, { contentDesc: 'Add alarm' });
    tap(d, { resourceId: 'input_hour' });
    d.inputSync({ kind: 'text', text: '9' });
    tap(d, { text: 'OK' });
    expect(find(d, { resourceId: 'error_message', text: 'Enter a valid time' })).toBeDefined();
    tap(d, { text: 'Cancel' });
    expect(find(d, { resourceId: 'input_hour' })).toBeUndefined();
    expect(q(d, 'SELECT COUNT(*) FROM alarm_templates')).toBe('3');
  });

  it('edits an alarm: time, label, repeat days, vibrate, on/off, delete', () => {
    sh(d, `sqlite3 ${DB} "DELETE FROM alarm_templates; INSERT INTO alarm_templates (hour, minutes, enabled, daysofweek, vibrate, label, ringtone) VALUES (6, 30, 1, 0, 1, '', NULL)"`);
    open(d);
    tap(d, { resourceId: 'digital_clock', text: '6:30 AM' });
    enterTime(d, 6, 45, true);
    expect(q(d, 'SELECT hour, minutes FROM alarm_templates')).toBe('18|45');

    tap(d, { contentDesc: 'Expand alarm' });
    tap(d, { text: 'Add label' });
    expect(get(d, { resourceId: 'label_input_field' }).node.focused).toBe(true);
    d.inputSync({ kind: 'text', text: 'Evening run' });
    tap(d, { text: 'OK' });
    expect(q(d, 'SELECT label FROM alarm_templates')).toBe('Evening run');

    for (const day of ['Monday', 'Wednesday', 'Friday']) tap(d, { contentDesc: day });
    expect(q(d, 'SELECT daysofweek FROM alarm_templates')).toBe(String(1 | 4 | 16));
    expect(get(d, { resourceId: 'days_of_week' }).node.text).toBe('Mon, Wed, Fri');
    tap(d, { contentDesc: 'Wednesday' });
    expect(q(d, 'SELECT daysofweek FROM alarm_templates')).toBe('17');

    tap(d, { resourceId: 'vibrate_onoff' });
    expect(q(d, 'SELECT vibrate FROM alarm_templates')).toBe('0');
    tap(d, { resourceId: 'onoff' });
    expect(q(d, 'SELECT enabled FROM alarm_templates')).toBe('0');
    tap(d, { resourceId: 'onoff' });
    expect(q(d, 'SELECT enabled FROM alarm_templates')).toBe('1');
    expect(toast(d)).toMatch(/^Alarm set for /);

    tap(d, { resourceId: 'delete', text: 'Delete' });
    expect(q(d, 'SELECT COUNT(*) FROM alarm_templates')).toBe('0');
    expect(get(d, { resourceId: 'empty_view' }).node.text).toBe('No alarms');
  });

  it('scrolls a long alarm list and expands one card at a time', () => {
    const values = Array.from({ length: 9 }, (_, i) => `(${6 + i}, 15, 1, 0, 1, '')`).join(', ');
    sh(d, `sqlite3 ${DB} "DELETE FROM alarm_templates; INSERT INTO alarm_templates (hour, minutes, enabled, daysofweek, vibrate, label) VALUES ${values}"`);
    open(d);
    expect(find(d, { text: '2:15 PM' })).toBeUndefined();
    scroll(d, 'down');
    scroll(d, 'down');
    scroll(d, 'down');
    expect(find(d, { text: '2:15 PM' })).toBeDefined();
    tap(d, { contentDesc: 'Expand alarm' });
    tap(d, { contentDesc: 'Expand alarm' });
    expect(d.uiXml().match(/Collapse alarm/g)?.length).toBe(1);
  });
});

describe('Clock: timer', () => {
  it('counts down from the virtual clock, pauses, resumes, adds a minute, resets and deletes', async () => {
    open(d);
    tab(d, 'timer');
    expect(get(d, { resourceId: 'timer_setup_time' }).node.text).toBe('00h 00m 00s');
    expect(find(d, { contentDesc: 'Start' })).toBeUndefined();
    for (const k of ['0', '5', '3', '0']) tap(d, { resourceId: `timer_setup_digit_${k}` });
    expect(get(d, { resourceId: 'timer_setup_time' }).node.text).toBe('00h 05m 30s');
    tap(d, { contentDesc: 'Delete' });
    expect(get(d, { resourceId: 'timer_setup_time' }).node.text).toBe('00h 00m 53s');
    tap(d, { resourceId: 'timer_setup_digit_0' });
    tap(d, { contentDesc: 'Start' });
    expect(q(d, 'SELECT length_ms, state FROM timers')).toBe('330000|running');
    const text = () => get(d, { resourceId: 'timer_time_text' }).node.text;
    expect(text()).toBe('5:29'); // the tap itself took a second of device time

    await d.idle(60_000);
    expect(text()).toBe('4:29');
    tap(d, { contentDesc: 'Pause' });
    await d.idle(120_000);
    expect(text()).toBe('4:29');
    expect(q(d, 'SELECT state, remaining_ms FROM timers')).toBe('paused|269000');

    tap(d, { contentDesc: 'Add 1 minute' });
    expect(text()).toBe('5:29');
    tap(d, { contentDesc: 'Start' });
    await d.idle(300_000);
    expect(text()).toBe('0:28');
    await d.idle(60_000);
    expect(text()).toBe('-0:32');
    expect(get(d, { resourceId: 'timer_status' }).node.text).toMatch(/^Time's up/);
    tap(d, { contentDesc: 'Stop' });
    expect(q(d, 'SELECT state, remaining_ms FROM timers')).toBe('reset|330000');
    expect(text()).toBe('5:30');

    tap(d, { contentDesc: 'Add timer' });
    tap(d, { resourceId: 'timer_setup_digit_2' });
    tap(d, { contentDesc: 'Start' });
    expect(q(d, 'SELECT COUNT(*) FROM timers')).toBe('2');
    tap(d, { contentDesc: 'Delete timer' });
    expect(q(d, 'SELECT length_ms FROM timers')).toBe('2000');
  });

  it('labels a timer', () => {
    open(d);
    tab(d, 'timer');
    tap(d, { resourceId: 'timer_setup_digit_9' });
    tap(d, { contentDesc: 'Start' });
    tap(d, { resourceId: 'timer_label', text: 'Label' });
    typeInto(d, { resourceId: 'label_input_field' }, 'Tea');
    tap(d, { text: 'OK' });
    expect(q(d, 'SELECT label FROM timers')).toBe('Tea');
    expect(find(d, { resourceId: 'timer_label', text: 'Tea' })).toBeDefined();
  });
});

describe('Clock: stopwatch', () => {
  it('runs on device time, records laps newest first, pauses and resets', async () => {
    open(d);
    tab(d, 'stopwatch');
    expect(get(d, { resourceId: 'stopwatch_time_text' }).node.text).toBe('00:00');
    expect(find(d, { text: 'Lap' })).toBeUndefined();
    tap(d, { contentDesc: 'Start' });
    await d.idle(4_000);
    tap(d, { text: 'Lap' }); // at 5 s: the Start tap took a second too
    await d.idle(2_500);
    // AndroidWorld's "stopwatch running" check: content descriptions Pause and Lap on screen.
    expect(get(d, { contentDesc: 'Pause' })).toBeDefined();
    tap(d, { contentDesc: 'Lap' });
    expect(q(d, 'SELECT lap_number, lap_time_ms, total_time_ms FROM laps ORDER BY lap_number')).toBe('1|5000|5000\n2|3500|8500');
    expect(texts(d)).toEqual(expect.arrayContaining(['# 2', '00:03.50', '00:08.50']));
    expect(get(d, { resourceId: 'lap_number' }).node.text).toBe('# 2');

    tap(d, { contentDesc: 'Pause' });
    await d.idle(30_000);
    expect(q(d, 'SELECT state, accumulated_ms FROM stopwatch')).toBe('paused|9500');
    expect(get(d, { resourceId: 'stopwatch_time_text' }).node.text).toBe('00:09');
    expect(get(d, { resourceId: 'stopwatch_hundredths_text' }).node.text).toBe('50');

    tap(d, { text: 'Reset' });
    expect(q(d, 'SELECT state, accumulated_ms FROM stopwatch')).toBe('reset|0');
    expect(q(d, 'SELECT COUNT(*) FROM laps')).toBe('0');
  });
});

describe('Clock: world clock', () => {
  it('adds cities from the searchable chooser and shows their time and difference', () => {
    open(d);
    tab(d, 'clock');
    expect(get(d, { resourceId: 'digital_clock' }).node.text).toBe('3:34 PM');
    expect(get(d, { resourceId: 'date' }).node.text).toBe('Sun, Oct 15');
    tap(d, { contentDesc: 'Add city' });
    expect(d.wm.foreground().activity).toBe('com.android.deskclock.worldclock.CitySelectionActivity');
    expect(find(d, { text: 'Tokyo' })).toBeUndefined();
    tap(d, { contentDesc: 'Search' });
    d.inputSync({ kind: 'text', text: 'tok' });
    expect(texts(d).filter((t) => t === 'Tokyo')).toHaveLength(1);
    tap(d, { resourceId: 'city_name', text: 'Tokyo' });
    expect(get(d, { resourceId: 'city_onoff' }).node.checked).toBe(true);
    expect(q(d, 'SELECT city_id, name, utc_offset_minutes FROM cities')).toBe('tokyo|Tokyo|540');

    key(d, 'BACK'); // keyboard
    key(d, 'BACK'); // search
    expect(find(d, { resourceId: 'toolbar_title', text: 'Select cities' })).toBeDefined();
    expect(get(d, { resourceId: 'index' }).node.text).toBe('Selected cities');
    key(d, 'BACK');
    expect(d.wm.foreground().activity).toBe('com.android.deskclock.DeskClock');
    expect(get(d, { resourceId: 'city_name' }).node.text).toBe('Tokyo');
    expect(get(d, { resourceId: 'hours_ahead' }).node.text).toBe('Tomorrow, 9 hours ahead');
    expect(texts(d)).toContain('12:34 AM');

    tap(d, { contentDesc: 'Add city' });
    tap(d, { resourceId: 'city_name', text: 'Tokyo' });
    expect(q(d, 'SELECT COUNT(*) FROM cities')).toBe('0');
  });

  it('lists every city, needing a scroll to reach the end', () => {
    open(d);
    tab(d, 'clock');
    tap(d, { contentDesc: 'Add city' });
    expect(find(d, { text: 'Warsaw' })).toBeUndefined();
    for (let i = 0; i < 12 && !find(d, { text: 'Warsaw' }); i++) scroll(d, 'down');
    expect(find(d, { text: 'Warsaw' })).toBeDefined();
  });

  it('shows the next enabled alarm under the date', () => {
    sh(d, `sqlite3 ${DB} "DELETE FROM alarm_templates; INSERT INTO alarm_templates (hour, minutes, enabled, daysofweek, vibrate, label) VALUES (7, 0, 1, 4, 1, ''), (6, 0, 0, 0, 1, '')"`);
    open(d);
    tab(d, 'clock');
    const next = get(d, { resourceId: 'nextAlarm' });
    expect(next.node.text).toBe('Wed 7:00 AM');
    expect(next.node.contentDesc).toBe('Next alarm: Wednesday 7:00 AM');
  });
});

describe('Clock: navigation and settings', () => {
  it('keeps its tab across Back and relaunch, swipes between tabs, opens Settings from the overflow', () => {
    open(d);
    tab(d, 'stopwatch');
    key(d, 'BACK');
    expect(d.wm.foreground().package).not.toBe('com.google.android.deskclock');
    open(d);
    expect(get(d, { resourceId: 'tab_menu_stopwatch' }).node.selected).toBe(true);

    const { width, height } = d.screen;
    d.inputSync({ kind: 'swipe', x1: width * 0.2, y1: height * 0.4, x2: width * 0.8, y2: height * 0.4, durationMs: 300 });
    expect(get(d, { resourceId: 'tab_menu_timer' }).node.selected).toBe(true);

    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Settings' });
    expect(d.wm.foreground().activity).toBe('com.android.deskclock.settings.SettingsActivity');
    tap(d, { text: 'Display time with seconds' });
    expect(get(d, { resourceId: 'display_clock_seconds_switch' }).node.checked).toBe(true);
    tap(d, { contentDesc: 'Navigate up' });
    expect(d.wm.foreground().activity).toBe('com.android.deskclock.DeskClock');
  });

  it('follows the 24-hour setting', () => {
    sh(d, 'settings put system time_12_24 24');
    open(d);
    expect(texts(d)).toContain('08:30');
    tab(d, 'clock');
    expect(get(d, { resourceId: 'digital_clock' }).node.text).toBe('15:34');
  });

  it('keeps alarms, timers and the stopwatch across snapshots', async () => {
    open(d);
    tab(d, 'stopwatch');
    tap(d, { contentDesc: 'Start' });
    await d.saveSnapshot('mid');
    await d.loadSnapshot(BOOT_SNAPSHOT);
    expect(q(d, 'SELECT state FROM stopwatch')).toBe('reset');
    await d.loadSnapshot('mid');
    expect(q(d, 'SELECT state FROM stopwatch')).toBe('running');
    expect(get(d, { contentDesc: 'Pause' })).toBeDefined();
  });

  it('does not crash when its tables are emptied under it', () => {
    sh(d, `sqlite3 ${DB} "DELETE FROM stopwatch; DELETE FROM alarm_templates; DELETE FROM cities;"`);
    open(d);
    for (const t of ['clock', 'timer', 'stopwatch', 'alarm'] as const) tab(d, t);
    tab(d, 'stopwatch');
    tap(d, { contentDesc: 'Start' });
    expect(q(d, 'SELECT state FROM stopwatch')).toBe('running');
  });
});

describe('Clock: formatting', () => {
  const NOW = Date.UTC(2023, 9, 15, 15, 34, 0);
  it('words the alarm toast like AOSP, rounding minutes up', () => {
    expect(alarmSetToast(30_000)).toBe('Alarm set for less than 1 minute from now.');
    expect(alarmSetToast(61_000)).toBe('Alarm set for 2 minutes from now.');
    expect(alarmSetToast(7 * 3_600_000 + 5 * 60_000)).toBe('Alarm set for 7 hours and 5 minutes from now.');
    expect(alarmSetToast(86_400_000 + 3_600_000 + 60_000)).toBe('Alarm set for 1 day, 1 hour, and 1 minute from now.');
  });

  it('finds the next ring of one-time and repeating alarms', () => {
    expect(nextAlarmTime({ hour: 15, minutes: 34, daysofweek: 0 }, NOW)).toBe(NOW + 86_400_000);
    expect(nextAlarmTime({ hour: 16, minutes: 0, daysofweek: 0 }, NOW)).toBe(Date.UTC(2023, 9, 15, 16, 0));
    expect(nextAlarmTime({ hour: 7, minutes: 0, daysofweek: 32 }, NOW)).toBe(Date.UTC(2023, 9, 21, 7, 0)); // Saturday
    expect(nextAlarmTime({ hour: 16, minutes: 0, daysofweek: 64 }, NOW)).toBe(Date.UTC(2023, 9, 15, 16, 0)); // today is Sunday
  });

  it('formats timers, the stopwatch and city differences', () => {
    expect(timerText(300_000)).toBe('5:00');
    expect(timerText(299_001)).toBe('5:00');
    expect(timerText(3_723_000)).toBe('1:02:03');
    expect(timerText(-5_500)).toBe('-0:05');
    expect(stopwatchText(3_725_070)).toBe('1:02:05.07');
    expect(cityDifference(-240, NOW)).toBe('Today, 4 hours behind');
    expect(cityDifference(345, NOW)).toBe('Today, 5 hours 45 minutes ahead');
    expect(cityDifference(630, NOW)).toBe('Tomorrow, 10 hours 30 minutes ahead');
  });
});
