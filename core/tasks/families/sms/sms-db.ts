import type { Device } from '../../../device/device.js';
import { contentDelete, contentInsert, contentQuery } from '../../validators/content.js';

/**
 * Text messages through the Telephony provider (`content://sms`), the way AndroidWorld sets up and
 * checks Simple SMS Messenger tasks: these helpers work on SimDroid and on a real emulator alike.
 * Multi-app tasks reuse them.
 */
export const SMS_URI = 'content://sms';
export const SMS_INBOX_URI = 'content://sms/inbox';
export const SMS_SENT_URI = 'content://sms/sent';
export const THREADS_URI = 'content://sms/conversations';

/** Telephony's message types. */
export const SMS_TYPE = { inbox: 1, sent: 2, draft: 3, outbox: 4, failed: 5, queued: 6 } as const;

export interface SmsRow {
  id: number;
  address: string;
  body: string;
  date: number;
  type: number;
  read: boolean;
}

/** Digits of a number, a leading US country code dropped ("+1 (415) 555-0123" → "4155550123"). */
export function numberDigits(n: string): string {
  const d = n.replace(/\D/g, '');
  return d.length === 11 && d.startsWith('1') ? d.slice(1) : d;
}

/** Two phone numbers are the same when their digits are (tolerating a leading US 1). */
export function sameNumber(a: string, b: string): boolean {
  const da = numberDigits(a);
  return da !== '' && da === numberDigits(b);
}

export interface NewMessage {
  address: string;
  body: string;
  /** Epoch ms; the device's current time when absent. */
  date?: number;
  read?: boolean;
}

/** A message received from `address` (the inbox). */
export async function addReceivedMessage(device: Device, m: NewMessage): Promise<void> {
  const read = m.read ?? false;
  await contentInsert(device, SMS_INBOX_URI, {
    address: m.address, body: m.body, read: read ? 1 : 0, seen: read ? 1 : 0,
    ...(m.date !== undefined ? { date: m.date, date_sent: m.date } : {}),
  });
}

/** A message the user sent to `address` (the sent box). */
export async function addSentMessage(device: Device, m: Omit<NewMessage, 'read'>): Promise<void> {
  await contentInsert(device, SMS_SENT_URI, {
    address: m.address, body: m.body, read: 1, seen: 1,
    ...(m.date !== undefined ? { date: m.date, date_sent: m.date } : {}),
  });
}

/** Deletes every message and conversation. */
export async function clearMessages(device: Device): Promise<void> {
  await contentDelete(device, SMS_URI);
  await contentDelete(device, THREADS_URI);
}

const COLUMNS = ['_id', 'address', 'body', 'date', 'type', 'read'] as const;

async function query(device: Device, uri: string, where?: string): Promise<SmsRow[]> {
  const rows = await contentQuery(device, uri, COLUMNS, { ...(where ? { where } : {}), sort: 'date ASC, _id ASC' });
  return rows.map((r) => ({
    id: Number(r._id), address: r.address ?? '', body: r.body ?? '', date: Number(r.date), type: Number(r.type), read: r.read === '1',
  }));
}

/** Every message (all boxes, drafts included), oldest first. */
export async function allMessages(device: Device): Promise<SmsRow[]> {
  return query(device, SMS_URI);
}

/** The sent box, oldest first. */
export async function sentMessages(device: Device): Promise<SmsRow[]> {
  return query(device, SMS_SENT_URI);
}

/** The inbox, oldest first. */
export async function receivedMessages(device: Device): Promise<SmsRow[]> {
  return query(device, SMS_INBOX_URI);
}

/** Messages exchanged with a number (any box), oldest first. */
export async function messagesWith(device: Device, address: string): Promise<SmsRow[]> {
  return (await allMessages(device)).filter((m) => sameNumber(m.address, address));
}
