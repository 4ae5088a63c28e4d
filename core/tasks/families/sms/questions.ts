import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { randomPeople } from '../../../seed-data/people.js';
import { CODE_SENDERS, FOLLOW_UPS, randomCode, randomDialogues, randomOutgoing } from '../../../seed-data/messages.js';
import { answerVerdict } from '../../validators/answers.js';
import { OracleError, screenSummary, type OracleUi } from '../../oracle.js';
import type { Action } from '../../../actions/schema.js';
import type { UiElement } from '../../../a11y/ui-tree.js';
import { ContactParam, conversation, conversationOpen, distractorThreads, formatPhone, lastBubble, olderThan, openConversation, openSms, SeedMessage, seedSms, smsOpen } from './common.js';
import { SMS_TYPE } from './sms-db.js';

/**
 * Questions answered from what Simple SMS Messenger shows: the last message from someone (not
 * the last one in the thread, which may be mine), how many messages are unread (count badges
 * down a list longer than the screen), and a one-time code from a short-code sender.
 */
const Latest = z.object({ name: z.string().min(1), answer: z.string().min(1), contacts: z.array(ContactParam), messages: z.array(SeedMessage) });

export const SmsLatestMessageQuestion = defineTask({
  id: 'SmsLatestMessageQuestion',
  apps: ['Simple SMS Messenger'],
  difficulty: 'medium',
  tags: ['information_retrieval', 'screen_reading'],
  kind: 'information_retrieval',
  template: 'What was the last message I received from {name} in Simple SMS Messenger? Answer with the text of the message only.',
  params: Latest,
  generate: (rng) => {
    const contacts = randomPeople(rng, rng.int(5, 8)).map((p) => ({ name: p.name, phone: formatPhone(rng, p.phone) }));
    // The target's conversation sits near, not always at, the top of the list.
    const rank = rng.int(0, 3);
    const dialogues = randomDialogues(rng, contacts.length + 1);
    const messages: SeedMessage[] = [];
    let answer = '';
    let end = rng.int(5, 120);
    contacts.forEach((c, i) => {
      if (i === rank) {
        // Two exchanges with the target, the later sometimes ending with my reply.
        const lines: string[] = [...dialogues[i]!];
        if (lines.length % 2 === 1 && rng.chance(0.6)) lines.push(randomOutgoing(rng));
        const target = [...conversation(rng, c.phone, dialogues[contacts.length]!, olderThan(rng, end)), ...conversation(rng, c.phone, lines, end)];
        answer = target.filter((m) => m.type === SMS_TYPE.inbox).at(-1)!.body;
        messages.push(...target);
      } else {
        messages.push(...conversation(rng, c.phone, dialogues[i]!, end));
      }
      end = olderThan(rng, end);
    });
    return { name: contacts[rank]!.name, answer, contacts, messages };
  },
  initialize: async (device, p) => seedSms(device, p.messages, p.contacts),
  check: async (_device, p, episode) => answerVerdict(episode.answer, p.answer),
  subgoals: (p) => [smsOpen, conversationOpen(p.name)],
  *oracle(p, ui) {
    yield* openSms(ui);
    yield* openConversation(ui, p.name);
    yield ui.answer(lastBubble(ui, 'received').node.text);
  },
});

const Unread = z.object({ total: z.int().min(1), messages: z.array(SeedMessage) });

/** Reads every unread badge down the conversation list, scrolling until the list stops moving. */
function* countBadges(ui: OracleUi): Generator<Action, number, void> {
  const byTitle = new Map<string, number>();
  for (let guard = 0; guard < 30; guard++) {
    for (const badge of ui.findAll({ resourceId: 'conversation_unread_count' })) {
      const row = ancestor(badge, 'conversation_frame');
      const title = row && ui.findAll({ resourceId: 'conversation_address' }).find((t) => ancestor(t, 'conversation_frame') === row);
      if (!title) throw new OracleError('Oracle found an unread badge outside a conversation row', screenSummary(ui.obs));
      byTitle.set(title.node.text, Number(badge.node.text));
    }
    const before = ui.fingerprint();
    yield ui.scroll('down');
    if (ui.fingerprint() === before) return [...byTitle.values()].reduce((s, n) => s + n, 0);
  }
  throw new OracleError('Oracle never reached the end of the conversation list', screenSummary(ui.obs));
}

function ancestor(el: UiElement, id: string): UiElement | null {
  let e = el.parent;
  while (e && !e.node.resourceId.endsWith(`:id/${id}`)) e = e.parent;
  return e;
}

