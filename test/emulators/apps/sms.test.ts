import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { addContact, clearContacts } from '../../../core/tasks/families/contacts/contacts-db.js';
import { addReceivedMessage, addSentMessage, allMessages, clearMessages, sentMessages } from '../../../core/tasks/families/sms/sms-db.js';
import type { LaidNode } from '../../../emulators/simdroid/view/layout.js';
import { device, elements, find, get, longPress, scroll, sh, tap, texts, typeInto } from '../../helpers/simdroid.js';

/** Simple SMS Messenger in SimDroid, driven through the UI and read back through `content query`. */
const d = device();
afterAll(() => d.close());

const PKG = 'com.simplemobiletools.smsmessenger';
const DAY = 86_400_000;
const back = () => d.inputSync({ kind: 'key', key: 'BACK' });
const activity = () => d.wm.foreground().activity.split('.').pop();
const byId = (id: string) => elements(d).filter((e) => e.node.resourceId === `${PKG}:id/${id}`).map((e) => e.node.text);
const rows = (uri: string, projection: string) => sh(d, `content query --uri ${uri} --projection ${projection}`);

/** Whether the view showing this text is drawn bold (only the pixels tell; the a11y tree does not). */
function bold(text: string): boolean | undefined {
  const walk = (n: LaidNode): boolean | undefined => (n.spec.text === text ? Boolean(n.spec.style?.bold) : n.children.map(walk).find((b) => b !== undefined));
  return walk(d.frame().windows[0]!.root);
}

function open(): void {
  sh(d, `am start -n ${PKG}/.activities.MainActivity`);
  if (find(d, { text: 'Allow' })) tap(d, { text: 'Allow' });
}

beforeEach(async () => {
  await d.loadSnapshot(BOOT_SNAPSHOT);
});

