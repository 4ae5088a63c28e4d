import { afterAll, describe, expect, it } from 'vitest';
import { instantiate } from '../../core/tasks/instance.js';
import { resetForTask } from '../../core/episode/runner.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { msOf } from '../../core/seed-data/dates.js';
import { sqlExec } from '../../core/tasks/validators/sqlite.js';
import { addEvent, EVENTS_DB, listEvents, type EventInput, type StoredEvent } from '../../core/tasks/families/calendar/calendar-db.js';
import { AddAllDayEvent, AddEvent, AddEventWithLocation } from '../../core/tasks/families/calendar/add.js';
import { DeleteEvent, DeleteEventsOnDay } from '../../core/tasks/families/calendar/delete.js';
import { EditEventTitle, RescheduleEvent } from '../../core/tasks/families/calendar/edit.js';
import { EventsOnDayQuestion, EventsTodayQuestion, NextEventQuestion } from '../../core/tasks/families/calendar/questions.js';
import { isEvent, type EventParam } from '../../core/tasks/families/calendar/common.js';
import { device } from '../helpers/simdroid.js';

/**
 * The Simple Calendar checkers are strict: the right end state passes; a wrong day, hour,
 * duration or field fails, and so does touching any other event. Titles compare case-insensitively
 * after trimming. End states are reached through the same sqlite3 shell a real device offers.
 */
const d = device();
afterAll(() => d.close());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

async function setup<P>(t: TaskTemplate<P>, seed: number): Promise<P> {
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return inst.params;
}

/** The first seed whose parameters satisfy `pred`. */
function seedWhere<P>(t: TaskTemplate<P>, pred: (p: P) => boolean): number {
  for (let seed = 0; seed < 200; seed++) if (pred(instantiate(t, seed).params)) return seed;
  throw new Error(`No seed of ${t.id} fits`);
}

const passes = <P>(t: TaskTemplate<P>, p: P, answer?: string) => t.check(d, p, { actions: [], ...(answer === undefined ? {} : { answer }) }).then((v) => v.ok);
const sql = (s: string) => sqlExec(d, EVENTS_DB, s);

async function stored(e: EventParam): Promise<StoredEvent> {
  const found = (await listEvents(d)).find((s) => isEvent(s, e));
  if (!found) throw new Error(`Event ${e.title} not stored`);
  return found;
}

const input = (e: EventParam, over: Partial<EventInput> = {}): EventInput => ({ ...e, ...over });

describe('CalendarAddEvent', () => {
  const right = (p: { date: Parameters<typeof msOf>[0]; hour: number; durationMins: number; title: string; description: string }, over: Partial<EventInput> = {}): EventInput => {
    const start = msOf(p.date, p.hour);
    return { title: p.title, description: p.description, start, end: start + p.durationMins * 60_000, ...over };
  };

  it('accepts the event, with the title in another case and spacing', async () => {
    const p = await setup(AddEvent, 0);
    expect(await passes(AddEvent, p)).toBe(false);
    await addEvent(d, right(p, { title: `  ${p.title.toUpperCase()} ` }));
    expect(await passes(AddEvent, p)).toBe(true);
  });

  it.each([
    ['an hour late', (s: number, e: number) => ({ start: s + HOUR, end: e + HOUR })],
    ['the day after', (s: number, e: number) => ({ start: s + DAY, end: e + DAY })],
    ['fifteen minutes too long', (s: number, e: number) => ({ start: s, end: e + 15 * 60_000 })],
    ['all day', (s: number, e: number) => ({ start: s, end: e, allDay: true })],
  ])('rejects the event %s', async (_what, shift) => {
    const p = await setup(AddEvent, 1);
    const r = right(p);
    await addEvent(d, { ...r, ...shift(r.start, r.end) });
    expect(await passes(AddEvent, p)).toBe(false);
  });

  it('rejects a wrong description, a duplicate, and a changed or deleted existing event', async () => {
    let p = await setup(AddEvent, 2);
    await addEvent(d, right(p, { description: 'Something else' }));
    expect(await passes(AddEvent, p)).toBe(false);

    p = await setup(AddEvent, 2);
    await addEvent(d, right(p));
    await addEvent(d, right(p));
    expect(await passes(AddEvent, p)).toBe(false);

    p = await setup(AddEvent, 2);
    await addEvent(d, right(p));
    await sql(`UPDATE events SET start_ts = start_ts + 1800 WHERE id = ${(await stored(p.existing[0]!)).id}`);
    expect(await passes(AddEvent, p)).toBe(false);

    p = await setup(AddEvent, 2);
    await addEvent(d, right(p));
    await sql(`DELETE FROM events WHERE id = ${(await stored(p.existing[1]!)).id}`);
    expect(await passes(AddEvent, p)).toBe(false);
  });
});

