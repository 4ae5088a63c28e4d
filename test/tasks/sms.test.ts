import { afterAll, describe, expect, it } from 'vitest';
import { instantiate } from '../../core/tasks/instance.js';
import { resetForTask, runEpisode } from '../../core/episode/runner.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { SmsReplyToMostRecent, SmsResendLastMessage, SmsSendMessage, SmsSendToContactByName } from '../../core/tasks/families/sms/send.js';
import { SmsDeleteConversation, SmsForwardMessage } from '../../core/tasks/families/sms/manage.js';
import { SmsLatestMessageQuestion, SmsUnreadCountQuestion, SmsVerificationCodeQuestion } from '../../core/tasks/families/sms/questions.js';
import { SMS_TASKS } from '../../core/tasks/families/sms/index.js';
import { addReceivedMessage, addSentMessage, allMessages, numberDigits, sameNumber } from '../../core/tasks/families/sms/sms-db.js';
import { contentDelete } from '../../core/tasks/validators/content.js';
import { device, find, longPress, sh, tap, typeInto } from '../helpers/simdroid.js';

/** Each Simple SMS Messenger checker accepts the right end state and rejects near misses. */
const d = device();
afterAll(() => d.close());

const nothing = { actions: [] };
const answer = (text: string) => ({ actions: [], answer: text });

async function start<P>(t: TaskTemplate<P>, seed = 1): Promise<P> {
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return inst.params;
}

const send = (address: string, body: string) => addSentMessage(d, { address, body });

function openSms(): void {
  sh(d, 'am start -n com.simplemobiletools.smsmessenger/.activities.MainActivity');
  if (find(d, { text: 'Allow' })) tap(d, { text: 'Allow' });
}

