import type { Db } from '../../system/databases.js';
import { MIME } from '../../system/providers.js';

/**
 * The Contacts app's reads and writes of the Contacts provider (contacts2.db): one raw contact per
 * person, its name, phones, emails and company as `data` rows with ContactsContract's columns
 * (StructuredName: data1 display name, data2 given, data3 family; Phone: data1 number, data2 type,
 * data4 normalised E.164; Email: data1 address, data2 type; Organization: data1 company).
 */
export const PHONE_TYPE_MOBILE = 2;
export const EMAIL_TYPE_HOME = 1;

/** Phone.TYPE_* and their labels, in the order the editor's label picker lists them. */
export const PHONE_TYPES: Record<number, string> = { 2: 'Mobile', 3: 'Work', 1: 'Home', 12: 'Main', 4: 'Work Fax', 5: 'Home Fax', 6: 'Pager', 7: 'Other' };
export const PHONE_TYPE_ORDER = [2, 3, 1, 12, 4, 5, 6, 7] as const;
export const EMAIL_TYPES: Record<number, string> = { 1: 'Home', 2: 'Work', 3: 'Other' };

export interface ContactSummary {
  id: number;
  name: string;
  starred: boolean;
}

export interface DataItem {
  /** The data row's _id. */
  id: number;
  value: string;
  type: number;
}

export interface Contact extends ContactSummary {
  given: string;
  family: string;
  company: string;
  phones: DataItem[];
  emails: DataItem[];
}

/** What the editor saves. Empty strings mean "none". */
export interface Draft {
  given: string;
  family: string;
  company: string;
  phones: string[];
  /** Phone.TYPE_* of each phone (Mobile when absent). */
  phoneTypes?: number[];
  emails: string[];
}

/** Contacts as the list shows them, alphabetical by name (case-insensitive, unnamed last). */
export function listContacts(db: Db): ContactSummary[] {
  const rows = db.prepare(`
    SELECT r._id AS id, r.display_name AS name, r.starred AS starred,
           (SELECT d.data1 FROM data d WHERE d.raw_contact_id = r._id AND d.mimetype = ? ORDER BY d._id LIMIT 1) AS phone
    FROM raw_contacts r WHERE r.deleted = 0`).all(MIME.phone) as Array<{ id: number; name: string | null; starred: number; phone: string | null }>;
  return rows
    // A contact saved without a name is listed under its number, as Android does.
    .map((r) => ({ id: r.id, name: (r.name ?? '').trim() || (r.phone ?? '').trim() || '(No name)', starred: r.starred === 1 }))
    .sort((a, b) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || a.id - b.id);
}

/** Contacts whose name, number, email or company contains the query (the app's search). */
export function searchContacts(db: Db, query: string): ContactSummary[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const digits = q.replace(/\D/g, '');
  const hits = new Set<number>();
  const data = db.prepare('SELECT raw_contact_id AS id, mimetype, data1 FROM data').all() as Array<{ id: number; mimetype: string; data1: string | null }>;
  for (const d of data) {
    const v = (d.data1 ?? '').toLowerCase();
    if (d.mimetype === MIME.phone) {
      if (digits.length >= 3 && v.replace(/\D/g, '').includes(digits)) hits.add(d.id);
    } else if (v.includes(q)) hits.add(d.id);
  }
  return listContacts(db).filter((c) => hits.has(c.id) || c.name.toLowerCase().includes(q));
}

export function getContact(db: Db, id: number): Contact | undefined {
  const r = db.prepare('SELECT _id AS id, display_name AS name, starred FROM raw_contacts WHERE _id = ? AND deleted = 0').get(id) as
    | { id: number; name: string | null; starred: number }
    | undefined;
  if (!r) return undefined;
  const rows = db.prepare('SELECT _id AS id, mimetype, data1, data2, data3 FROM data WHERE raw_contact_id = ? ORDER BY _id').all(id) as Array<{
    id: number; mimetype: string; data1: string | null; data2: string | null; data3: string | null;
  }>;
  const c: Contact = { id: r.id, name: (r.name ?? '').trim(), starred: r.starred === 1, given: '', family: '', company: '', phones: [], emails: [] };
  for (const d of rows) {
    if (d.mimetype === MIME.name) {
      c.given = d.data2 ?? '';
      c.family = d.data3 ?? '';
      // A name row written with only a display name (e.g. through `content insert`): split it.
      if (!c.given && !c.family && d.data1) [c.given, c.family] = splitName(d.data1);
    } else if (d.mimetype === MIME.phone && d.data1) c.phones.push({ id: d.id, value: d.data1, type: Number(d.data2 ?? PHONE_TYPE_MOBILE) });
    else if (d.mimetype === MIME.email && d.data1) c.emails.push({ id: d.id, value: d.data1, type: Number(d.data2 ?? EMAIL_TYPE_HOME) });
    else if (d.mimetype === MIME.organization && d.data1) c.company = d.data1;
  }
  if (!c.name) c.name = c.phones[0] ? c.phones[0].value : '';
  return c;
}