describe('Simple SMS Messenger', () => {
  it('boots with conversations that the list and the provider agree on, newest first', async () => {
    open();
    expect(activity()).toBe('MainActivity');
    const msgs = await allMessages(d);
    const shown = byId('conversation_body_short');
    expect(shown.length).toBeGreaterThanOrEqual(5);
    // Each row's snippet is its conversation's newest message; rows are ordered by that date.
    const latest = shown.map((body) => msgs.find((m) => m.body === body)!);
    expect(latest.every(Boolean)).toBe(true);
    expect(latest.map((m) => m.date)).toEqual([...latest.map((m) => m.date)].sort((a, b) => b - a));
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('shows an unread message in bold with a badge, and opening the thread marks it read', async () => {
    await clearMessages(d);
    await addSentMessage(d, { address: '+14155550123', body: 'Are you coming?', date: d.clock.now() - 3 * DAY });
    await addReceivedMessage(d, { address: '+14155550123', body: 'Yes, on my way', date: d.clock.now() - 60_000 });
    await addReceivedMessage(d, { address: '+12125550199', body: 'Old news', date: d.clock.now() - 5 * DAY, read: true });
    open();
    expect(byId('conversation_address')).toEqual(['+14155550123', '+12125550199']);
    expect(byId('conversation_unread_count')).toEqual(['1']);
    expect([bold('+14155550123'), bold('Yes, on my way'), bold('+12125550199'), bold('Old news')]).toEqual([true, true, false, false]);
    expect(get(d, { text: 'Yes, on my way' }).node.resourceId).toBe(`${PKG}:id/conversation_body_short`);
    expect(rows('content://sms/inbox', 'body:read')).toContain('body=Yes, on my way, read=0');
    tap(d, { text: '+14155550123' });
    expect(activity()).toBe('ThreadActivity');
    // Both sides of the conversation, received on the left and sent on the right.
    const [sent, received] = ['Are you coming?', 'Yes, on my way'].map((t) => get(d, { text: t, resourceId: 'thread_message_body' }).node.bounds);
    expect(sent!.right).toBeGreaterThan(received!.right);
    expect(received!.left).toBeLessThan(sent!.left);
    expect(rows('content://sms/inbox', 'body:read')).toContain('body=Yes, on my way, read=1');
    back();
    expect(activity()).toBe('MainActivity');
    expect(byId('conversation_unread_count')).toEqual([]);
    expect(bold('+14155550123')).toBe(false);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('sends from a thread: a sent row dated now, the box cleared, Send disabled while empty', async () => {
    await clearMessages(d);
    await addReceivedMessage(d, { address: '5550102030', body: 'Lunch?', date: d.clock.now() - 3_600_000, read: true });
    open();
    tap(d, { text: '5550102030' });
    expect(get(d, { contentDesc: 'Send' }).node.enabled).toBe(false);
    typeInto(d, { resourceId: 'thread_type_message' }, 'Sure, 12:30');
    expect(get(d, { contentDesc: 'Send' }).node.enabled).toBe(true);
    tap(d, { contentDesc: 'Send' });
    const sent = await sentMessages(d);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ address: '5550102030', body: 'Sure, 12:30', type: 2, read: true });
    expect(Math.abs(sent[0]!.date - d.clock.now())).toBeLessThan(5_000);
    expect(get(d, { resourceId: 'thread_type_message' }).node.text).toBe('Type a message…');
    expect(find(d, { text: 'Sure, 12:30', resourceId: 'thread_message_body' })).toBeDefined();
    // The new message is in the same thread as the received one.
    expect(rows('content://sms', 'thread_id')).toMatch(/^Row: 0 thread_id=(\d+)\nRow: 1 thread_id=\1\n$/);
    back();
    back();
    expect(get(d, { resourceId: 'conversation_body_short' }).node.text).toBe('Sure, 12:30');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('deletes a conversation only after confirmation, from the thread or by long-press in the list', async () => {
    await clearMessages(d);
    for (const [a, body] of [['111', 'one'], ['222', 'two'], ['333', 'three']] as const) await addReceivedMessage(d, { address: `+1555000${a}0`, body, read: true });
    open();
    tap(d, { text: '+15550002220' });
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Delete' });
    expect(get(d, { resourceId: 'android:id/message' }).node.text).toBe('Are you sure you want to delete all messages of this conversation?');
    tap(d, { text: 'No' });
    expect(rows('content://sms', 'body')).toContain('body=two');
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Delete' });
    tap(d, { text: 'Yes' });
    expect(activity()).toBe('MainActivity');
    expect(rows('content://sms', 'body')).not.toContain('body=two');
    longPress(d, { text: '+15550001110' });
    tap(d, { text: 'Delete' });
    back();
    expect(rows('content://sms', 'body')).toContain('body=one');
    longPress(d, { text: '+15550001110' });
    tap(d, { text: 'Delete' });
    tap(d, { text: 'Yes' });
    expect((await allMessages(d)).map((m) => m.body)).toEqual(['three']);
    expect(byId('conversation_address')).toEqual(['+15550003330']);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('names numbers that match a contact digit-wise', async () => {
    await clearMessages(d);
    await clearContacts(d);
    await addContact(d, { name: 'Nora Quinn', phone: '(415) 555-0123' });
    await addReceivedMessage(d, { address: '+14155550123', body: 'Hi from Nora', read: true });
    open();
    expect(byId('conversation_address')).toEqual(['Nora Quinn']);
    tap(d, { text: 'Nora Quinn' });
    expect(byId('toolbar_title')).toEqual(['Nora Quinn']);
    expect(texts(d)).toContain('+14155550123');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('starts a conversation: contacts filter as one types, a contact or a typed number opens its thread', async () => {
    await clearMessages(d);
    await clearContacts(d);
    for (const [name, phone] of [['Ana Lopez', '4155550101'], ['Andrew Kim', '4155550102'], ['Ben Ito', '4155550103']]) await addContact(d, { name: name!, phone: phone! });
    open();
    expect(texts(d)).toContain('No stored conversations have been found');
    tap(d, { contentDesc: 'Start a conversation' });
    expect(activity()).toBe('NewConversationActivity');
    expect(byId('item_contact_name')).toEqual(['Ana Lopez', 'Andrew Kim', 'Ben Ito']);
    typeInto(d, { resourceId: 'new_conversation_address' }, 'an');
    expect(byId('item_contact_name')).toEqual(['Ana Lopez', 'Andrew Kim']);
    d.inputSync({ kind: 'text', text: 'd' });
    expect(byId('item_contact_name')).toEqual(['Andrew Kim']);
    tap(d, { text: 'Andrew Kim' });
    expect(activity()).toBe('ThreadActivity');
    expect(byId('toolbar_title')).toEqual(['Andrew Kim']);
    typeInto(d, { resourceId: 'thread_type_message' }, 'Hello Andrew');
    tap(d, { contentDesc: 'Send' });
    // Back from the thread goes to the list: the new-conversation screen was replaced.
    back();
    back();
    expect(activity()).toBe('MainActivity');
    tap(d, { contentDesc: 'Start a conversation' });
    typeInto(d, { resourceId: 'new_conversation_address' }, '(212) 555-0147');
    expect(find(d, { contentDesc: 'Confirm selection' })).toBeDefined();
    d.inputSync({ kind: 'key', key: 'ENTER' });
    expect(byId('toolbar_title')).toEqual(['2125550147']);
    typeInto(d, { resourceId: 'thread_type_message' }, 'Hi stranger');
    tap(d, { contentDesc: 'Send' });
    expect(rows('content://sms/sent', 'address:body')).toBe('Row: 0 address=2125550147, body=Hi stranger\nRow: 1 address=4155550102, body=Hello Andrew\n');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('asks which number when a contact has several', async () => {
    await clearMessages(d);
    await clearContacts(d);
    await addContact(d, { name: 'Omar Silva', phone: '6175550100' });
    const id = Number(/_id=(\d+)/.exec(rows('content://com.android.contacts/raw_contacts', '_id'))![1]);
    sh(d, `content insert --uri content://com.android.contacts/data/phones --bind raw_contact_id:i:${id} --bind data1:s:6175550199 --bind data2:i:3`);
    open();
    tap(d, { contentDesc: 'Start a conversation' });
    tap(d, { text: 'Omar Silva' });
    expect(get(d, { resourceId: 'android:id/alertTitle' }).node.text).toBe('Select a number');
    tap(d, { text: '6175550199' });
    expect(byId('toolbar_title')).toEqual(['Omar Silva']);
    expect(texts(d)).toContain('6175550199');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('keeps unsent text as a draft when leaving, and Back closes the keyboard first', async () => {
    await clearMessages(d);
    await addReceivedMessage(d, { address: '5551112222', body: 'Ping', read: true });
    open();
    tap(d, { text: '5551112222' });
    typeInto(d, { resourceId: 'thread_type_message' }, 'Half written');
    back();
    expect(activity()).toBe('ThreadActivity');
    expect(d.wm.state.keyboard.visible).toBe(false);
    back();
    expect(activity()).toBe('MainActivity');
    expect(rows('content://sms/draft', 'address:body')).toBe('Row: 0 address=5551112222, body=Half written\n');
    expect(texts(d)).toContain('Draft: Half written');
    tap(d, { text: '5551112222' });
    expect(get(d, { resourceId: 'thread_type_message' }).node.text).toBe('Half written');
    tap(d, { contentDesc: 'Send' });
    expect(rows('content://sms/draft', 'body')).toBe('No result found.\n');
    expect(rows('content://sms/sent', 'body')).toBe('Row: 0 body=Half written\n');
    tap(d, { contentDesc: 'Navigate up' });
    expect(activity()).toBe('MainActivity');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('scrolls a long conversation list, and opens a long thread at its newest message', async () => {
    await clearMessages(d);
    for (let i = 0; i < 16; i++) await addReceivedMessage(d, { address: `+1617555${String(1000 + i)}`, body: `Message number ${i}`, date: d.clock.now() - (i + 1) * DAY, read: true });
    for (let i = 0; i < 20; i++) await addReceivedMessage(d, { address: '+16175551000', body: `Older line ${i}`, date: d.clock.now() - 40 * DAY + i * 3 * 3_600_000, read: true });
    open();
    expect(find(d, { text: 'Message number 15' })).toBeUndefined();
    for (let i = 0; i < 6 && !find(d, { text: 'Message number 15' }); i++) scroll(d, 'down');
    expect(find(d, { text: 'Message number 15' })).toBeDefined();
    for (let i = 0; i < 6; i++) scroll(d, 'up');
    tap(d, { text: 'Message number 0' });
    expect(find(d, { text: 'Message number 0', resourceId: 'thread_message_body' })).toBeDefined();
    expect(find(d, { text: 'Older line 0' })).toBeUndefined();
    for (let i = 0; i < 10 && !find(d, { text: 'Older line 0' }); i++) scroll(d, 'up');
    expect(find(d, { text: 'Older line 0' })).toBeDefined();
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('forwards a message: long-press, Forward, pick a contact, the text is ready to send', async () => {
    await clearMessages(d);
    await clearContacts(d);
    await addContact(d, { name: 'Lena Weber', phone: '3035550111' });
    await addReceivedMessage(d, { address: '+13125550100', body: 'Gate code is 4821', read: true });
    open();
    tap(d, { text: '+13125550100' });
    longPress(d, { text: 'Gate code is 4821' });
    expect(texts(d)).toEqual(expect.arrayContaining(['Copy to clipboard', 'Forward', 'Delete']));
    tap(d, { text: 'Forward' });
    expect(activity()).toBe('NewConversationActivity');
    typeInto(d, { resourceId: 'new_conversation_address' }, 'Lena');
    tap(d, { text: 'Lena Weber' });
    expect(get(d, { resourceId: 'thread_type_message' }).node.text).toBe('Gate code is 4821');
    tap(d, { contentDesc: 'Send' });
    expect(rows('content://sms/sent', 'address:body')).toBe('Row: 0 address=3035550111, body=Gate code is 4821\n');
    back();
    expect(byId('toolbar_title')).toEqual(['+13125550100']);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('deletes one message after confirmation, and marks a thread unread', async () => {
    await clearMessages(d);
    await addReceivedMessage(d, { address: '7205550100', body: 'First', date: d.clock.now() - 7_200_000, read: true });
    await addReceivedMessage(d, { address: '7205550100', body: 'Second', date: d.clock.now() - 3_600_000, read: true });
    open();
    tap(d, { text: '7205550100' });
    longPress(d, { text: 'First' });
    tap(d, { text: 'Delete' });
    expect(get(d, { resourceId: 'android:id/message' }).node.text).toBe('Are you sure you want to delete 1 message?');
    tap(d, { text: 'Yes' });
    expect((await allMessages(d)).map((m) => m.body)).toEqual(['Second']);
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Mark as Unread' });
    expect(activity()).toBe('MainActivity');
    expect(byId('conversation_unread_count')).toEqual(['1']);
    expect(rows('content://sms/inbox', 'read')).toBe('Row: 0 read=0\n');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('searches conversations and message text', async () => {
    await clearMessages(d);
    await addReceivedMessage(d, { address: '9195550100', body: 'The wifi password is tulip42', read: true });
    await addReceivedMessage(d, { address: '9195550111', body: 'See you later', read: true });
    open();
    tap(d, { contentDesc: 'Search' });
    typeInto(d, { resourceId: 'search_src_text' }, 'tulip');
    expect(byId('search_result_snippet')).toEqual(['The wifi password is tulip42']);
    tap(d, { text: 'The wifi password is tulip42' });
    expect(byId('toolbar_title')).toEqual(['9195550100']);
    back();
    expect(activity()).toBe('SearchActivity');
    back();
    expect(activity()).toBe('MainActivity');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('settings change the time format and make Enter send', async () => {
    await clearMessages(d);
    await addReceivedMessage(d, { address: '5035550100', body: 'Evening!', date: d.clock.now() - 60_000, read: true });
    open();
    expect(byId('conversation_date')).toEqual(['03:33 PM']);
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Settings' });
    tap(d, { text: 'Use 24-hour time format' });
    tap(d, { text: 'Send message on Enter' });
    back();
    expect(byId('conversation_date')).toEqual(['15:33']);
    tap(d, { text: '5035550100' });
    typeInto(d, { resourceId: 'thread_type_message' }, 'Sent with Enter');
    d.inputSync({ kind: 'key', key: 'ENTER' });
    expect(rows('content://sms/sent', 'body')).toBe('Row: 0 body=Sent with Enter\n');
    expect(d.wm.state.crashes).toEqual([]);
  });
});