describe('Simple SMS Messenger templates', () => {
  it('has at least 7 templates with easy, medium and hard ones and two or more questions', () => {
    expect(SMS_TASKS.length).toBeGreaterThanOrEqual(7);
    expect(new Set(SMS_TASKS.map((t) => t.difficulty))).toEqual(new Set(['easy', 'medium', 'hard']));
    expect(SMS_TASKS.filter((t) => t.kind === 'information_retrieval').length).toBeGreaterThanOrEqual(2);
    expect(SMS_TASKS.every((t) => t.id.startsWith('Sms'))).toBe(true);
  });

  it('draws different instances from different seeds', () => {
    for (const t of SMS_TASKS) {
      const keys = new Set([0, 1, 2, 3, 4].map((s) => JSON.stringify(instantiate(t, s).params)));
      expect(keys.size, t.id).toBe(5);
    }
  });

  it('SmsSendMessage: the exact text to that number, once, and nothing else', async () => {
    const p = await start(SmsSendMessage);
    expect((await SmsSendMessage.check(d, p, nothing)).ok).toBe(false);
    await send(`+1 ${numberDigits(p.number)}`, p.message);
    expect((await SmsSendMessage.check(d, p, nothing)).ok).toBe(true);
    await send('+15550000000', 'Extra');
    expect((await SmsSendMessage.check(d, p, nothing)).ok).toBe(false);

    await start(SmsSendMessage);
    await send(p.number, `${p.message}!`);
    expect((await SmsSendMessage.check(d, p, nothing)).ok).toBe(false);
    await start(SmsSendMessage);
    await send(`${numberDigits(p.number).slice(0, 9)}9`, p.message);
    expect((await SmsSendMessage.check(d, p, nothing)).ok).toBe(numberDigits(p.number).endsWith('9'));
    await start(SmsSendMessage);
    await send(p.number, p.message);
    await send(p.number, p.message);
    expect((await SmsSendMessage.check(d, p, nothing)).ok).toBe(false);
  });

  it('SmsSendMessage: typing without sending leaves a draft, which is not a sent message', async () => {
    const p = await start(SmsSendMessage, 2);
    openSms();
    tap(d, { contentDesc: 'Start a conversation' });
    typeInto(d, { resourceId: 'new_conversation_address' }, p.number);
    d.inputSync({ kind: 'key', key: 'ENTER' });
    typeInto(d, { resourceId: 'thread_type_message' }, p.message);
    d.inputSync({ kind: 'key', key: 'BACK' });
    d.inputSync({ kind: 'key', key: 'BACK' });
    expect((await allMessages(d)).some((m) => m.type === 3 && m.body === p.message)).toBe(true);
    expect((await SmsSendMessage.check(d, p, nothing)).ok).toBe(false);
  });

  it('SmsReplyToMostRecent: only a reply to the newest conversation counts', async () => {
    const p = await start(SmsReplyToMostRecent);
    const other = p.messages.find((m) => !sameNumber(m.address, p.target))!.address;
    await send(other, p.message);
    expect((await SmsReplyToMostRecent.check(d, p, nothing)).ok).toBe(false);
    await start(SmsReplyToMostRecent);
    await send(p.target, p.message);
    expect((await SmsReplyToMostRecent.check(d, p, nothing)).ok).toBe(true);
    // The newest message is theirs, and unread.
    const newest = [...p.messages].sort((a, b) => a.minutesAgo - b.minutesAgo)[0]!;
    expect(newest).toMatchObject({ address: p.target, type: 1, read: false });
  });

  it('SmsResendLastMessage: the same text again, to the same person', async () => {
    // Seed 2: the conversation has an earlier message of mine besides the last one.
    const p = await start(SmsResendLastMessage, 2);
    expect((await SmsResendLastMessage.check(d, p, nothing)).ok).toBe(false);
    const earlier = p.messages.find((m) => m.type === 2 && sameNumber(m.address, p.phone) && m.body !== p.body)!;
    expect(earlier).toBeDefined();
    await send(p.phone, earlier.body);
    expect((await SmsResendLastMessage.check(d, p, nothing)).ok).toBe(false);
    await start(SmsResendLastMessage, 2);
    await send(p.contacts.find((c) => c.name !== p.name)!.phone, p.body);
    expect((await SmsResendLastMessage.check(d, p, nothing)).ok).toBe(false);
    await start(SmsResendLastMessage, 2);
    await send(p.phone, p.body);
    expect((await SmsResendLastMessage.check(d, p, nothing)).ok).toBe(true);
  });

  it('SmsSendToContactByName: the namesake with the same first name is wrong', async () => {
    const p = await start(SmsSendToContactByName);
    const first = p.name.split(' ')[0]!;
    const twin = p.contacts.find((c) => c.name !== p.name && c.name.startsWith(`${first} `))!;
    expect(twin).toBeDefined();
    await send(twin.phone, p.message);
    expect((await SmsSendToContactByName.check(d, p, nothing)).ok).toBe(false);
    await start(SmsSendToContactByName);
    await send(p.phone, p.message);
    expect((await SmsSendToContactByName.check(d, p, nothing)).ok).toBe(true);
  });

  it('SmsDeleteConversation: that conversation gone, every other one intact', async () => {
    const p = await start(SmsDeleteConversation);
    const other = p.messages.find((m) => !sameNumber(m.address, p.address))!;
    const del = (address: string) => contentDelete(d, 'content://sms', `address = '${address.replace(/'/g, "''")}'`);
    await del(other.address);
    expect((await SmsDeleteConversation.check(d, p, nothing)).ok).toBe(false);
    await del(p.address);
    expect((await SmsDeleteConversation.check(d, p, nothing)).ok).toBe(false);
    await start(SmsDeleteConversation);
    // Deleting one message of the conversation is not deleting the conversation (seed 1 has three).
    const mine = p.messages.filter((m) => sameNumber(m.address, p.address));
    expect(mine.length).toBeGreaterThan(1);
    await contentDelete(d, 'content://sms', `body = '${mine[0]!.body.replace(/'/g, "''")}'`);
    expect((await SmsDeleteConversation.check(d, p, nothing)).ok).toBe(false);
    await start(SmsDeleteConversation);
    await del(p.address);
    expect((await SmsDeleteConversation.check(d, p, nothing)).ok).toBe(true);
  });

  it('SmsDeleteConversation: deleting through the list long-press is accepted', async () => {
    const p = await start(SmsDeleteConversation, 4);
    openSms();
    for (let i = 0; i < 10 && !find(d, { text: p.who, resourceId: 'conversation_address' }); i++) {
      d.inputSync({ kind: 'swipe', x1: 540, y1: 1600, x2: 540, y2: 900, durationMs: 300 });
    }
    longPress(d, { text: p.who, resourceId: 'conversation_address' });
    tap(d, { text: 'Delete' });
    tap(d, { text: 'Yes' });
    expect((await SmsDeleteConversation.check(d, p, nothing)).ok).toBe(true);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('SmsForwardMessage: that message, to the other contact, word for word', async () => {
    const p = await start(SmsForwardMessage);
    const fromPhone = p.contacts.find((c) => c.name === p.from)!.phone;
    await send(fromPhone, p.body);
    expect((await SmsForwardMessage.check(d, p, nothing)).ok).toBe(false);
    await start(SmsForwardMessage);
    const older = p.messages.find((m) => m.type === 1 && sameNumber(m.address, fromPhone) && m.body !== p.body);
    await send(p.toPhone, older?.body ?? 'Something else');
    expect((await SmsForwardMessage.check(d, p, nothing)).ok).toBe(false);
    await start(SmsForwardMessage);
    await send(p.toPhone, p.body.toUpperCase());
    expect((await SmsForwardMessage.check(d, p, nothing)).ok).toBe(false);
    await start(SmsForwardMessage);
    await send(p.toPhone, p.body);
    expect((await SmsForwardMessage.check(d, p, nothing)).ok).toBe(true);
  });

  it('SmsLatestMessageQuestion: their last message, not mine', async () => {
    const p = await start(SmsLatestMessageQuestion, 3);
    const phone = p.contacts.find((c) => c.name === p.name)!.phone;
    const thread = p.messages.filter((m) => sameNumber(m.address, phone)).sort((a, b) => b.minutesAgo - a.minutesAgo);
    expect(thread.filter((m) => m.type === 1).at(-1)!.body).toBe(p.answer);
    // Seed 3: the conversation ends with my reply, after their last message.
    expect(thread.at(-1)!.type).toBe(2);
    expect((await SmsLatestMessageQuestion.check(d, p, answer(thread.at(-1)!.body))).ok).toBe(false);
    const older = thread.filter((m) => m.type === 1).at(-2)!;
    expect((await SmsLatestMessageQuestion.check(d, p, answer(older.body))).ok).toBe(false);
    expect((await SmsLatestMessageQuestion.check(d, p, nothing)).ok).toBe(false);
    expect((await SmsLatestMessageQuestion.check(d, p, answer(` ${p.answer.toLowerCase()} `))).ok).toBe(true);
  });

  it('SmsUnreadCountQuestion: the total over every conversation', async () => {
    const p = await start(SmsUnreadCountQuestion);
    const unread = (await allMessages(d)).filter((m) => m.type === 1 && !m.read).length;
    expect(unread).toBe(p.total);
    expect((await SmsUnreadCountQuestion.check(d, p, answer(String(p.total - 1)))).ok).toBe(false);
    expect((await SmsUnreadCountQuestion.check(d, p, answer(String(p.total + 1)))).ok).toBe(false);
    expect((await SmsUnreadCountQuestion.check(d, p, answer(String(p.total)))).ok).toBe(true);
    // The conversations overflow the screen: some unread ones are only found by scrolling.
    openSms();
    const shown = new Set(p.messages.filter((m) => find(d, { text: m.address })).map((m) => m.address));
    expect(shown.size).toBeLessThan(new Set(p.messages.map((m) => m.address)).size);
  });

  it('SmsVerificationCodeQuestion: the newest code from that service', async () => {
    const p = await start(SmsVerificationCodeQuestion);
    const codes = p.messages.filter((m) => m.body.includes(p.service)).map((m) => /\d{6}/.exec(m.body)![0]);
    expect(codes.length).toBeGreaterThanOrEqual(2);
    for (const c of codes.filter((x) => x !== p.code)) expect((await SmsVerificationCodeQuestion.check(d, p, answer(c))).ok).toBe(false);
    expect((await SmsVerificationCodeQuestion.check(d, p, answer(p.code))).ok).toBe(true);
    // A newer message from someone else does not change the answer.
    await addReceivedMessage(d, { address: '+15550001234', body: 'Your code is 111111' });
    expect((await SmsVerificationCodeQuestion.check(d, p, answer('111111'))).ok).toBe(false);
  });

  it('the oracle gets back to the conversation list when the app reopens on a thread left open (AndroidWorld\'s SimpleSmsResend)', async () => {
    const inst = instantiate(SmsResendLastMessage, 1);
    await resetForTask(d, inst);
    sh(d, `am start -a android.intent.action.SENDTO -d sms:${inst.params.phone}`);
    const r = await runEpisode({ device: d, instance: inst, policy: new OraclePolicy(), initialize: false });
    expect(r.error).toBeUndefined();
    expect(r.steps.map((s) => s.description)).toContainEqual(expect.stringContaining('Navigate up'));
    expect(r.success).toBe(true);
  });
});
