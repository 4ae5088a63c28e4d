import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { randomPeople, randomPhone, LAST_NAMES } from '../../../seed-data/people.js';
import { randomDialogues, randomOutgoing } from '../../../seed-data/messages.js';
import { chooseRecipient, ContactParam, conversation, conversationOpen, distractorThreads, formatPhone, lastBubble, messageSent, messageTyped, newConversationOpen, openConversation, openSms, SeedMessage, seedSms, sentVerdict, smsOpen, typeAndSend } from './common.js';

/**
 * Sending texts: to a number, to a contact by name (with a namesake to avoid), replying to the
 * newest message, and resending the last one sent. Each checker wants exactly one new sent
 * message, to the right number (compared digit-wise), with exactly the right text.
 */
const Send = z.object({ number: z.string().min(3), message: z.string().min(1), messages: z.array(SeedMessage) });

export const SmsSendMessage = defineTask({
  id: 'SmsSendMessage',
  apps: ['Simple SMS Messenger'],
  difficulty: 'easy',
  tags: ['data_entry'],
  kind: 'completion',
  template: 'Send a text message using Simple SMS Messenger to {number} with message: {message}',
  params: Send,
  generate: (rng) => {
    const digits = randomPhone(rng);
    const others = randomPeople(rng, rng.int(3, 5)).map((p) => p.phone).filter((d) => d !== digits);
    // A number that differs only in its last digits: sending to the look-alike thread is wrong.
    if (rng.chance(0.5)) others.splice(rng.int(0, others.length), 0, `${digits.slice(0, 6)}${String((Number(digits.slice(6)) + rng.int(1, 999)) % 10000).padStart(4, '0')}`);
    return {
      number: formatPhone(rng, digits),
      message: randomOutgoing(rng),
      messages: distractorThreads(rng, others.map((d) => `+1${d}`), rng.int(5, 300)),
    };
  },
  initialize: async (device, p) => seedSms(device, p.messages),
  check: async (device, p) => sentVerdict(device, p.messages, p.number, p.message),
  subgoals: (p) => [smsOpen, newConversationOpen, messageTyped(p.message), messageSent(p.messages, p.number, p.message)],
  *oracle(p, ui) {
    yield* openSms(ui);
    yield ui.tap({ contentDesc: 'Start a conversation' });
    yield* chooseRecipient(ui, { number: p.number });
    yield* typeAndSend(ui, p.message);
    yield ui.complete();
  },
});

const Reply = z.object({ target: z.string().min(3), message: z.string().min(1), messages: z.array(SeedMessage) });

export const SmsReplyToMostRecent = defineTask({
  id: 'SmsReplyToMostRecent',
  apps: ['Simple SMS Messenger'],
  difficulty: 'medium',
  tags: ['data_entry', 'screen_reading'],
  kind: 'completion',
  template: 'Reply to the most recent text message using Simple SMS Messenger with message: {message}',
  params: Reply,
  generate: (rng) => {
    const addresses = randomPeople(rng, rng.int(4, 6)).map((p) => formatPhone(rng, p.phone).replace(/[^\d+]/g, ''));
    const [dialogue] = randomDialogues(rng, 1);
    // The target's conversation ends with their message, newer than anything else.
    const lines = dialogue!.slice(0, dialogue!.length % 2 === 1 ? dialogue!.length : dialogue!.length - 1);
    const end = rng.int(2, 90);
    return {
      target: addresses[0]!,
      message: randomOutgoing(rng),
      messages: [...conversation(rng, addresses[0]!, lines, end, { unread: 1 }), ...distractorThreads(rng, addresses.slice(1), end + 30, [dialogue!])],
    };
  },
  initialize: async (device, p) => seedSms(device, p.messages),
  check: async (device, p) => sentVerdict(device, p.messages, p.target, p.message),
  subgoals: (p) => [smsOpen, conversationOpen(p.target), messageTyped(p.message), messageSent(p.messages, p.target, p.message)],
  *oracle(p, ui) {
    yield* openSms(ui);
    // The list is newest first: the top conversation holds the most recent message.
    yield ui.tap(ui.require({ resourceId: 'conversation_frame' }));
    yield* typeAndSend(ui, p.message);
    yield ui.complete();
  },
});

