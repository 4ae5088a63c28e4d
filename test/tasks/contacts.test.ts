import { afterAll, describe, expect, it } from 'vitest';
import { shellCommand } from '../../core/device/shell-quote.js';
import { resetForTask } from '../../core/episode/runner.js';
import { instantiate } from '../../core/tasks/instance.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { AddContact, AddContactWithEmail, AddMultipleContacts } from '../../core/tasks/families/contacts/add.js';
import { DeleteContact, DeleteDuplicates } from '../../core/tasks/families/contacts/delete.js';
import { EditNumber, StarContact } from '../../core/tasks/families/contacts/edit.js';
import { CompanyCountQuestion, CountQuestion, PhoneNumberQuestion } from '../../core/tasks/families/contacts/questions.js';
import {
  addContact, listContacts, MIMETYPE, normalizePhone, withName,
} from '../../core/tasks/families/contacts/contacts-db.js';
import { contentDelete, contentInsert } from '../../core/tasks/validators/content.js';
import { device, get, sh, tap, typeInto } from '../helpers/simdroid.js';

/** Each Contacts checker accepts the right end state and rejects near misses. */
const d = device();
afterAll(() => d.close());

const none = { actions: [] };
const answer = (text: string) => ({ actions: [], answer: text });

async function start<P>(t: TaskTemplate<P>, seed = 0): Promise<P> {
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return inst.params;
}

/** The first seed whose parameters satisfy a predicate. */
function seedWhere<P>(t: TaskTemplate<P>, pred: (p: P) => boolean): number {
  for (let s = 0; s < 200; s++) if (pred(instantiate(t, s).params)) return s;
  throw new Error(`no seed of ${t.id} fits`);
}

async function idOf(name: string): Promise<number> {
  const [c] = withName(await listContacts(d), name);
  if (!c) throw new Error(`no contact ${name}`);
  return c.id;
}

const deleteByName = async (name: string) => contentDelete(d, 'content://com.android.contacts/raw_contacts', `_id = ${await idOf(name)}`);
const update = (uri: string, bind: string, where: string) => sh(d, shellCommand('content', 'update', '--uri', uri, '--bind', bind, '--where', where));
const setPhone = async (name: string, phone: string) =>
  update('content://com.android.contacts/data', `data1:s:${phone}`, `raw_contact_id = ${await idOf(name)} AND mimetype = '${MIMETYPE.phone}'`);
const setStar = async (name: string, on: boolean) =>
  update('content://com.android.contacts/raw_contacts', `starred:i:${on ? 1 : 0}`, `_id = ${await idOf(name)}`);
const otherPhone = (phone: string) => `${phone.slice(0, 9)}${(Number(phone[9]) + 1) % 10}`;

describe('ContactsAddContact', () => {
  it('accepts the contact with the number in any format and any name case', async () => {
    const p = await start(AddContact);
    await addContact(d, { name: `  ${p.person.name.toUpperCase()} `, phone: `+1 ${p.person.phone}` });
    expect((await AddContact.check(d, p, none)).ok).toBe(true);
  });

  it('rejects a wrong number typed through the editor', async () => {
    const p = await start(AddContact, 1);
    sh(d, 'am start -n com.google.android.contacts/com.android.contacts.activities.PeopleActivity');
    tap(d, { contentDesc: 'Create contact' });
    typeInto(d, { text: 'First name' }, p.person.first);
    typeInto(d, { text: 'Last name' }, p.person.last);
    typeInto(d, { text: 'Phone' }, otherPhone(p.person.phone));
    tap(d, { resourceId: 'toolbar_button' });
    expect(get(d, { resourceId: 'large_title' }).node.text).toBe(p.person.name);
    expect((await AddContact.check(d, p, none)).ok).toBe(false);
  });

  it('rejects a duplicate, a second number, and a deleted distractor', async () => {
    let p = await start(AddContact, 2);
    await addContact(d, { name: p.person.name, phone: p.person.phone });
    await addContact(d, { name: p.person.name, phone: p.person.phone });
    expect((await AddContact.check(d, p, none)).ok).toBe(false);

    p = await start(AddContact, 2);
    await addContact(d, { name: p.person.name, phone: p.person.phone });
    await contentInsert(d, 'content://com.android.contacts/data', { raw_contact_id: await idOf(p.person.name), mimetype: MIMETYPE.phone, data1: '2025550100' });
    expect((await AddContact.check(d, p, none)).ok).toBe(false);

    p = await start(AddContact, 2);
    await addContact(d, { name: p.person.name, phone: p.person.phone });
    await deleteByName(p.others[0]!.name);
    expect((await AddContact.check(d, p, none)).ok).toBe(false);
  });
});

