import type { SystemServices } from '../../runtime/app.js';
import { CONTACTS_DB, SMS_DB } from '../../system/providers.js';

/**
 * Simple SMS Messenger keeps no messages of its own: it reads and writes the Telephony provider
 * (mmssms.db), and names numbers from the Contacts provider. Conversations are grouped by phone
 * number compared digit-wise, as Android's PHONE_NUMBERS_EQUAL does, so "+1 555-010-2030" and
 * "5550102030" are one thread.
 */
export const SMS_TYPE = { inbox: 1, sent: 2, draft: 3, outbox: 4, failed: 5, queued: 6 } as const;

export interface Message {
  id: number;
  address: string;
  body: string;
  date: number;
  type: number;
  read: boolean;
}

export interface Conversation {
  /** The number key (see numberKey) the thread is grouped by. */
  key: string;
  /** The address as stored on the newest message. */
  address: string;
  name: string | null;
  snippet: string;
  date: number;
  unread: number;
  draft: string | null;
}

export interface Contact {
  id: number;
  name: string;
  numbers: string[];
}

/** Digits of a number without a leading US country code; non-numeric senders compare by name. */
export function numberKey(address: string): string {
  const d = address.replace(/\D/g, '');
  if (d === '') return `~${address.trim().toLowerCase()}`;
  return d.length === 11 && d.startsWith('1') ? d.slice(1) : d;
}

export function sameNumber(a: string, b: string): boolean {
  return numberKey(a) === numberKey(b);
}

/** Typed text that is a phone number rather than a name (the "Confirm selection" check shows). */
export function looksLikeNumber(text: string): boolean {
  const t = text.trim();
  return /^\+?[0-9()\-. ]+$/.test(t) && t.replace(/\D/g, '').length >= 3;
}

function sms(sys: SystemServices) {
  return sys.db(SMS_DB);
}

interface Row {
  _id: number;
  address: string | null;
  body: string | null;
  date: number;
  type: number;
  read: number;
}

export function allMessages(sys: SystemServices): Message[] {
  const rows = sms(sys).prepare('SELECT _id, address, body, date, type, read FROM sms ORDER BY date, _id').all() as Row[];
  return rows.map((r) => ({ id: r._id, address: r.address ?? '', body: r.body ?? '', date: r.date, type: r.type, read: r.read !== 0 }));
}

/** The contacts with phone numbers, by name (view_phones, primary numbers first). */
export function contactList(sys: SystemServices): Contact[] {
  const rows = sys.db(CONTACTS_DB)
    .prepare('SELECT contact_id, display_name, number FROM view_phones ORDER BY display_name COLLATE NOCASE, contact_id, is_primary DESC, _id')
    .all() as Array<{ contact_id: number; display_name: string | null; number: string | null }>;
  const byId = new Map<number, Contact>();
  for (const r of rows) {
    if (!r.number) continue;
    let c = byId.get(r.contact_id);
    if (!c) {
      c = { id: r.contact_id, name: r.display_name ?? r.number, numbers: [] };
      byId.set(r.contact_id, c);
    }
    if (!c.numbers.some((n) => sameNumber(n, r.number!))) c.numbers.push(r.number);
  }
  return [...byId.values()];
}

/** Contact names by number key. */
export function contactNames(sys: SystemServices): Map<string, string> {
  const names = new Map<string, string>();
  for (const c of contactList(sys)) for (const n of c.numbers) if (!names.has(numberKey(n))) names.set(numberKey(n), c.name);
  return names;
}

export function contactName(sys: SystemServices, address: string): string | null {
  return contactNames(sys).get(numberKey(address)) ?? null;
}

/** One row per conversation, newest first. */
export function conversations(sys: SystemServices): Conversation[] {
  const names = contactNames(sys);
  const byKey = new Map<string, Conversation>();
  // The newest row of each thread: texts delivered within one device millisecond (the clock can stand
  // still) list by arrival, as the app's threads table orders them, not by address.
  const lastId = new Map<string, number>();
  for (const m of allMessages(sys)) {
    lastId.set(numberKey(m.address), Math.max(lastId.get(numberKey(m.address)) ?? 0, m.id));
    const key = numberKey(m.address);
    let c = byKey.get(key);
    if (!c) {
      c = { key, address: m.address, name: names.get(key) ?? null, snippet: '', date: 0, unread: 0, draft: null };
      byKey.set(key, c);
    }
    if (m.type === SMS_TYPE.draft) {
      c.draft = m.body;
    } else {
      c.snippet = m.body;
      c.address = m.address;
    }
    c.date = Math.max(c.date, m.date);
    if (m.type === SMS_TYPE.inbox && !m.read) c.unread++;
  }
  return [...byKey.values()].sort((a, b) => b.date - a.date || lastId.get(b.key)! - lastId.get(a.key)!);
}

