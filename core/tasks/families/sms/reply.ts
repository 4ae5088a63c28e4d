import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { randomPeople, randomPhone } from '../../../seed-data/people.js';
import { randomDialogues, randomOutgoing } from '../../../seed-data/messages.js';
import { randomAddress } from '../../../seed-data/addresses.js';
import { pasteInto, scrollTo } from '../../oracle.js';
import { setClipboard } from '../../validators/clipboard.js';
import { onScreen } from '../../validators/ui.js';
import {
  chooseRecipient, ContactParam, conversation, conversationOpen, distractorThreads, formatPhone, lastBubble, messageSent, messageTyped,
  newConversationOpen, openConversation, openSms, phonePattern, SeedMessage, seedSms, sentVerdict, smsOpen, typeAndSend,
} from './common.js';

/**
 * Texts that start from what is already there: a reply in a number's conversation (AndroidWorld's
 * SimpleSmsReply), a text carrying the clipboard (SimpleSmsSendClipboardContent: long press, Paste),
 * and an address one contact just sent, texted on to another (SimpleSmsSendReceivedAddress).
 */
const Reply = z.object({ number: z.string().min(3), message: z.string().min(1), messages: z.array(SeedMessage) });

export const SmsReply = defineTask({
  id: 'SmsReply',
  apps: ['Simple SMS Messenger'],
  difficulty: 'easy',
  tags: ['data_entry', 'search'],
  kind: 'completion',
  template: 'Reply to {number} with message: {message} in Simple SMS Messenger',
  params: Reply,
  generate: (rng) => {
    const [target, ...others] = randomPeople(rng, rng.int(3, 6)).map((p) => `+1${p.phone}`);
    const [dialogue] = randomDialogues(rng, 1);
    // Their conversation is anywhere in the list, not necessarily the newest.
    const end = rng.int(5, 600);
    return {
      number: target!,
      message: randomOutgoing(rng),
      messages: [...conversation(rng, target!, dialogue!, end), ...distractorThreads(rng, others, rng.int(1, 120), [dialogue!])],
    };
  },
  initialize: async (device, p) => seedSms(device, p.messages),
  check: async (device, p) => sentVerdict(device, p.messages, p.number, p.message),
  subgoals: (p) => [smsOpen, conversationOpen(p.number), messageTyped(p.message), messageSent(p.messages, p.number, p.message)],
  *oracle(p, ui) {
    yield* openSms(ui);
    // The list shows the number as the conversation's title, written however it arrived.
    const el = yield* scrollTo(ui, { resourceId: 'conversation_address', text: phonePattern(p.number) });
    yield ui.tap(el);
    yield* typeAndSend(ui, p.message);
    yield ui.complete();
  },
});

const Clip = z.object({ number: z.string().min(3), clip: z.string().min(1), messages: z.array(SeedMessage) });

export const SmsSendClipboard = defineTask({
  id: 'SmsSendClipboard',
  apps: ['Simple SMS Messenger'],
  difficulty: 'medium',
  tags: ['data_entry', 'long_press', 'memorization'],
  kind: 'completion',
  template: 'Send a message to {number} with the clipboard content in Simple SMS Messenger',
  params: Clip,
  generate: (rng) => {
    const digits = randomPhone(rng);
    const others = randomPeople(rng, rng.int(2, 4)).map((p) => `+1${p.phone}`);
    return { number: formatPhone(rng, digits), clip: randomOutgoing(rng), messages: distractorThreads(rng, others, rng.int(5, 300)) };
  },
  initialize: async (device, p) => {
    await seedSms(device, p.messages);
    await setClipboard(device, p.clip);
  },
  check: async (device, p) => sentVerdict(device, p.messages, p.number, p.clip),
  subgoals: (p) => [smsOpen, newConversationOpen, messageTyped(p.clip), messageSent(p.messages, p.number, p.clip)],
  *oracle(p, ui) {
    yield* openSms(ui);
    yield ui.tap({ contentDesc: 'Start a conversation' });
    yield* chooseRecipient(ui, { number: p.number });
    yield* pasteInto(ui, { resourceId: 'thread_type_message' });
    yield ui.tap({ contentDesc: 'Send' });
    yield ui.complete();
  },
});

const Forward = z.object({
  to: ContactParam, from: ContactParam, address: z.string().min(1), contacts: z.array(ContactParam), messages: z.array(SeedMessage),
});

export const SmsForwardAddress = defineTask({
  id: 'SmsForwardAddress',
  apps: ['Simple SMS Messenger'],
  difficulty: 'medium',
  tags: ['data_entry', 'screen_reading', 'transcription'],
  kind: 'completion',
  template: 'Text the address of the event to {to} that {from} just sent me in Simple SMS Messenger',
  params: Forward,
  generate: (rng) => {
    const people = randomPeople(rng, rng.int(3, 6)).map((p) => ({ name: p.name, phone: formatPhone(rng, p.phone) }));
    const [to, from] = people;
    const address = randomAddress(rng);
    const [dialogue] = randomDialogues(rng, 1);
    // An older exchange with the sender, then the address, just now; others texted earlier.
    const earlier = conversation(rng, from!.phone, dialogue!, rng.int(60, 600));
    return {
      to: to!, from: from!, address, contacts: rng.shuffle(people),
      messages: [...earlier, { address: from!.phone, body: address, minutesAgo: 1, type: 1 as const, read: false },
        ...distractorThreads(rng, people.slice(2).map((c) => c.phone), rng.int(2, 60), [dialogue!])],
    };
  },
  instruction: (p) => `Text the address of the event to ${p.to.name} that ${p.from.name} just sent me in Simple SMS Messenger`,
  initialize: async (device, p) => seedSms(device, p.messages, p.contacts),
  check: async (device, p) => sentVerdict(device, p.messages, p.to.phone, p.address),
  subgoals: (p) => [
    smsOpen, conversationOpen(p.from.name),
    { name: 'address read', check: async ({ obs }) => onScreen(obs, { text: p.address }) },
    messageTyped(p.address), messageSent(p.messages, p.to.phone, p.address),
  ],
  *oracle(p, ui) {
    yield* openSms(ui);
    yield* openConversation(ui, p.from.name);
    const address = lastBubble(ui, 'received').node.text;
    yield ui.back();
    yield ui.tap({ contentDesc: 'Start a conversation' });
    yield* chooseRecipient(ui, { name: p.to.name });
    yield* typeAndSend(ui, address);
    yield ui.complete();
  },
});

export const REPLY_TASKS: readonly TaskTemplate[] = [SmsReply, SmsSendClipboard, SmsForwardAddress];