describe('ContactsAddContactWithEmail', () => {
  it('needs the number, the email and the company', async () => {
    const p = await start(AddContactWithEmail);
    const full = { name: p.person.name, phone: p.person.phone, email: p.person.email, company: p.person.company };
    await addContact(d, full);
    expect((await AddContactWithEmail.check(d, p, none)).ok).toBe(true);

    for (const wrong of [{ email: `x${p.person.email}` }, { company: undefined }, { company: 'Wrong Inc' }, { email: undefined }]) {
      await start(AddContactWithEmail);
      await addContact(d, { ...full, ...wrong });
      expect((await AddContactWithEmail.check(d, p, none)).ok, JSON.stringify(wrong)).toBe(false);
    }
  });
});

describe('ContactsAddMultiple', () => {
  it('needs every person, each with the right number', async () => {
    const p = await start(AddMultipleContacts);
    for (const x of p.people) await addContact(d, { name: x.name, phone: x.phone });
    expect((await AddMultipleContacts.check(d, p, none)).ok).toBe(true);

    await start(AddMultipleContacts);
    for (const x of p.people.slice(1)) await addContact(d, { name: x.name, phone: x.phone });
    expect((await AddMultipleContacts.check(d, p, none)).ok).toBe(false);

    await start(AddMultipleContacts);
    for (const [i, x] of p.people.entries()) await addContact(d, { name: x.name, phone: i === 0 ? otherPhone(x.phone) : x.phone });
    expect((await AddMultipleContacts.check(d, p, none)).ok).toBe(false);
  });
});

describe('ContactsEditNumber', () => {
  it('accepts the same contact with the new number only, as written in the instruction', async () => {
    const p = await start(EditNumber, seedWhere(EditNumber, (x) => x.number.includes('(')));
    await setPhone(p.person.name, p.number);
    expect((await EditNumber.check(d, p, none)).ok).toBe(true);
  });

  it('rejects a re-created contact, a kept old number and a wrong number', async () => {
    let p = await start(EditNumber);
    await deleteByName(p.person.name);
    await addContact(d, { name: p.person.name, phone: p.newPhone });
    expect((await EditNumber.check(d, p, none)).ok).toBe(false);

    p = await start(EditNumber);
    await contentInsert(d, 'content://com.android.contacts/data', { raw_contact_id: await idOf(p.person.name), mimetype: MIMETYPE.phone, data1: p.newPhone });
    expect((await EditNumber.check(d, p, none)).ok).toBe(false);

    p = await start(EditNumber);
    await setPhone(p.person.name, otherPhone(p.newPhone));
    expect((await EditNumber.check(d, p, none)).ok).toBe(false);

    p = await start(EditNumber);
    await addContact(d, { name: p.person.name, phone: p.newPhone });
    expect((await EditNumber.check(d, p, none)).ok).toBe(false);
  });
});

describe('ContactsStarContact', () => {
  it('accepts starring the person and rejects starring someone else too', async () => {
    const seed = seedWhere(StarContact, (x) => x.star && x.others.some((o) => !o.starred));
    let p = await start(StarContact, seed);
    await setStar(p.person.name, true);
    expect((await StarContact.check(d, p, none)).ok).toBe(true);
    await setStar(p.others.find((o) => !o.starred)!.name, true);
    expect((await StarContact.check(d, p, none)).ok).toBe(false);

    p = await start(StarContact, seed);
    await setStar(p.others.find((o) => !o.starred)!.name, true);
    expect((await StarContact.check(d, p, none)).ok).toBe(false);
  });

  it('accepts unstarring when asked to remove a favourite, and rejects unstarring others', async () => {
    const seed = seedWhere(StarContact, (x) => !x.star && x.others.some((o) => o.starred));
    let p = await start(StarContact, seed);
    await setStar(p.person.name, false);
    expect((await StarContact.check(d, p, none)).ok).toBe(true);

    p = await start(StarContact, seed);
    await setStar(p.person.name, false);
    await setStar(p.others.find((o) => o.starred)!.name, false);
    expect((await StarContact.check(d, p, none)).ok).toBe(false);
  });
});

