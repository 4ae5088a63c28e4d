import type { SystemServices } from '../../runtime/app.js';
import { CALLLOG_DB, CONTACTS_DB, MIME } from '../../system/providers.js';
import { CALL_TYPE } from '../../system/telephony.js';

/** The dialer's reads of the Contacts provider and the call log, and the row a call it placed leaves. */
export interface DialerContact {
  id: number;
  name: string;
  phone: string | null;
  starred: boolean;
}

export interface CallRow {
  _id: number;
  number: string;
  date: number;
  duration: number;
  type: number;
  name: string | null;
}

export function dialerContacts(sys: SystemServices): DialerContact[] {
  const rows = sys.db(CONTACTS_DB).prepare(`
    SELECT r._id AS id, r.display_name AS name, r.starred AS starred,
           (SELECT d.data1 FROM data d WHERE d.raw_contact_id = r._id AND d.mimetype = ? ORDER BY d._id LIMIT 1) AS phone
    FROM raw_contacts r WHERE r.deleted = 0`).all(MIME.phone) as Array<{ id: number; name: string | null; starred: number; phone: string | null }>;
  return rows
    .map((r) => ({ id: r.id, name: (r.name ?? '').trim() || (r.phone ?? '').trim() || '(No name)', phone: r.phone, starred: r.starred === 1 }))
    .sort((a, b) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }) || a.id - b.id);
}

/** Digits only, for matching a number to a contact whatever its formatting. */
const digits = (n: string) => n.replace(/\D/g, '').slice(-10);

export function nameForNumber(sys: SystemServices, number: string): string | null {
  const d = digits(number);
  if (!d) return null;
  return dialerContacts(sys).find((c) => c.phone && digits(c.phone) === d)?.name ?? null;
}

/** The call log, newest first. */
export function recentCalls(sys: SystemServices): CallRow[] {
  return sys.db(CALLLOG_DB).prepare('SELECT _id, number, date, duration, type, name FROM calls ORDER BY date DESC, _id DESC').all() as CallRow[];
}

/** Writes the call this dialer placed to the call log when it ends, as Telecom does (OUTGOING, seconds connected). */
export function logOutgoingCall(sys: SystemServices, number: string, startedAt: number, endedAt: number): void {
  sys.db(CALLLOG_DB)
    .prepare('INSERT INTO calls (number, date, duration, type, new, name, is_read) VALUES (?, ?, ?, ?, 0, ?, 1)')
    .run(number, startedAt, Math.floor((endedAt - startedAt) / 1000), CALL_TYPE.OUTGOING, nameForNumber(sys, number));
}

export const CALL_TYPE_LABEL: Record<number, string> = { [CALL_TYPE.INCOMING]: 'Incoming', [CALL_TYPE.OUTGOING]: 'Outgoing', [CALL_TYPE.MISSED]: 'Missed' };