export const SmsUnreadCountQuestion = defineTask({
  id: 'SmsUnreadCountQuestion',
  apps: ['Simple SMS Messenger'],
  difficulty: 'hard',
  tags: ['information_retrieval', 'math_counting', 'needs_scrolling'],
  kind: 'information_retrieval',
  template: 'How many unread text messages do I have in Simple SMS Messenger? Answer with a number.',
  params: Unread,
  generate: (rng) => {
    const addresses = randomPeople(rng, rng.int(11, 15)).map((p) => `+1${p.phone}`);
    const dialogues = randomDialogues(rng, addresses.length);
    // A few conversations, anywhere in the list, end with one to three unread messages.
    const unreadAt = new Set(rng.sample(addresses.map((_, i) => i), rng.int(2, 5)));
    const messages: SeedMessage[] = [];
    let total = 0;
    let end = rng.int(3, 60);
    addresses.forEach((address, i) => {
      const unread = unreadAt.has(i) ? rng.sample(FOLLOW_UPS, rng.int(1, 3)) : [];
      messages.push(...conversation(rng, address, dialogues[i]!, end + unread.length * 3 + rng.int(2, 60)));
      unread.forEach((body, j) => messages.push({ address, body, minutesAgo: end + (unread.length - 1 - j) * 3, type: SMS_TYPE.inbox, read: false }));
      total += unread.length;
      end = olderThan(rng, end + 60);
    });
    return { total, messages };
  },
  initialize: async (device, p) => seedSms(device, p.messages),
  check: async (_device, p, episode) => answerVerdict(episode.answer, String(p.total)),
  subgoals: () => [smsOpen],
  *oracle(_p, ui) {
    yield* openSms(ui);
    yield ui.answer(String(yield* countBadges(ui)));
  },
});

const Code = z.object({ service: z.string().min(1), code: z.string().regex(/^\d{6}$/), messages: z.array(SeedMessage) });

function codeText(service: string, code: string, style: number): string {
  return [
    `Your ${service} verification code is ${code}. Do not share it with anyone.`,
    `${code} is your ${service} verification code.`,
    `${service}: use code ${code} to sign in. It expires in 10 minutes.`,
  ][style % 3]!;
}

export const SmsVerificationCodeQuestion = defineTask({
  id: 'SmsVerificationCodeQuestion',
  apps: ['Simple SMS Messenger'],
  difficulty: 'easy',
  tags: ['information_retrieval', 'screen_reading'],
  kind: 'information_retrieval',
  template: 'What is the latest {service} verification code I received in Simple SMS Messenger? Answer with the code only.',
  params: Code,
  generate: (rng) => {
    const [sender, ...otherSenders] = rng.sample(CODE_SENDERS, 3);
    const style = rng.int(0, 2);
    const end = rng.int(2, 240);
    // Older codes from the same sender, then the latest; other services' codes and chats around it.
    const codes = Array.from({ length: rng.int(2, 3) }, () => randomCode(rng));
    const own = codes.map((c, i) => ({
      address: sender!.address, body: codeText(sender!.service, c, style), minutesAgo: end + (codes.length - 1 - i) * rng.int(600, 4000),
      type: SMS_TYPE.inbox, read: i < codes.length - 1,
    }));
    const others: SeedMessage[] = otherSenders.map((s) => ({
      address: s.address, body: codeText(s.service, randomCode(rng), rng.int(0, 2)), minutesAgo: rng.int(1, 3000), type: SMS_TYPE.inbox, read: rng.chance(0.5),
    }));
    const chats = distractorThreads(rng, randomPeople(rng, rng.int(2, 4)).map((p) => `+1${p.phone}`), rng.int(1, 200));
    return { service: sender!.service, code: codes.at(-1)!, messages: [...own, ...others, ...chats] };
  },
  initialize: async (device, p) => seedSms(device, p.messages),
  check: async (_device, p, episode) => answerVerdict(episode.answer, p.code),
  subgoals: () => [smsOpen],
  *oracle(p, ui) {
    yield* openSms(ui);
    // The list shows each conversation's latest message: the sender's snippet holds the newest code.
    const snippet = ui.findAll({ resourceId: 'conversation_body_short' }).find((e) => e.node.text.includes(p.service));
    const code = snippet ? /\b\d{6}\b/.exec(snippet.node.text)?.[0] : undefined;
    if (!code) throw new OracleError(`Oracle found no ${p.service} code`, screenSummary(ui.obs));
    yield ui.answer(code);
  },
});

export const QUESTION_TASKS: readonly TaskTemplate[] = [SmsLatestMessageQuestion, SmsUnreadCountQuestion, SmsVerificationCodeQuestion];