describe('CalendarAddEventWithLocation', () => {
  it('needs the location as well as the times', async () => {
    let p = await setup(AddEventWithLocation, 3);
    await addEvent(d, input(p.target, { location: 'Somewhere else' }));
    expect(await passes(AddEventWithLocation, p)).toBe(false);
    p = await setup(AddEventWithLocation, 3);
    await addEvent(d, input(p.target, { end: p.target.end + 30 * 60_000 }));
    expect(await passes(AddEventWithLocation, p)).toBe(false);
    p = await setup(AddEventWithLocation, 3);
    await addEvent(d, input(p.target, { location: p.target.location.toLowerCase() }));
    expect(await passes(AddEventWithLocation, p)).toBe(true);
  });
});

describe('CalendarAddAllDayEvent', () => {
  it('accepts an all-day event on the day only', async () => {
    const start = (p: { date: Parameters<typeof msOf>[0] }) => msOf(p.date);
    let p = await setup(AddAllDayEvent, 4);
    await addEvent(d, { title: p.title, start: start(p), end: start(p) + 12 * HOUR });
    expect(await passes(AddAllDayEvent, p)).toBe(false);
    p = await setup(AddAllDayEvent, 4);
    await addEvent(d, { title: p.title, start: start(p) + DAY, end: start(p) + DAY + 12 * HOUR, allDay: true });
    expect(await passes(AddAllDayEvent, p)).toBe(false);
    p = await setup(AddAllDayEvent, 4);
    await addEvent(d, { title: p.title, start: start(p), end: start(p) + 12 * HOUR, allDay: true });
    expect(await passes(AddAllDayEvent, p)).toBe(true);
  });
});

describe('CalendarDeleteEvent', () => {
  const seed = seedWhere(DeleteEvent, (p) => p.others.some((o) => o.title === p.target.title));

  it('accepts deleting the event and nothing else', async () => {
    const p = await setup(DeleteEvent, seed);
    expect(await passes(DeleteEvent, p)).toBe(false);
    await sql(`DELETE FROM events WHERE id = ${(await stored(p.target)).id}`);
    expect(await passes(DeleteEvent, p)).toBe(true);
  });

  it('rejects deleting the same-titled event of another day, or one more', async () => {
    let p = await setup(DeleteEvent, seed);
    const twin = p.others.find((o) => o.title === p.target.title)!;
    await sql(`DELETE FROM events WHERE id = ${(await stored(twin)).id}`);
    expect(await passes(DeleteEvent, p)).toBe(false);

    p = await setup(DeleteEvent, seed);
    await sql(`DELETE FROM events WHERE id IN (${(await stored(p.target)).id}, ${(await stored(p.others[0]!)).id})`);
    expect(await passes(DeleteEvent, p)).toBe(false);
  });
});

describe('CalendarDeleteEventsOnDay', () => {
  it('needs every event of the day gone and the ones around midnight kept', async () => {
    const ids = async (es: readonly EventParam[]) => Promise.all(es.map(async (e) => (await stored(e)).id));
    let p = await setup(DeleteEventsOnDay, 5);
    const all = await ids(p.targets);
    await sql(`DELETE FROM events WHERE id IN (${all.slice(1).join(', ')})`);
    expect(await passes(DeleteEventsOnDay, p)).toBe(false);
    await sql(`DELETE FROM events WHERE id = ${all[0]}`);
    expect(await passes(DeleteEventsOnDay, p)).toBe(true);

    p = await setup(DeleteEventsOnDay, 5);
    // others[0] ends just before the day, others[1] starts just after it.
    await sql(`DELETE FROM events WHERE id IN (${[...(await ids(p.targets)), (await stored(p.others[1]!)).id].join(', ')})`);
    expect(await passes(DeleteEventsOnDay, p)).toBe(false);
  });
});

