import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { device, elements, find, get, scroll, sh, tap, texts, typeInto } from '../../helpers/simdroid.js';
import type { UiSelector } from '../../../core/a11y/ui-tree.js';

/** Simple Calendar Pro in SimDroid, driven like a person: month grid, day view, list, editor. */
const PKG = 'com.simplemobiletools.calendar.pro';
const DB = `/data/data/${PKG}/databases/events.db`;
const MAIN = `${PKG}.activities.MainActivity`;
const EDITOR = `${PKG}.activities.EventActivity`;
const d = device();
afterAll(() => d.close());

const sec = (y: number, m: number, day: number, h = 0, min = 0) => Date.UTC(y, m - 1, day, h, min) / 1000;

function sql(query: string): string {
  return sh(d, `sqlite3 ${DB} "${query}"`).trim();
}

function insert(title: string, start: number, end: number, extra = ''): void {
  sql(`INSERT INTO events (title, start_ts, end_ts${extra ? ', location' : ''}) VALUES ('${title}', ${start}, ${end}${extra ? `, '${extra}'` : ''})`);
}

function launch(): void {
  sh(d, `am start -n ${PKG}/${MAIN}`);
}

const activity = () => d.wm.foreground().activity;
const header = () => get(d, { resourceId: 'top_value' }).node.text;
const back = () => d.inputSync({ kind: 'key', key: 'BACK' });
const toast = () => d.wm.state.toast?.text;

/** Replaces a field's text, as a person selecting all and typing would. */
function setField(sel: UiSelector, value: string): void {
  const len = get(d, sel).node.text.length;
  tap(d, sel);
  for (let i = 0; i < len; i++) d.inputSync({ kind: 'key', key: 'DEL' });
  d.inputSync({ kind: 'text', text: value });
}

/** The keyboard-mode time picker: hour, minute, AM/PM, OK. */
function enterTime(hour24: number, minute: number): void {
  setField({ resourceId: 'input_hour' }, String(hour24 % 12 === 0 ? 12 : hour24 % 12));
  setField({ resourceId: 'input_minute' }, String(minute).padStart(2, '0'));
  tap(d, { text: hour24 >= 12 ? 'PM' : 'AM', className: 'android.widget.RadioButton' });
  tap(d, { text: 'OK' });
}

beforeEach(async () => {
  await d.loadSnapshot(BOOT_SNAPSHOT);
  sql('DELETE FROM events');
});

