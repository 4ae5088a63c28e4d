import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { Device } from '../../../device/device.js';
import type { UiElement } from '../../../a11y/ui-tree.js';
import type { Rng } from '../../../util/rng.js';
import { DEVICE_NOW } from '../../../seed-data/dates.js';
import { DIALOGUES } from '../../../seed-data/messages.js';
import { OracleError, launch, screenSummary, scrollTo, type OracleUi } from '../../oracle.js';
import type { Subgoal } from '../../task.js';
import { fieldHolds, inActivity, onScreen } from '../../validators/ui.js';
import { addContact, clearContacts } from '../contacts/contacts-db.js';
import { addReceivedMessage, addSentMessage, clearMessages, numberDigits, sameNumber, sentMessages, SMS_TYPE, type SmsRow } from './sms-db.js';
import { countIs, holds, met, verdictOf, type CheckVerdict } from '../../verdict.js';

/** What Simple SMS Messenger tasks share: seeded history, strict sent-message checks, oracle moves. */
export const SMS_APP = 'Simple SMS Messenger';
export const SMS_PKG = 'com.simplemobiletools.smsmessenger';
export const THREAD_ACTIVITY = `${SMS_PKG}.activities.ThreadActivity`;
export const NEW_CONVERSATION_ACTIVITY = `${SMS_PKG}.activities.NewConversationActivity`;

/** A message in the starting state, dated relative to the device's clock. */
export const SeedMessage = z.object({
  address: z.string().min(1),
  body: z.string().min(1),
  minutesAgo: z.int().min(1),
  type: z.union([z.literal(SMS_TYPE.inbox), z.literal(SMS_TYPE.sent)]),
  read: z.boolean(),
});
export type SeedMessage = z.infer<typeof SeedMessage>;

export const ContactParam = z.object({ name: z.string().min(1), phone: z.string().min(3) });
export type ContactParam = z.infer<typeof ContactParam>;

/** How people write numbers: the same digits in the styles a task may use. */
export function formatPhone(rng: Rng, digits: string): string {
  const [a, b, c] = [digits.slice(0, 3), digits.slice(3, 6), digits.slice(6)];
  return rng.pick([digits, `+1${digits}`, `(${a}) ${b}-${c}`, `${a}-${b}-${c}`, `+1 ${a}-${b}-${c}`]);
}

/**
 * One conversation: lines alternate, the other person first (or the user first), the last line
 * `endMinutesAgo` before now. Received lines are read unless `unread` says how many of the last
 * received ones are not.
 */
export function conversation(rng: Rng, address: string, lines: readonly string[], endMinutesAgo: number, opts: { meFirst?: boolean; unread?: number } = {}): SeedMessage[] {
  const out: SeedMessage[] = [];
  let t = endMinutesAgo;
  for (let i = lines.length - 1; i >= 0; i--) {
    const received = (i % 2 === 0) !== (opts.meFirst ?? false);
    out.unshift({ address, body: lines[i]!, minutesAgo: t, type: received ? SMS_TYPE.inbox : SMS_TYPE.sent, read: true });
    t += rng.int(2, 45);
  }
  let unread = opts.unread ?? 0;
  for (let i = out.length - 1; i >= 0 && unread > 0; i--) {
    if (out[i]!.type === SMS_TYPE.inbox) {
      out[i]!.read = false;
      unread--;
    }
  }
  return out;
}

/** The next older conversation ends between 1.5 hours and 2 days earlier. */
export function olderThan(rng: Rng, minutesAgo: number): number {
  return minutesAgo + rng.int(90, 2880);
}

/**
 * Distractor conversations, one per address, each older than the one before, the newest ending
 * before `afterMinutesAgo`. Lines come from the dialogue vocabulary, none of `avoid`.
 */
export function distractorThreads(rng: Rng, addresses: readonly string[], afterMinutesAgo: number, avoid: ReadonlyArray<readonly string[]> = []): SeedMessage[] {
  const pool = DIALOGUES.filter((d) => !avoid.includes(d));
  const dialogues = rng.sample(pool, addresses.length);
  const out: SeedMessage[] = [];
  let end = afterMinutesAgo;
  addresses.forEach((a, i) => {
    end = olderThan(rng, end);
    out.push(...conversation(rng, a, dialogues[i]!, end));
  });
  return out;
}

/** Sets up the provider: all messages replaced by `messages`; contacts replaced when given. */
export async function seedSms(device: Device, messages: readonly SeedMessage[], contacts?: readonly ContactParam[]): Promise<void> {
  await clearMessages(device);
  if (contacts) {
    await clearContacts(device);
    for (const c of contacts) await addContact(device, c);
  }
  for (const m of messages) {
    const date = DEVICE_NOW - m.minutesAgo * 60_000;
    if (m.type === SMS_TYPE.inbox) await addReceivedMessage(device, { address: m.address, body: m.body, date, read: m.read });
    else await addSentMessage(device, { address: m.address, body: m.body, date });
  }
}