const Resend = z.object({
  name: z.string().min(1), phone: z.string().min(3), body: z.string().min(1),
  contacts: z.array(ContactParam), messages: z.array(SeedMessage),
});

export const SmsResendLastMessage = defineTask({
  id: 'SmsResendLastMessage',
  apps: ['Simple SMS Messenger'],
  difficulty: 'medium',
  tags: ['data_entry', 'screen_reading', 'transcription'],
  kind: 'completion',
  template: 'Resend the message I just sent to {name} in Simple SMS Messenger.',
  params: Resend,
  generate: (rng) => {
    const people = randomPeople(rng, rng.int(4, 6));
    const contacts = people.map((p) => ({ name: p.name, phone: formatPhone(rng, p.phone) }));
    const [dialogue] = randomDialogues(rng, 1);
    const body = randomOutgoing(rng);
    // Their lines and mine, then the message to resend, sent a few minutes ago.
    const lines = [...dialogue!.slice(0, dialogue!.length % 2 === 1 ? dialogue!.length : dialogue!.length - 1), body];
    const end = rng.int(1, 20);
    const target = conversation(rng, contacts[0]!.phone, lines, end);
    return {
      name: contacts[0]!.name, phone: contacts[0]!.phone, body, contacts,
      messages: [...target, ...distractorThreads(rng, contacts.slice(1).map((c) => c.phone), end, [dialogue!])],
    };
  },
  initialize: async (device, p) => seedSms(device, p.messages, p.contacts),
  check: async (device, p) => sentVerdict(device, p.messages, p.phone, p.body),
  subgoals: (p) => [smsOpen, conversationOpen(p.name), messageTyped(p.body), messageSent(p.messages, p.phone, p.body)],
  *oracle(p, ui) {
    yield* openSms(ui);
    yield* openConversation(ui, p.name);
    yield* typeAndSend(ui, lastBubble(ui, 'sent').node.text);
    yield ui.complete();
  },
});

const ToContact = z.object({
  name: z.string().min(1), phone: z.string().min(3), message: z.string().min(1),
  contacts: z.array(ContactParam), messages: z.array(SeedMessage),
});

export const SmsSendToContactByName = defineTask({
  id: 'SmsSendToContactByName',
  apps: ['Simple SMS Messenger'],
  difficulty: 'medium',
  tags: ['data_entry', 'search'],
  kind: 'completion',
  template: 'Send a text message using Simple SMS Messenger to {name} with message: {message}',
  params: ToContact,
  generate: (rng) => {
    const people = randomPeople(rng, rng.int(4, 6));
    const target = people[0]!;
    // A namesake: same first name, another surname and number.
    const twin = { name: `${target.first} ${rng.pick(LAST_NAMES.filter((l) => l !== target.last))}`, phone: formatPhone(rng, randomPhone(rng)) };
    const contacts = rng.shuffle([...people.map((p) => ({ name: p.name, phone: formatPhone(rng, p.phone) })), twin]);
    const phone = contacts.find((c) => c.name === target.name)!.phone;
    // Conversations with some of the others (the namesake among them, sometimes), none with the target.
    const others = contacts.filter((c) => c.name !== target.name && (c === twin ? rng.chance(0.6) : rng.chance(0.7)));
    return {
      name: target.name, phone, message: randomOutgoing(rng), contacts,
      messages: distractorThreads(rng, others.map((c) => c.phone), rng.int(5, 240)),
    };
  },
  initialize: async (device, p) => seedSms(device, p.messages, p.contacts),
  check: async (device, p) => sentVerdict(device, p.messages, p.phone, p.message),
  subgoals: (p) => [smsOpen, newConversationOpen, conversationOpen(p.name), messageTyped(p.message), messageSent(p.messages, p.phone, p.message)],
  *oracle(p, ui) {
    yield* openSms(ui);
    yield ui.tap({ contentDesc: 'Start a conversation' });
    yield* chooseRecipient(ui, { name: p.name });
    yield* typeAndSend(ui, p.message);
    yield ui.complete();
  },
});

export const SEND_TASKS: readonly TaskTemplate[] = [SmsSendMessage, SmsReplyToMostRecent, SmsResendLastMessage, SmsSendToContactByName];