/** "Mary Ann Smith" → ["Mary Ann", "Smith"]: the last word is the family name. */
export function splitName(name: string): [string, string] {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  if (parts.length <= 1) return [parts[0] ?? '', ''];
  return [parts.slice(0, -1).join(' '), parts[parts.length - 1]!];
}

/** E.164 for North American numbers (ContactsContract's NORMALIZED_NUMBER), null otherwise. */
export function e164(number: string): string | null {
  const d = number.replace(/\D/g, '');
  if (d.length === 10) return `+1${d}`;
  if (d.length === 11 && d.startsWith('1')) return `+${d}`;
  return null;
}

export function isEmptyDraft(d: Draft): boolean {
  return !d.given.trim() && !d.family.trim() && d.phones.every((p) => !p.trim());
}

/**
 * Writes a draft: a new raw contact when `id` is null, else the same raw contact updated in place
 * (data rows updated, added or removed), as the provider's editor does. Returns the raw contact id.
 */
export function saveContact(db: Db, id: number | null, draft: Draft): number {
  const tx = db.transaction((): number => {
    const rawId = id ?? Number(db.prepare('INSERT INTO raw_contacts (account_type) VALUES (NULL)').run().lastInsertRowid);
    const given = draft.given.trim();
    const family = draft.family.trim();
    const display = [given, family].filter(Boolean).join(' ');
    syncRows(db, rawId, MIME.name, display ? [{ data1: display, data2: given || null, data3: family || null }] : []);
    syncRows(db, rawId, MIME.organization, draft.company.trim() ? [{ data1: draft.company.trim() }] : []);
    // Phones take the label picked in the editor; emails (no picker) keep their type, a new one gets the default.
    const phones = draft.phones.map((p, i) => ({ p: p.trim(), type: draft.phoneTypes?.[i] ?? PHONE_TYPE_MOBILE })).filter((x) => x.p);
    syncRows(db, rawId, MIME.phone, phones.map((x) => ({ data1: x.p, data2: String(x.type), data4: e164(x.p) })));
    syncRows(db, rawId, MIME.email, draft.emails.map((e) => e.trim()).filter(Boolean).map((e) => ({ data1: e, data2: String(EMAIL_TYPE_HOME) })), true);
    // The name trigger only fires on a name row; a contact whose name was removed loses it here.
    if (!display) db.prepare('UPDATE raw_contacts SET display_name = NULL WHERE _id = ?').run(rawId);
    return rawId;
  });
  return tx();
}

type Values = { data1: string; data2?: string | null; data3?: string | null; data4?: string | null };

/**
 * Makes the contact's rows of one mimetype equal `want`, reusing existing rows in order. With
 * `keepType`, a reused row keeps its data2 (Phone/Email TYPE) and `want`'s data2 is only a default.
 */
function syncRows(db: Db, rawId: number, mimetype: string, want: Values[], keepType = false): void {
  const have = (db.prepare('SELECT _id FROM data WHERE raw_contact_id = ? AND mimetype = ? ORDER BY _id').all(rawId, mimetype) as Array<{ _id: number }>).map((r) => r._id);
  const update = db.prepare(`UPDATE data SET data1 = ?, data2 = ${keepType ? 'COALESCE(data2, ?)' : '?'}, data3 = ?, data4 = ? WHERE _id = ?`);
  want.forEach((v, i) => {
    const row = [v.data1, v.data2 ?? null, v.data3 ?? null, v.data4 ?? null];
    if (i < have.length) update.run(...row, have[i]);
    else db.prepare('INSERT INTO data (raw_contact_id, mimetype, is_primary, data1, data2, data3, data4) VALUES (?, ?, ?, ?, ?, ?, ?)').run(rawId, mimetype, i === 0 ? 1 : 0, ...row);
  });
  for (const extra of have.slice(want.length)) db.prepare('DELETE FROM data WHERE _id = ?').run(extra);
}

export function deleteContacts(db: Db, ids: readonly number[]): void {
  const del = db.prepare('DELETE FROM raw_contacts WHERE _id = ?');
  db.transaction(() => ids.forEach((id) => del.run(id)))();
}

export function setStarred(db: Db, id: number, starred: boolean): void {
  db.prepare('UPDATE raw_contacts SET starred = ? WHERE _id = ?').run(starred ? 1 : 0, id);
}