describe('ContactsDeleteContact', () => {
  it('accepts deleting exactly the person', async () => {
    const p = await start(DeleteContact);
    await deleteByName(p.person.name);
    expect((await DeleteContact.check(d, p, none)).ok).toBe(true);
    await deleteByName(p.others[2]!.name);
    expect((await DeleteContact.check(d, p, none)).ok).toBe(false);
  });

  it('rejects deleting someone else or everyone', async () => {
    let p = await start(DeleteContact);
    await deleteByName(p.others[0]!.name);
    expect((await DeleteContact.check(d, p, none)).ok).toBe(false);
    p = await start(DeleteContact);
    await contentDelete(d, 'content://com.android.contacts/raw_contacts');
    expect((await DeleteContact.check(d, p, none)).ok).toBe(false);
  });
});

describe('ContactsDeleteDuplicates', () => {
  /** Raw contact ids of each duplicated person, oldest first. */
  async function copiesById(names: readonly string[]): Promise<number[][]> {
    const list = await listContacts(d);
    return names.map((n) => withName(list, n).map((c) => c.id).sort((a, b) => a - b));
  }

  it('accepts keeping one copy of each person, whichever copy', async () => {
    const p = await start(DeleteDuplicates);
    const dupes = p.people.filter((_, i) => p.copies[i]! > 1).map((x) => x.name);
    for (const ids of await copiesById(dupes)) {
      // Keep the newest copy: any one copy will do.
      for (const id of ids.slice(0, -1)) await contentDelete(d, 'content://com.android.contacts/raw_contacts', `_id = ${id}`);
    }
    expect((await DeleteDuplicates.check(d, p, none)).ok).toBe(true);
  });

  it('rejects leftover duplicates and deleting every copy of a person', async () => {
    let p = await start(DeleteDuplicates);
    const dupes = p.people.filter((_, i) => p.copies[i]! > 1).map((x) => x.name);
    const [first, ...rest] = await copiesById(dupes);
    for (const ids of rest) for (const id of ids.slice(1)) await contentDelete(d, 'content://com.android.contacts/raw_contacts', `_id = ${id}`);
    expect(first!.length).toBeGreaterThan(1);
    expect((await DeleteDuplicates.check(d, p, none)).ok).toBe(false);

    p = await start(DeleteDuplicates);
    for (const ids of await copiesById(dupes)) for (const id of ids.slice(1)) await contentDelete(d, 'content://com.android.contacts/raw_contacts', `_id = ${id}`);
    await deleteByName(dupes[0]!);
    expect((await DeleteDuplicates.check(d, p, none)).ok).toBe(false);
  });
});

describe('Contacts questions', () => {
  it('ContactsPhoneNumberQuestion compares digits, whatever the formatting', async () => {
    const p = await start(PhoneNumberQuestion);
    const n = p.person.phone;
    expect(normalizePhone(`(${n.slice(0, 3)}) ${n.slice(3, 6)}-${n.slice(6)}`)).toBe(n);
    expect((await PhoneNumberQuestion.check(d, p, answer(`(${n.slice(0, 3)}) ${n.slice(3, 6)}-${n.slice(6)}`))).ok).toBe(true);
    expect((await PhoneNumberQuestion.check(d, p, answer(`+1 ${n}`))).ok).toBe(true);
    expect((await PhoneNumberQuestion.check(d, p, answer(otherPhone(n)))).ok).toBe(false);
    expect((await PhoneNumberQuestion.check(d, p, answer(p.others[0]!.phone))).ok).toBe(false);
    expect((await PhoneNumberQuestion.check(d, p, none)).ok).toBe(false);
  });

  it('ContactsCountQuestion wants the exact count of names with the letter', async () => {
    const p = await start(CountQuestion, 3);
    const want = p.people.filter((x) => x.first.startsWith(p.letter)).length;
    expect(want).toBe(p.answer);
    expect((await CountQuestion.check(d, p, answer(String(want)))).ok).toBe(true);
    expect((await CountQuestion.check(d, p, answer(String(want + 1)))).ok).toBe(false);
    expect((await CountQuestion.check(d, p, answer(String(p.people.length)))).ok).toBe(false);
  });

  it('ContactsCompanyCountQuestion wants the number of people at the company', async () => {
    const p = await start(CompanyCountQuestion, 4);
    const want = p.people.filter((x) => x.company === p.company).length;
    expect(want).toBe(p.answer);
    const atCompany = (await listContacts(d)).filter((c) => c.company === p.company).length;
    expect(atCompany).toBe(want);
    expect((await CompanyCountQuestion.check(d, p, answer(`${want}`))).ok).toBe(true);
    expect((await CompanyCountQuestion.check(d, p, answer(`${want - 1}`))).ok).toBe(false);
    expect((await CompanyCountQuestion.check(d, p, none)).ok).toBe(false);
  });
});