/** Sent messages that were not in the starting state: what the agent sent. */
export async function newSentMessages(device: Device, seeded: readonly SeedMessage[]): Promise<SmsRow[]> {
  const pool = seeded.filter((m) => m.type === SMS_TYPE.sent);
  return (await sentMessages(device)).filter((r) => {
    const i = pool.findIndex((m) => sameNumber(m.address, r.address) && m.body === r.body);
    if (i < 0) return true;
    pool.splice(i, 1);
    return false;
  });
}

/** Exactly one new message was sent, to this number, with this text (surrounding spaces aside). */
export async function sentVerdict(device: Device, seeded: readonly SeedMessage[], to: string, body: string): Promise<CheckVerdict> {
  const sent = await newSentMessages(device, seeded);
  const m = sent[0];
  return verdictOf([
    countIs('new messages sent', 1, sent.length),
    holds(`message sent to ${to}`, m !== undefined && sameNumber(m.address, to), { expected: to, found: m ? m.address : 'no message sent' }),
    holds('message text', m !== undefined && m.body.trim() === body.trim(), { expected: body.trim(), found: m ? m.body.trim() : 'no message sent' }),
  ]);
}

// ------------------------------------------------------------------ oracle moves

export function* openSms(ui: OracleUi): Generator<Action, void, void> {
  yield* launch(ui, SMS_APP);
  // The app reopens where it was left (a thread that sending a text opened, as AndroidWorld's send_sms
  // leaves it): up to the conversation list, or open the app again when the thread was the task's root.
  if (!ui.exists({ contentDesc: 'Start a conversation' }) && ui.exists({ contentDesc: 'Navigate up' })) {
    yield ui.tap({ contentDesc: 'Navigate up' });
    if (!ui.exists({ contentDesc: 'Start a conversation' })) yield* launch(ui, SMS_APP);
  }
}

/** A number as a list or a title may write it: its digits with any separators, with or without +1. */
export function phonePattern(n: string): RegExp {
  const digits = numberDigits(n).split('');
  return new RegExp(`^\\+?1?[\\s().-]*${digits.join('[\\s().-]*')}$`);
}

/** Opens a conversation from the list by its title (contact name or number), scrolling to it. */
export function* openConversation(ui: OracleUi, title: string): Generator<Action, void, void> {
  const el = yield* scrollTo(ui, { resourceId: 'conversation_address', text: title });
  yield ui.tap(el);
}

export function* typeAndSend(ui: OracleUi, text: string): Generator<Action, void, void> {
  yield ui.type({ resourceId: 'thread_type_message' }, text);
  yield ui.tap({ contentDesc: 'Send' });
}

/** In "New conversation": picks a contact by name from the suggestions, or confirms a number. */
export function* chooseRecipient(ui: OracleUi, to: { name: string } | { number: string }): Generator<Action, void, void> {
  if ('name' in to) {
    yield ui.type({ resourceId: 'new_conversation_address' }, to.name);
    yield ui.tap({ resourceId: 'item_contact_name', text: to.name });
  } else {
    yield ui.type({ resourceId: 'new_conversation_address' }, to.number);
    yield ui.enter();
  }
}

/** The newest bubble of one side on screen: received ones hug the left edge, sent ones the right. */
export function lastBubble(ui: OracleUi, side: 'received' | 'sent'): UiElement {
  const edge = ui.obs.screen.width * 0.1;
  const bubbles = ui.findAll({ resourceId: 'thread_message_body' }).filter((e) => (e.node.bounds.left < edge) === (side === 'received'));
  const last = bubbles[bubbles.length - 1];
  if (!last) throw new OracleError(`Oracle found no ${side} message`, screenSummary(ui.obs));
  return last;
}

// ------------------------------------------------------------------ subgoals

export const smsOpen: Subgoal = {
  name: 'Simple SMS Messenger open',
  check: async ({ obs }) => inActivity(obs, SMS_PKG),
};

export function conversationOpen(title: string): Subgoal {
  return {
    name: `conversation with ${title} open`,
    check: async ({ obs }) => inActivity(obs, SMS_PKG, THREAD_ACTIVITY) && onScreen(obs, { resourceId: 'toolbar_title', text: title }),
  };
}

export const newConversationOpen: Subgoal = {
  name: 'new conversation screen open',
  check: async ({ obs }) => inActivity(obs, SMS_PKG, NEW_CONVERSATION_ACTIVITY),
};

export function messageTyped(text: string): Subgoal {
  return { name: 'message typed', check: async ({ obs }) => fieldHolds(obs, text) };
}

export function messageSent(seeded: readonly SeedMessage[], to: string, body: string): Subgoal {
  return { name: 'message sent', check: async ({ device }) => met(await sentVerdict(device, seeded, to, body)) };
}
