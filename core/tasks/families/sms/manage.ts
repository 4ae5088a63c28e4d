import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { randomPeople } from '../../../seed-data/people.js';
import { randomDialogues, randomOutgoing } from '../../../seed-data/messages.js';
import { onScreen } from '../../validators/ui.js';
import { chooseRecipient, ContactParam, conversation, conversationOpen, distractorThreads, formatPhone, lastBubble, messageSent, newConversationOpen, openConversation, openSms, SeedMessage, seedSms, sentVerdict, smsOpen } from './common.js';
import { allMessages, sameNumber, SMS_TYPE } from './sms-db.js';
import { countIs, eachHolds, verdictOf } from '../../verdict.js';

/**
 * Managing conversations: deleting one (a confirmation dialog, often below the fold of a long
 * list) and forwarding a received message to another contact (long-press, then the new
 * conversation screen with the text carried over).
 */
const Delete = z.object({
  who: z.string().min(1), address: z.string().min(3), contacts: z.array(ContactParam), messages: z.array(SeedMessage),
});

export const SmsDeleteConversation = defineTask({
  id: 'SmsDeleteConversation',
  apps: ['Simple SMS Messenger'],
  difficulty: 'medium',
  tags: ['deletion', 'dialog', 'needs_scrolling'],
  kind: 'completion',
  template: 'Delete the conversation with {who} in Simple SMS Messenger.',
  params: Delete,
  generate: (rng) => {
    const people = randomPeople(rng, rng.int(10, 15));
    // About half the conversations are with contacts (shown by name), the rest with bare numbers.
    const contacts = people.filter(() => rng.chance(0.5)).map((p) => ({ name: p.name, phone: formatPhone(rng, p.phone) }));
    const addresses = people.map((p) => contacts.find((c) => c.name === p.name)?.phone ?? `+1${p.phone}`);
    const messages = distractorThreads(rng, addresses, rng.int(5, 120));
    const target = rng.int(0, people.length - 1);
    const address = addresses[target]!;
    return { who: contacts.find((c) => c.phone === address)?.name ?? address, address, contacts, messages };
  },
  initialize: async (device, p) => seedSms(device, p.messages, p.contacts),
  check: async (device, p) => {
    const left = (await allMessages(device)).filter((m) => m.type !== SMS_TYPE.draft);
    const target = left.filter((m) => sameNumber(m.address, p.address)).length;
    if (target > 0) return verdictOf([countIs(`messages left with ${p.address}`, 0, target)]);
    // Every other conversation is intact.
    const others = p.messages.filter((m) => !sameNumber(m.address, p.address));
    return verdictOf([
      countIs(`messages left with ${p.address}`, 0, 0),
      countIs('messages left in other conversations', others.length, left.length),
      eachHolds('the other conversations\' messages kept', others, (m) => left.some((r) => sameNumber(r.address, m.address) && r.body === m.body), (m) => `${m.address}: ${m.body}`),
    ]);
  },
  subgoals: (p) => [
    smsOpen,
    conversationOpen(p.who),
    { name: 'delete confirmation shown', check: async ({ obs }) => onScreen(obs, { resourceId: 'android:id/message', textContains: 'delete all messages' }) },
    { name: 'conversation deleted', check: async ({ device }) => !(await allMessages(device)).some((m) => sameNumber(m.address, p.address)) },
  ],
  *oracle(p, ui) {
    yield* openSms(ui);
    yield* openConversation(ui, p.who);
    yield ui.tap({ contentDesc: 'More options' });
    yield ui.tap({ text: 'Delete' });
    yield ui.tap({ text: 'Yes' });
    yield ui.complete();
  },
});

const Forward = z.object({
  from: z.string().min(1), to: z.string().min(1), toPhone: z.string().min(3), body: z.string().min(1),
  contacts: z.array(ContactParam), messages: z.array(SeedMessage),
});

export const SmsForwardMessage = defineTask({
  id: 'SmsForwardMessage',
  apps: ['Simple SMS Messenger'],
  difficulty: 'hard',
  tags: ['long_press', 'complex_ui', 'screen_reading'],
  kind: 'completion',
  template: 'Forward the last message I received from {from} to {to} using Simple SMS Messenger.',
  params: Forward,
  generate: (rng) => {
    const people = randomPeople(rng, rng.int(4, 6));
    const contacts = people.map((p) => ({ name: p.name, phone: formatPhone(rng, p.phone) }));
    const [from, to, ...rest] = contacts;
    const [dialogue] = randomDialogues(rng, 1);
    // Their last message, sometimes followed by my answer to it.
    const lines: string[] = dialogue!.slice(0, dialogue!.length % 2 === 1 ? dialogue!.length : dialogue!.length - 1);
    if (rng.chance(0.5)) lines.push(randomOutgoing(rng));
    const end = rng.int(5, 180);
    const withTo = rng.chance(0.5) ? [to!.phone] : [];
    return {
      from: from!.name, to: to!.name, toPhone: to!.phone, body: lines[lines.length - (lines.length % 2 === 1 ? 1 : 2)]!, contacts,
      messages: [...conversation(rng, from!.phone, lines, end), ...distractorThreads(rng, [...withTo, ...rest.map((c) => c.phone)], end, [dialogue!])],
    };
  },
  initialize: async (device, p) => seedSms(device, p.messages, p.contacts),
  check: async (device, p) => sentVerdict(device, p.messages, p.toPhone, p.body),
  subgoals: (p) => [smsOpen, conversationOpen(p.from), newConversationOpen, conversationOpen(p.to), messageSent(p.messages, p.toPhone, p.body)],
  *oracle(p, ui) {
    yield* openSms(ui);
    yield* openConversation(ui, p.from);
    yield ui.longPress(lastBubble(ui, 'received'));
    yield ui.tap({ text: 'Forward' });
    yield* chooseRecipient(ui, { name: p.to });
    yield ui.tap({ contentDesc: 'Send' });
    yield ui.complete();
  },
});

export const MANAGE_TASKS: readonly TaskTemplate[] = [SmsDeleteConversation, SmsForwardMessage];