describe('Simple Calendar Pro', () => {
  it('boots with events in events.db and opens on the month of today', async () => {
    await d.loadSnapshot(BOOT_SNAPSHOT);
    expect(Number(sql('SELECT count(*) FROM events'))).toBeGreaterThan(3);
    expect(sql("SELECT count(*) FROM events WHERE source != 'simple-calendar' OR time_zone != 'UTC'")).toBe('0');
    launch();
    expect(activity()).toBe(MAIN);
    expect(header()).toBe('October 2023');
    const today = get(d, { contentDesc: '15 October 2023' });
    expect(today.node.clickable).toBe(true);
    // Six weeks from Sunday: October 2023 starts on a Sunday, so the grid runs to 11 November.
    expect(find(d, { contentDesc: '1 October 2023' })).toBeDefined();
    expect(find(d, { contentDesc: '30 September 2023' })).toBeUndefined();
    expect(find(d, { contentDesc: '11 November 2023' })).toBeDefined();
    expect(find(d, { contentDesc: '12 November 2023' })).toBeUndefined();
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('pages months with the arrows and by swiping, and goes back to today', () => {
    launch();
    tap(d, { contentDesc: 'Next' });
    expect(header()).toBe('November 2023');
    expect(find(d, { contentDesc: '29 October 2023' })).toBeDefined();
    tap(d, { contentDesc: 'Next' });
    tap(d, { contentDesc: 'Next' });
    expect(header()).toBe('January 2024');
    expect(find(d, { contentDesc: '31 January 2024' })).toBeDefined();
    tap(d, { contentDesc: 'Previous' });
    expect(header()).toBe('December 2023');
    const grid = get(d, { resourceId: 'month_view_wrapper' }).node.bounds;
    const y = (grid.top + grid.bottom) / 2;
    d.inputSync({ kind: 'swipe', x1: grid.right - 100, y1: y, x2: grid.left + 100, y2: y, durationMs: 300 });
    expect(header()).toBe('January 2024');
    tap(d, { contentDesc: 'Go to today' });
    expect(header()).toBe('October 2023');
  });

  it('marks days with events and opens a day to list them; Back returns to the month', () => {
    insert('Dentist appointment', sec(2023, 10, 20, 9), sec(2023, 10, 20, 10), 'Smile Dental Clinic');
    insert('Team lunch', sec(2023, 10, 20, 12, 30), sec(2023, 10, 20, 13, 30));
    insert('Late call', sec(2023, 10, 19, 22), sec(2023, 10, 20, 0));
    launch();
    const cell = get(d, { contentDesc: '20 October 2023' });
    const labels: string[] = [];
    const walk = (n: typeof cell.node) => { if (n.text) labels.push(n.text); n.children.forEach(walk); };
    walk(cell.node);
    expect(labels).toEqual(['20', 'Dentist appointment', 'Team lunch']);
    tap(d, { contentDesc: '20 October 2023' });
    expect(header()).toBe('Friday, October 20, 2023');
    const titles = elements(d).filter((e) => e.node.resourceId.endsWith(':id/event_item_title')).map((e) => e.node.text);
    expect(titles).toEqual(['Dentist appointment', 'Team lunch']);
    expect(texts(d)).toContain('9:00 AM – 10:00 AM');
    expect(texts(d)).toContain('Smile Dental Clinic');
    tap(d, { contentDesc: 'Next' });
    expect(header()).toBe('Saturday, October 21, 2023');
    expect(texts(d)).toContain('No events on this day');
    back();
    expect(header()).toBe('October 2023');
    back();
    expect(d.wm.foreground().package).not.toBe(PKG);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('creates an event through the editor and its date and time pickers', () => {
    launch();
    tap(d, { contentDesc: 'New event' });
    expect(activity()).toBe(EDITOR);
    expect(texts(d)).toContain('New event');
    // A new event starts on the day in view at the next full hour, with no duration.
    expect(get(d, { resourceId: 'event_start_date' }).node.text).toBe('Sun, Oct 15, 2023');
    expect(get(d, { resourceId: 'event_start_time' }).node.text).toBe('4:00 PM');
    typeInto(d, { resourceId: 'event_title' }, 'Quarterly planning');
    typeInto(d, { resourceId: 'event_location' }, 'Room 4B');
    typeInto(d, { resourceId: 'event_description' }, 'Bring the numbers');
    tap(d, { resourceId: 'event_start_date' });
    tap(d, { contentDesc: 'Next month' });
    tap(d, { contentDesc: '22 November 2023' });
    tap(d, { text: 'OK' });
    expect(get(d, { resourceId: 'event_end_date' }).node.text).toBe('Wed, Nov 22, 2023');
    tap(d, { resourceId: 'event_start_time' });
    enterTime(9, 30);
    tap(d, { resourceId: 'event_end_time' });
    enterTime(11, 0);
    expect(get(d, { resourceId: 'event_end_time' }).node.text).toBe('11:00 AM');
    tap(d, { contentDesc: 'Save' });
    expect(activity()).toBe(MAIN);
    expect(toast()).toBe('Event added successfully');
    expect(sql('SELECT title, location, description, start_ts, end_ts, flags, reminder_1_minutes, source FROM events'))
      .toBe(`Quarterly planning|Room 4B|Bring the numbers|${sec(2023, 11, 22, 9, 30)}|${sec(2023, 11, 22, 11)}|0|10|simple-calendar`);
    tap(d, { contentDesc: 'Next' });
    expect(elements(d).some((e) => e.node.text === 'Quarterly planning')).toBe(true);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('moves the end with the start, and refuses an end before the start', () => {
    launch();
    tap(d, { contentDesc: 'New event' });
    typeInto(d, { resourceId: 'event_title' }, 'Yoga class');
    tap(d, { resourceId: 'event_end_time' });
    enterTime(17, 30);
    tap(d, { resourceId: 'event_start_time' });
    enterTime(9, 0);
    expect(get(d, { resourceId: 'event_end_time' }).node.text).toBe('10:30 AM');
    tap(d, { resourceId: 'event_end_time' });
    enterTime(8, 0);
    tap(d, { contentDesc: 'Save' });
    expect(toast()).toBe('The event cannot end earlier than it starts');
    expect(activity()).toBe(EDITOR);
    expect(sql('SELECT count(*) FROM events')).toBe('0');
  });

  it('stores an all-day event from midnight to noon and hides the times', () => {
    launch();
    tap(d, { contentDesc: 'New event' });
    typeInto(d, { resourceId: 'event_title' }, 'Mom birthday');
    tap(d, { text: 'All-day' });
    expect(find(d, { resourceId: 'event_start_time' })).toBeUndefined();
    tap(d, { contentDesc: 'Save' });
    expect(sql('SELECT flags, start_ts, end_ts FROM events')).toBe(`1|${sec(2023, 10, 15)}|${sec(2023, 10, 15, 12)}`);
    tap(d, { contentDesc: '15 October 2023' });
    expect(texts(d)).toContain('All day');
  });

  it('refuses to save a new event without a title', () => {
    launch();
    tap(d, { contentDesc: 'New event' });
    typeInto(d, { resourceId: 'event_title' }, '   ');
    tap(d, { contentDesc: 'Save' });
    expect(toast()).toBe('Title cannot be empty');
    expect(activity()).toBe(EDITOR);
    expect(sql('SELECT count(*) FROM events')).toBe('0');
  });

  it('asks before discarding changes on Back, and can save from there', () => {
    launch();
    tap(d, { contentDesc: 'New event' });
    back();
    expect(activity()).toBe(MAIN);
    tap(d, { contentDesc: 'New event' });
    typeInto(d, { resourceId: 'event_title' }, 'Coffee with Tom');
    back(); // closes the keyboard
    back();
    expect(texts(d)).toContain('You have unsaved changes. Save before closing?');
    tap(d, { text: 'Discard' });
    expect(activity()).toBe(MAIN);
    expect(sql('SELECT count(*) FROM events')).toBe('0');
    tap(d, { contentDesc: 'New event' });
    typeInto(d, { resourceId: 'event_title' }, 'Coffee with Tom');
    tap(d, { contentDesc: 'Navigate up' });
    tap(d, { text: 'Save' });
    expect(activity()).toBe(MAIN);
    expect(sql('SELECT title FROM events')).toBe('Coffee with Tom');
  });

  it('edits a stored event opened from the day view', () => {
    insert('Book club', sec(2023, 10, 18, 18), sec(2023, 10, 18, 20), 'City Library');
    const id = sql('SELECT id FROM events');
    launch();
    tap(d, { contentDesc: '18 October 2023' });
    tap(d, { text: 'Book club' });
    expect(activity()).toBe(EDITOR);
    expect(texts(d)).toContain('Edit event');
    expect(get(d, { resourceId: 'event_title' }).node.text).toBe('Book club');
    expect(get(d, { resourceId: 'event_location' }).node.text).toBe('City Library');
    // Unchanged: Back leaves without asking.
    back();
    expect(activity()).toBe(MAIN);
    tap(d, { text: 'Book club' });
    setField({ resourceId: 'event_title' }, 'Reading circle');
    tap(d, { resourceId: 'event_start_date' });
    tap(d, { contentDesc: '19 October 2023' });
    tap(d, { text: 'OK' });
    tap(d, { contentDesc: 'Save' });
    expect(toast()).toBe('Event updated successfully');
    expect(sql('SELECT id, title, location, start_ts, end_ts FROM events'))
      .toBe(`${id}|Reading circle|City Library|${sec(2023, 10, 19, 18)}|${sec(2023, 10, 19, 20)}`);
    // The day view stayed on the 18th; the event is now on the next day. Duplicate (overflow menu)
    // opens a new event with the same values.
    expect(find(d, { text: 'Reading circle' })).toBeUndefined();
    tap(d, { contentDesc: 'Next' });
    tap(d, { text: 'Reading circle' });
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Duplicate event' });
    expect(texts(d)).toContain('New event');
    expect(get(d, { resourceId: 'event_title' }).node.text).toBe('Reading circle');
    tap(d, { contentDesc: 'Save' });
    expect(sql('SELECT count(*) FROM events WHERE title = \'Reading circle\' AND start_ts = ' + sec(2023, 10, 19, 18))).toBe('2');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('deletes an event only after confirming', () => {
    insert('Car service', sec(2023, 10, 16, 8), sec(2023, 10, 16, 9));
    insert('Haircut', sec(2023, 10, 16, 17), sec(2023, 10, 16, 18));
    launch();
    tap(d, { contentDesc: '16 October 2023' });
    tap(d, { text: 'Car service' });
    tap(d, { contentDesc: 'Delete' });
    expect(texts(d)).toContain('Are you sure you want to delete this event?');
    tap(d, { text: 'Cancel' });
    expect(sql('SELECT count(*) FROM events')).toBe('2');
    tap(d, { contentDesc: 'Delete' });
    tap(d, { text: 'Delete', className: 'android.widget.Button' });
    expect(activity()).toBe(MAIN);
    expect(sql('SELECT title FROM events')).toBe('Haircut');
    expect(find(d, { text: 'Car service' })).toBeUndefined();
    expect(find(d, { text: 'Haircut' })).toBeDefined();
  });

  it('shows upcoming events grouped by day in the simple event list, which scrolls and is remembered', () => {
    for (let i = 0; i < 14; i++) insert(`Session ${i + 1}`, sec(2023, 10, 16 + i, 10), sec(2023, 10, 16 + i, 11));
    insert('Old meeting', sec(2023, 10, 10, 10), sec(2023, 10, 10, 11));
    launch();
    tap(d, { contentDesc: 'Change view' });
    tap(d, { text: 'Simple event list' });
    expect(texts(d)[1]).toBe('Monday, October 16, 2023');
    expect(find(d, { text: 'Old meeting' })).toBeUndefined();
    expect(find(d, { text: 'Session 14' })).toBeUndefined();
    for (let i = 0; i < 6 && !find(d, { text: 'Session 14' }); i++) scroll(d, 'down');
    expect(find(d, { text: 'Session 14' })).toBeDefined();
    expect(find(d, { text: 'Sunday, October 29, 2023' })).toBeDefined();
    // The choice survives the app being stopped, as the real app keeps it in its config.
    sh(d, `am force-stop ${PKG}`);
    launch();
    expect(find(d, { resourceId: 'calendar_events_list' })).toBeDefined();
  });

  it('shows the selected day under the grid in the monthly + daily view, and opens a new event on it', () => {
    insert('Piano lesson', sec(2023, 10, 24, 16), sec(2023, 10, 24, 17));
    launch();
    tap(d, { contentDesc: 'Change view' });
    tap(d, { text: 'Monthly + daily view' });
    expect(texts(d)).toContain('No events on this day');
    tap(d, { contentDesc: '24 October 2023' });
    expect(get(d, { contentDesc: '24 October 2023' }).node.selected).toBe(true);
    expect(texts(d)).toContain('Piano lesson');
    tap(d, { contentDesc: 'New event' });
    expect(get(d, { resourceId: 'event_start_date' }).node.text).toBe('Tue, Oct 24, 2023');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('jumps to a date from the month title', () => {
    launch();
    tap(d, { resourceId: 'top_value' });
    tap(d, { contentDesc: 'Next month' });
    tap(d, { contentDesc: 'Next month' });
    tap(d, { contentDesc: '5 December 2023' });
    tap(d, { text: 'OK' });
    expect(header()).toBe('December 2023');
  });
});