/** The messages of one conversation, oldest first (drafts are the text box's, not bubbles). */
export function threadMessages(sys: SystemServices, address: string): Message[] {
  return allMessages(sys).filter((m) => m.type !== SMS_TYPE.draft && sameNumber(m.address, address));
}

export function draftFor(sys: SystemServices, address: string): string | null {
  const d = allMessages(sys).filter((m) => m.type === SMS_TYPE.draft && sameNumber(m.address, address));
  return d.length ? d[d.length - 1]!.body : null;
}

function idsOf(sys: SystemServices, address: string, pred: (m: Message) => boolean = () => true): number[] {
  return allMessages(sys).filter((m) => sameNumber(m.address, address) && pred(m)).map((m) => m.id);
}

function updateIds(sys: SystemServices, sql: string, ids: number[]): void {
  if (ids.length === 0) return;
  sms(sys).prepare(`${sql} WHERE _id IN (${ids.map(() => '?').join(', ')})`).run(...ids);
}

/** The address to write for a number: an existing thread's, so a reply stays in its thread. */
export function canonicalAddress(sys: SystemServices, typed: string): string {
  const existing = allMessages(sys).filter((m) => sameNumber(m.address, typed));
  if (existing.length) return existing[existing.length - 1]!.address;
  const t = typed.trim();
  return looksLikeNumber(t) ? t.replace(/[^\d+]/g, '') : t;
}

/** Sends an SMS: Telephony stores it in the sent box (the simulated radio always delivers). */
export function sendMessage(sys: SystemServices, address: string, body: string): void {
  const now = sys.clock.now();
  deleteDraft(sys, address);
  sms(sys)
    .prepare('INSERT INTO sms (address, body, date, date_sent, type, read, seen, status) VALUES (?, ?, ?, ?, ?, 1, 1, -1)')
    .run(address, body, now, now, SMS_TYPE.sent);
}

export function saveDraft(sys: SystemServices, address: string, body: string): void {
  deleteDraft(sys, address);
  sms(sys).prepare('INSERT INTO sms (address, body, date, type, read, seen) VALUES (?, ?, ?, ?, 1, 1)').run(address, body, sys.clock.now(), SMS_TYPE.draft);
}

export function deleteDraft(sys: SystemServices, address: string): void {
  updateIds(sys, 'DELETE FROM sms', idsOf(sys, address, (m) => m.type === SMS_TYPE.draft));
}

export function markThreadRead(sys: SystemServices, address: string): void {
  updateIds(sys, 'UPDATE sms SET read = 1, seen = 1', idsOf(sys, address, (m) => !m.read));
}

/** "Mark as Unread" flags the newest received message, so the thread shows one unread. */
export function markThreadUnread(sys: SystemServices, address: string): void {
  const ids = idsOf(sys, address, (m) => m.type === SMS_TYPE.inbox);
  if (ids.length) updateIds(sys, 'UPDATE sms SET read = 0, seen = 0', [ids[ids.length - 1]!]);
}

/** Deletes every message of a conversation and its thread record. */
export function deleteThread(sys: SystemServices, address: string): void {
  const msgs = allMessages(sys).filter((m) => sameNumber(m.address, address));
  updateIds(sys, 'DELETE FROM sms', msgs.map((m) => m.id));
  const addresses = [...new Set(msgs.map((m) => m.address))];
  if (addresses.length) sms(sys).prepare(`DELETE FROM threads WHERE recipient_ids IN (${addresses.map(() => '?').join(', ')})`).run(...addresses);
}

export function deleteMessage(sys: SystemServices, id: number): void {
  sms(sys).prepare('DELETE FROM sms WHERE _id = ?').run(id);
}

export function messageById(sys: SystemServices, id: number): Message | undefined {
  return allMessages(sys).find((m) => m.id === id);
}
