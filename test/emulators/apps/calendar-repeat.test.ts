import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { device, find, get, sh, tap, typeInto } from '../../helpers/simdroid.js';

/**
 * Simple Calendar's repetition through its editor, as a person sets it: "No repetition" opens the
 * choice of Daily/Weekly/Monthly/Yearly, "Repeat on" and "Repeat till" follow; the row is stored as
 * the real app stores it (repeat_interval seconds, repeat_rule weekday bits or same day,
 * repeat_limit), and the calendar's views show every occurrence.
 */
const PKG = 'com.simplemobiletools.calendar.pro';
const DB = `/data/data/${PKG}/databases/events.db`;
const d = device();
afterAll(() => d.close());

const sql = (q: string) => sh(d, `sqlite3 ${DB} "${q}"`).trim();

beforeEach(async () => {
  await d.loadSnapshot(BOOT_SNAPSHOT);
  sql('DELETE FROM events');
});

/** A new event titled `title` starting today (Sunday 15 October 2023) at the next full hour. */
function newEvent(title: string): void {
  sh(d, `am start -n ${PKG}/${PKG}.activities.MainActivity`);
  tap(d, { contentDesc: 'New event' });
  typeInto(d, { resourceId: `${PKG}:id/event_title` }, title);
  d.inputSync({ kind: 'key', key: 'BACK' });
}

function repetition(choice: string): void {
  tap(d, { resourceId: `${PKG}:id/event_repetition` });
  tap(d, { text: choice, className: 'android.widget.RadioButton' });
}

describe('repetition in the event editor', () => {
  it('"No repetition" opens the choices; Weekly repeats on the start weekday, forever, and is saved as the real app stores it', () => {
    newEvent('Yoga');
    expect(get(d, { resourceId: `${PKG}:id/event_repetition` }).node.text).toBe('No repetition');
    repetition('Weekly');
    expect(get(d, { resourceId: `${PKG}:id/event_repetition` }).node.text).toBe('Weekly');
    expect(get(d, { resourceId: `${PKG}:id/event_repetition_rule` }).node.text).toBe('Sun');
    expect(get(d, { resourceId: `${PKG}:id/event_repetition_limit` }).node.text).toBe('Forever');
    tap(d, { contentDesc: 'Save' });
    // Sunday is the seventh bit (Monday 1 … Sunday 64), as calendar_utils' weekly rule.
    expect(sql('SELECT repeat_interval, repeat_rule, repeat_limit FROM events')).toBe('604800|64|0');
  });

  it('the weekly rule takes more weekdays; the views show each occurrence; a count limits them', () => {
    newEvent('Standup');
    repetition('Weekly');
    tap(d, { resourceId: `${PKG}:id/event_repetition_rule` });
    tap(d, { text: 'Tuesday' });
    tap(d, { text: 'OK' });
    expect(get(d, { resourceId: `${PKG}:id/event_repetition_rule` }).node.text).toBe('Tue, Sun');
    tap(d, { resourceId: `${PKG}:id/event_repetition_limit` });
    tap(d, { text: 'Number of repetitions' });
    d.inputSync({ kind: 'text', text: '3' });
    tap(d, { text: 'OK' });
    expect(get(d, { resourceId: `${PKG}:id/event_repetition_limit` }).node.text).toBe('3 times');
    tap(d, { contentDesc: 'Save' });
    expect(sql('SELECT repeat_interval, repeat_rule, repeat_limit FROM events')).toBe('604800|66|-3');
    // Sun 15, Tue 17, Sun 22 — and no fourth on Tue 24.
    tap(d, { contentDesc: 'Change view' });
    tap(d, { text: 'Simple event list' });
    const sections = () => d.uiTreeSync().roots.flatMap(function walk(n): string[] {
      return [...(n.resourceId.endsWith(':id/event_section_title') ? [n.text] : []), ...n.children.flatMap(walk)];
    });
    expect(sections()).toEqual(['Sunday, October 15, 2023', 'Tuesday, October 17, 2023', 'Sunday, October 22, 2023']);
  });

  it('Daily stores interval 86400 and rule 0; choosing "No repetition" again clears it', () => {
    newEvent('Walk');
    repetition('Daily');
    expect(find(d, { resourceId: `${PKG}:id/event_repetition_rule` })).toBeUndefined();
    repetition('No repetition');
    expect(find(d, { resourceId: `${PKG}:id/event_repetition_limit` })).toBeUndefined();
    repetition('Daily');
    tap(d, { contentDesc: 'Save' });
    expect(sql('SELECT repeat_interval, repeat_rule, repeat_limit FROM events')).toBe('86400|0|0');
  });

  it('Monthly repeats on the same day; "Repeat till" a date ends it', () => {
    newEvent('Rent');
    repetition('Monthly');
    expect(get(d, { resourceId: `${PKG}:id/event_repetition_rule` }).node.text).toBe('Same day');
    tap(d, { resourceId: `${PKG}:id/event_repetition_limit` });
    tap(d, { resourceId: `${PKG}:id/repeat_type_till_date` });
    tap(d, { contentDesc: 'Next month' });
    tap(d, { contentDesc: 'Next month' });
    tap(d, { contentDesc: '20 December 2023' });
    tap(d, { text: 'OK' });
    tap(d, { text: 'OK' });
    expect(get(d, { resourceId: `${PKG}:id/event_repetition_limit` }).node.text).toBe('Wed, Dec 20, 2023');
    tap(d, { contentDesc: 'Save' });
    expect(sql('SELECT repeat_interval, repeat_rule, repeat_limit FROM events')).toBe(`2592001|1|${Date.UTC(2023, 11, 20) / 1000}`);
  });

  it('an event edited later opens with its repetition and keeps it', () => {
    sql(`INSERT INTO events (title, start_ts, end_ts, repeat_interval, repeat_rule) VALUES ('Gym', ${Date.UTC(2023, 9, 16, 18) / 1000}, ${Date.UTC(2023, 9, 16, 19) / 1000}, 604800, 1)`);
    sh(d, `am start -n ${PKG}/${PKG}.activities.MainActivity`);
    tap(d, { contentDesc: 'Change view' });
    tap(d, { text: 'Simple event list' });
    tap(d, { text: 'Gym' });
    expect(get(d, { resourceId: `${PKG}:id/event_repetition` }).node.text).toBe('Weekly');
    expect(get(d, { resourceId: `${PKG}:id/event_repetition_rule` }).node.text).toBe('Mon');
  });
});
