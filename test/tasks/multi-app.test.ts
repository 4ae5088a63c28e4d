import { afterAll, describe, expect, it } from 'vitest';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { resetForTask } from '../../core/episode/runner.js';
import { addContact } from '../../core/tasks/families/contacts/contacts-db.js';
import { addSentMessage } from '../../core/tasks/families/sms/sms-db.js';
import { addEvent } from '../../core/tasks/families/calendar/calendar-db.js';
import { insertExpenses } from '../../core/tasks/families/expense/expense-db.js';
import { writeNote } from '../../core/tasks/families/markor/markor-files.js';
import { addTask } from '../../core/tasks/families/tasks/tasks-db.js';
import { setAlarms } from '../../core/tasks/families/clock/common.js';
import { putSetting } from '../../core/tasks/validators/settings.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { device, sh } from '../helpers/simdroid.js';

/** Multi-app checkers: near-miss end states, reached through shell helpers, must fail. */
const d = device();
afterAll(() => d.close());

async function setUp<P>(id: string, seed = 3): Promise<{ t: TaskTemplate<P>; p: P }> {
  const t = getTemplate(id) as TaskTemplate<P>;
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return { t, p: inst.params };
}
const done = { actions: [] };

describe('multi-app checkers reject near misses', () => {
  it('MultiSaveTextSenderAsContact: the right name with a distractor number fails; the sender number passes', async () => {
    const { t, p } = await setUp<any>('MultiSaveTextSenderAsContact');
    await addContact(d, { name: p.person.name, phone: p.others[0].phone });
    expect((await t.check(d, p, done)).ok).toBe(false);
    const { p: q } = await setUp<any>('MultiSaveTextSenderAsContact');
    await addContact(d, { name: q.person.name, phone: q.person.phone });
    expect((await t.check(d, q, done)).ok).toBe(true);
  });

  it('MultiTextContactEmail: the email sent to the wrong person, or with extra words, fails', async () => {
    const { t, p } = await setUp<any>('MultiTextContactEmail');
    await addSentMessage(d, { address: p.others[0].phone, body: p.person.email });
    expect((await t.check(d, p, done)).ok).toBe(false);
    await setUp<any>('MultiTextContactEmail');
    await addSentMessage(d, { address: p.recipient.phone, body: `Here it is: ${p.person.email}` });
    expect((await t.check(d, p, done)).ok).toBe(false);
    await setUp<any>('MultiTextContactEmail');
    await addSentMessage(d, { address: p.recipient.phone, body: p.person.email });
    expect((await t.check(d, p, done)).ok).toBe(true);
  });

  it('MultiTextedMeetingToCalendar: an hour off or two hours long fails', async () => {
    const { t, p } = await setUp<any>('MultiTextedMeetingToCalendar');
    await addEvent(d, { title: p.title, start: p.start + 3_600_000, end: p.start + 7_200_000 });
    expect((await t.check(d, p, done)).ok).toBe(false);
    await setUp<any>('MultiTextedMeetingToCalendar');
    await addEvent(d, { title: p.title, start: p.start, end: p.start + 7_200_000 });
    expect((await t.check(d, p, done)).ok).toBe(false);
    await setUp<any>('MultiTextedMeetingToCalendar');
    await addEvent(d, { title: p.title, start: p.start, end: p.start + 3_600_000 });
    expect((await t.check(d, p, done)).ok).toBe(true);
  });

  it('MultiBankTextToExpense: the wrong amount or category fails', async () => {
    const { t, p } = await setUp<any>('MultiBankTextToExpense');
    await insertExpenses(d, [{ name: p.merchant, amount: p.amount + 100, category: p.category, note: 'card', date: 1 }]);
    expect((await t.check(d, p, done)).ok).toBe(false);
    await setUp<any>('MultiBankTextToExpense');
    await insertExpenses(d, [{ name: p.merchant, amount: p.amount, category: p.category === 'Food' ? 'Health Care' : 'Food', note: 'card', date: 1 }]);
    expect((await t.check(d, p, done)).ok).toBe(false);
    await setUp<any>('MultiBankTextToExpense');
    await insertExpenses(d, [{ name: p.merchant, amount: p.amount, category: p.category, note: 'card', date: 1 }]);
    expect((await t.check(d, p, done)).ok).toBe(true);
  });

  it('MultiCalendarAgendaToMarkor: titles out of order or a missing title fails', async () => {
    const { t, p } = await setUp<any>('MultiCalendarAgendaToMarkor');
    await writeNote(d, p.file, [...p.titles].reverse().join('\n'));
    expect((await t.check(d, p, done)).ok).toBe(false);
    await writeNote(d, p.file, p.titles.slice(1).join('\n'));
    expect((await t.check(d, p, done)).ok).toBe(false);
    await writeNote(d, p.file, `${p.titles.join('\n')}\n`);
    expect((await t.check(d, p, done)).ok).toBe(true);
  });

  it('MultiNoteLinesToTasks: one task missing, or an extra one, fails', async () => {
    const { t, p } = await setUp<any>('MultiNoteLinesToTasks');
    for (const title of p.items.slice(1)) await addTask(d, { title });
    expect((await t.check(d, p, done)).ok).toBe(false);
    await addTask(d, { title: p.items[0] });
    expect((await t.check(d, p, done)).ok).toBe(true);
    await addTask(d, { title: 'Something else' });
    expect((await t.check(d, p, done)).ok).toBe(false);
  });

  it('MultiRecipeIngredientsToMarkor: a missing ingredient fails; any order passes', async () => {
    const { t, p } = await setUp<any>('MultiRecipeIngredientsToMarkor');
    await writeNote(d, p.file, p.ingredients.slice(1).join('\n'));
    expect((await t.check(d, p, done)).ok).toBe(false);
    await writeNote(d, p.file, [...p.ingredients].reverse().join('\n'));
    expect((await t.check(d, p, done)).ok).toBe(true);
  });

  it('MultiWifiThenOpenApp: Wi-Fi on without the app in front fails', async () => {
    const { t, p } = await setUp<any>('MultiWifiThenOpenApp');
    await putSetting(d, 'global', 'wifi_on', '1');
    expect((await t.check(d, p, done)).ok).toBe(false);
    sh(d, 'am start -n com.android.settings/.Settings');
    expect((await t.check(d, p, done)).ok).toBe(false);
  });

  it('MultiAlarmBeforeFirstEvent: an alarm at the event time itself fails', async () => {
    const { t, p } = await setUp<any>('MultiAlarmBeforeFirstEvent');
    const total = p.hour * 60 + p.minutes + p.lead;
    await setAlarms(d, [...p.alarms, { hour: Math.floor(total / 60), minutes: total % 60, enabled: true, days: 0, label: '' }]);
    expect((await t.check(d, p, done)).ok).toBe(false);
    await setAlarms(d, [...p.alarms, { hour: p.hour, minutes: p.minutes, enabled: true, days: 0, label: '' }]);
    expect((await t.check(d, p, done)).ok).toBe(true);
  });
});