describe('CalendarEditEventTitle', () => {
  it('accepts the renamed event only', async () => {
    let p = await setup(EditEventTitle, 6);
    let id = (await stored(p.target)).id;
    await sql(`UPDATE events SET title = '${p.newTitle.toLowerCase()}' WHERE id = ${id}`);
    expect(await passes(EditEventTitle, p)).toBe(true);

    p = await setup(EditEventTitle, 6);
    id = (await stored(p.target)).id;
    await sql(`UPDATE events SET title = '${p.newTitle}', start_ts = start_ts + 3600, end_ts = end_ts + 3600 WHERE id = ${id}`);
    expect(await passes(EditEventTitle, p)).toBe(false);

    p = await setup(EditEventTitle, 6);
    await addEvent(d, input(p.target, { title: p.newTitle }));
    expect(await passes(EditEventTitle, p)).toBe(false);

    p = await setup(EditEventTitle, 6);
    await sql(`UPDATE events SET title = '${p.newTitle}' WHERE id = ${(await stored(p.others[0]!)).id}`);
    expect(await passes(EditEventTitle, p)).toBe(false);
  });
});

describe('CalendarRescheduleEvent', () => {
  it('accepts the new start with the duration kept', async () => {
    const secs = (ms: number) => Math.floor(ms / 1000);
    let p = await setup(RescheduleEvent, 7);
    const dur = p.target.end - p.target.start;
    let id = (await stored(p.target)).id;
    await sql(`UPDATE events SET start_ts = ${secs(p.newStart)}, end_ts = ${secs(p.newStart + dur)} WHERE id = ${id}`);
    expect(await passes(RescheduleEvent, p)).toBe(true);

    p = await setup(RescheduleEvent, 7);
    id = (await stored(p.target)).id;
    await sql(`UPDATE events SET start_ts = ${secs(p.newStart)} WHERE id = ${id}`);
    expect(await passes(RescheduleEvent, p)).toBe(false);

    p = await setup(RescheduleEvent, 7);
    id = (await stored(p.target)).id;
    const oldTime = p.target.start % DAY;
    const newDay = p.newStart - (p.newStart % DAY);
    await sql(`UPDATE events SET start_ts = ${secs(newDay + oldTime)}, end_ts = ${secs(newDay + oldTime + dur)} WHERE id = ${id}`);
    expect(await passes(RescheduleEvent, p)).toBe(false);

    p = await setup(RescheduleEvent, 7);
    await addEvent(d, input(p.target, { start: p.newStart, end: p.newStart + dur }));
    expect(await passes(RescheduleEvent, p)).toBe(false);
  });
});

describe('Calendar questions', () => {
  it('CalendarEventsOnDayQuestion wants exactly the titles of the day, in any order', async () => {
    const seed = seedWhere(EventsOnDayQuestion, (p) => p.targets.length >= 3);
    const p = await setup(EventsOnDayQuestion, seed);
    const titles = p.targets.map((t) => t.title);
    expect(await passes(EventsOnDayQuestion, p, titles.join(', '))).toBe(true);
    const reversed = [...titles].reverse();
    expect(await passes(EventsOnDayQuestion, p, `${reversed.slice(0, -1).join(', ')} and ${reversed.at(-1)}`)).toBe(true);
    expect(await passes(EventsOnDayQuestion, p, titles.slice(1).join(', '))).toBe(false);
    expect(await passes(EventsOnDayQuestion, p, [...titles, p.others[0]!.title].join(', '))).toBe(false);
    expect(await passes(EventsOnDayQuestion, p)).toBe(false);
  });

  it('CalendarEventsTodayQuestion wants today\'s titles', async () => {
    const p = await setup(EventsTodayQuestion, 8);
    expect(await passes(EventsTodayQuestion, p, p.targets.map((t) => t.title.toLowerCase()).join('\n'))).toBe(true);
    expect(await passes(EventsTodayQuestion, p, p.others[1]!.title)).toBe(false);
  });

  it('CalendarNextEventQuestion wants the first event after now, not an earlier one of today', async () => {
    const seed = seedWhere(NextEventQuestion, (p) => p.others.some((o) => o.start < p.target.start && o.start > p.target.start - DAY));
    const p = await setup(NextEventQuestion, seed);
    expect(await passes(NextEventQuestion, p, ` ${p.target.title}.`)).toBe(true);
    const earlier = p.others.find((o) => o.start < p.target.start && o.start > p.target.start - DAY)!;
    expect(await passes(NextEventQuestion, p, earlier.title)).toBe(false);
    const later = p.others.filter((o) => o.start > p.target.start).sort((a, b) => a.start - b.start)[0]!;
    expect(await passes(NextEventQuestion, p, later.title)).toBe(false);
  });
});
