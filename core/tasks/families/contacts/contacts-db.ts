import { countIs, eachHolds, holds, type CheckCondition } from '../../verdict.js';
import type { Device } from '../../../device/device.js';
import { contentDelete, contentInsert, contentQuery, type Binding } from '../../validators/content.js';

/**
 * Contacts on a device through the Contacts provider (`content insert|query|delete`), exactly as a
 * real emulator answers them: tasks of any app use these to set up and read back people.
 */
export const CONTACTS_PKG = 'com.google.android.contacts';

const RAW_CONTACTS = 'content://com.android.contacts/raw_contacts';
const CONTACTS = 'content://com.android.contacts/contacts';
const DATA = 'content://com.android.contacts/data';
const PHONES = 'content://com.android.contacts/data/phones';
const EMAILS = 'content://com.android.contacts/data/emails';

/** ContactsContract.Data mimetypes. */
export const MIMETYPE = {
  name: 'vnd.android.cursor.item/name',
  phone: 'vnd.android.cursor.item/phone_v2',
  email: 'vnd.android.cursor.item/email_v2',
  organization: 'vnd.android.cursor.item/organization',
} as const;

/** Phone.TYPE_MOBILE, Email.TYPE_HOME. */
const TYPE_MOBILE = '2';
const TYPE_HOME = '1';

export interface NewContact {
  name: string;
  phone: string;
  email?: string | undefined;
  company?: string | undefined;
  starred?: boolean | undefined;
}

export interface ContactRecord {
  id: number;
  name: string;
  phones: string[];
  emails: string[];
  company: string | null;
  starred: boolean;
}

/** Digits only, without a leading US country code: "+1 (415) 555-0134" → "4155550134". */
export function normalizePhone(s: string): string {
  const d = s.replace(/\D/g, '');
  return d.length === 11 && d.startsWith('1') ? d.slice(1) : d;
}

/** Names compare without case and extra spaces. */
export function normalizeName(s: string): string {
  return s.trim().replace(/\s+/g, ' ').toLowerCase();
}

function splitName(name: string): [string, string] {
  const parts = name.trim().split(/\s+/);
  return parts.length <= 1 ? [parts[0] ?? '', ''] : [parts.slice(0, -1).join(' '), parts[parts.length - 1]!];
}

async function insertData(device: Device, rawId: number, mimetype: string, values: Record<string, Binding>): Promise<void> {
  await contentInsert(device, DATA, { raw_contact_id: rawId, mimetype, ...values });
}

/** Inserts a contact (a raw contact and its data rows) and returns its raw contact id. */
export async function addContact(device: Device, c: NewContact): Promise<number> {
  await contentInsert(device, RAW_CONTACTS, { starred: c.starred ? 1 : 0 });
  // `content insert` prints no id: the newest raw contact is the one just inserted.
  const [newest] = await contentQuery(device, RAW_CONTACTS, ['_id'], { sort: '_id DESC' });
  const id = Number(newest?._id);
  if (!Number.isInteger(id)) throw new Error(`addContact: could not read back the new raw contact for ${c.name}`);
  const [given, family] = splitName(c.name);
  await insertData(device, id, MIMETYPE.name, { data1: c.name, data2: given, data3: family || null });
  await insertData(device, id, MIMETYPE.phone, { data1: c.phone, data2: TYPE_MOBILE, is_primary: 1 });
  if (c.email) await insertData(device, id, MIMETYPE.email, { data1: c.email, data2: TYPE_HOME });
  if (c.company) await insertData(device, id, MIMETYPE.organization, { data1: c.company });
  return id;
}

/** Adds contacts in order and returns their ids. */
export async function addContacts(device: Device, list: readonly NewContact[]): Promise<number[]> {
  const ids: number[] = [];
  for (const c of list) ids.push(await addContact(device, c));
  return ids;
}

export async function clearContacts(device: Device): Promise<void> {
  await contentDelete(device, RAW_CONTACTS);
}

/** Every contact with its numbers, emails, company and star, sorted by id. */
export async function listContacts(device: Device): Promise<ContactRecord[]> {
  const people = await contentQuery(device, CONTACTS, ['_id', 'display_name', 'starred'], { sort: '_id' });
  const phones = await contentQuery(device, PHONES, ['contact_id', 'number']);
  const emails = await contentQuery(device, EMAILS, ['contact_id', 'address']);
  const orgs = await contentQuery(device, DATA, ['contact_id', 'data1'], { where: `mimetype = '${MIMETYPE.organization}'` });
  return people.map((p) => {
    const id = Number(p._id);
    return {
      id,
      name: p.display_name ?? '',
      phones: phones.filter((x) => Number(x.contact_id) === id && x.number !== null).map((x) => x.number!),
      emails: emails.filter((x) => Number(x.contact_id) === id && x.address !== null).map((x) => x.address!),
      company: orgs.find((x) => Number(x.contact_id) === id)?.data1 ?? null,
      starred: p.starred === '1',
    };
  });
}

/** The contacts with this name. */
export function withName(list: readonly ContactRecord[], name: string): ContactRecord[] {
  return list.filter((c) => normalizeName(c.name) === normalizeName(name));
}

/** Exactly one contact has this name, and its only number is this one (the test of `contactHas`). */
function hasExactly(list: readonly ContactRecord[], name: string, phone: string): boolean {
  const found = withName(list, name);
  return found.length === 1 && found[0]!.phones.length === 1 && normalizePhone(found[0]!.phones[0]!) === normalizePhone(phone);
}

/** What the list holds under a name, in words: "no contact named X", the numbers, or how many there are. */
function foundUnder(list: readonly ContactRecord[], name: string): string {
  const found = withName(list, name);
  if (found.length === 0) return `no contact named ${name}`;
  if (found.length > 1) return `${found.length} contacts named ${name}`;
  const phones = found[0]!.phones.map(normalizePhone);
  return phones.length === 0 ? 'no number' : phones.join(', ');
}

/** "contact Alice Smith has number 2412043170" (exactly one such contact, with that one number). */
export function contactHas(list: readonly ContactRecord[], name: string, phone: string): CheckCondition {
  return holds(`contact ${name} has number ${normalizePhone(phone)}`, hasExactly(list, name, phone), { expected: normalizePhone(phone), found: foundUnder(list, name) });
}

/** Each of these people is still there once with their number ("the 5 other contacts unchanged", or the words given). */
export function contactsKept(list: readonly ContactRecord[], people: readonly { name: string; phone: string }[], what = 'other contacts unchanged'): CheckCondition {
  return eachHolds(`the ${people.length} ${what}`, people, (o) => hasExactly(list, o.name, o.phone), (o) => `${o.name} (${foundUnder(list, o.name)})`);
}

export function contactCount(list: readonly ContactRecord[], expected: number): CheckCondition {
  return countIs('number of contacts', expected, list.length);
}
