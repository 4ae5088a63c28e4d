import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { launch, OracleError, screenSummary } from '../../oracle.js';
import { monthNumber } from '../../../util/calendar-names.js';
import { dateParts, longDate, monthName, msOf, weekday, type DateParts } from '../../../seed-data/dates.js';
import { randomTitles } from '../../../seed-data/text.js';
import { EXPENSE_CATEGORY_NAMES, randomExpenses } from '../../../seed-data/expenses.js';
import { emailFor } from '../../../seed-data/people.js';
import { fieldHolds } from '../../validators/ui.js';
import { addContact, contactCount, contactHas, contactsKept, listContacts } from '../contacts/contacts-db.js';
import { contactOpen, createContact, drawPeople, editorOpen, openContact, PersonSchema, typed } from '../contacts/common.js';
import { sameNumber } from '../sms/sms-db.js';
import {
  chooseRecipient, conversation, distractorThreads, lastBubble, messageSent, newSentMessages, openConversation, openSms, SeedMessage, seedSms, smsOpen,
  typeAndSend,
} from '../sms/common.js';
import { addEvents, clearEvents, listEvents } from '../calendar/calendar-db.js';
import {
  calendarOpen, editorOpen as eventEditorOpen, EVENT, EVENT_FIELDS, eventKind, EventSchema, MINUTE_MS, setEditorDate, setEditorTime, timedEvent, toInput,
} from '../calendar/common.js';
import { Draft } from '../expense/params.js';
import { addExpense, expenseOpen } from '../expense/common.js';
import { EXACT_EXPENSE, listExpenses, LOOSE_EXPENSE, resetExpenses } from '../expense/expense-db.js';
import { countIs, holds, verdictOf } from '../../verdict.js';
import { keptThenWanted } from '../../validators/records.js';

/** The meeting from the text: its title (no case, outer spaces of the stored one aside), an hour from its start, not all-day. */
const MEETING = eventKind([
  { ...EVENT_FIELDS.title, same: (s, e) => s.title.trim().toLowerCase() === e.title.toLowerCase() }, EVENT_FIELDS.start, EVENT_FIELDS.end, EVENT_FIELDS.allDay,
]);

/**
 * Multi-app tasks that start from a text message: read something in Simple SMS Messenger (a new
 * number, a proposed meeting, a purchase) and act on it in another app, or look something up in
 * Contacts and text it. AndroidWorld's multi-app templates have the same shape: the value the
 * second app needs exists only on the first app's screen.
 */

const Person = PersonSchema;

// ------------------------------------------------------------------ SMS → Contacts

const SaveSender = z.object({ person: Person, intro: z.string(), others: z.array(Person), messages: z.array(SeedMessage) });

export const SaveTextSenderAsContact = defineTask({
  id: 'MultiSaveTextSenderAsContact',
  apps: ['Contacts', 'Simple SMS Messenger'],
  difficulty: 'medium',
  tags: ['multi_app', 'data_entry', 'screen_reading'],
  kind: 'completion',
  template: '{first} texted me from a new number. Save that number as a new contact named {name}.',
  params: SaveSender,
  generate: (rng) => {
    const [person, ...others] = drawPeople(rng, rng.int(4, 7));
    const intro = rng.pick([`Hi, it's ${person!.first}! This is my new number.`, `Hey, ${person!.first} here, I got a new phone. Save this number!`, `It's ${person!.first} - new number, old me.`]);
    const introAt = rng.int(5, 90);
    const known = others.slice(0, rng.int(2, others.length)).map((p) => p.phone);
    const messages = [
      { address: person!.phone, body: intro, minutesAgo: introAt, type: 1 as const, read: false },
      ...distractorThreads(rng, [...known, `${rng.int(20000, 99999)}`], introAt),
    ];
    return { person: person!, intro, others, messages };
  },
  instruction: (p) => `${p.person.first} texted me from a new number. Save that number as a new contact named ${p.person.name}.`,
  initialize: async (device, p) => seedSms(device, p.messages, p.others),
  check: async (device, p) => {
    const list = await listContacts(device);
    return verdictOf([contactCount(list, p.others.length + 1), contactHas(list, p.person.name, p.person.phone), contactsKept(list, p.others)]);
  },
  subgoals: (p) => [
    smsOpen,
    editorOpen,
    typed('first name', p.person.first),
    { name: `${p.person.name} saved with the new number`, check: async ({ device }) => contactHas(await listContacts(device), p.person.name, p.person.phone).ok },
  ],
  *oracle(p, ui) {
    yield* openSms(ui);
    // The unknown sender's conversation is titled by its number; read it next to the intro text.
    const number = ui.valueNextTo({ resourceId: 'conversation_body_short', textContains: `${p.person.first}` });
    yield* launch(ui, 'Contacts');
    yield* createContact(ui, { first: p.person.first, last: p.person.last, phone: number });
    yield ui.complete();
  },
});

// ------------------------------------------------------------------ Contacts → SMS

const TextEmail = z.object({ person: Person.required({ email: true }), recipient: Person, others: z.array(Person), messages: z.array(SeedMessage) });

export const TextContactEmail = defineTask({
  id: 'MultiTextContactEmail',
  maxSteps: 35,
  apps: ['Contacts', 'Simple SMS Messenger'],
  difficulty: 'hard',
  tags: ['multi_app', 'screen_reading', 'memorization'],
  kind: 'completion',
  template: "Text {recipient} {person}'s email address from my contacts, and nothing else.",
  params: TextEmail,
  generate: (rng) => {
    const [person, recipient, ...others] = drawPeople(rng, rng.int(5, 8));
    const email = emailFor(person!, rng.pick(['gmail.com', 'outlook.com', 'proton.me', 'example.org']));
    const messages = distractorThreads(rng, [recipient!.phone, ...others.slice(0, 2).map((o) => o.phone)], rng.int(10, 60));
    return { person: { ...person!, email }, recipient: recipient!, others, messages };
  },
  instruction: (p) => `Text ${p.recipient.name} ${p.person.name}'s email address from my contacts, and nothing else.`,
  initialize: async (device, p) => {
    await seedSms(device, p.messages, [p.recipient, ...p.others]);
    await addContact(device, { name: p.person.name, phone: p.person.phone, email: p.person.email });
  },
  check: async (device, p) => {
    const sent = await newSentMessages(device, p.messages);
    const m = sent[0];
    return verdictOf([
      countIs('new messages sent', 1, sent.length),
      holds(`message sent to ${p.recipient.phone}`, m !== undefined && sameNumber(m.address, p.recipient.phone), { expected: p.recipient.phone, found: m ? m.address : 'no message sent' }),
      holds('message text is the email address', m !== undefined && m.body.trim().toLowerCase() === p.person.email.toLowerCase(), { expected: p.person.email, found: m ? m.body.trim() : 'no message sent' }),
    ]);
  },
  subgoals: (p) => [
    contactOpen(p.person.name),
    smsOpen,
    { name: 'email typed', check: async ({ obs }) => fieldHolds(obs, p.person.email) },
    messageSent(p.messages, p.recipient.phone, p.person.email),
  ],
  *oracle(p, ui) {
    yield* launch(ui, 'Contacts');
    yield* openContact(ui, p.person.name);
    const email = ui.require({ textContains: '@' }).node.text.trim();
    yield* openSms(ui);
    yield ui.tap({ contentDesc: 'Start a conversation' });
    yield* chooseRecipient(ui, { name: p.recipient.name });
    yield* typeAndSend(ui, email);
    yield ui.complete();
  },
});

// ------------------------------------------------------------------ SMS → Calendar

const Meeting = z.object({
  sender: Person, title: z.string(), start: z.int(), proposal: z.string(),
  messages: z.array(SeedMessage), existing: z.array(EventSchema),
});

function proposalText(title: string, day: DateParts, hour: number, minute: number): string {
  const h = hour % 12 === 0 ? 12 : hour % 12;
  return `Are you free for ${title.toLowerCase()} on ${weekday(day)}, ${longDate(day)} at ${h}:${String(minute).padStart(2, '0')} ${hour < 12 ? 'AM' : 'PM'}?`;
}

const PROPOSAL = /on \w+, (\w+) (\d+), (\d{4}) at (\d+):(\d\d) (AM|PM)/;

export const TextedMeetingToCalendar = defineTask({
  id: 'MultiTextedMeetingToCalendar',
  maxSteps: 35,
  apps: ['Calendar', 'Simple SMS Messenger'],
  difficulty: 'hard',
  tags: ['multi_app', 'date_time', 'screen_reading', 'data_entry'],
  kind: 'completion',
  template: "{sender} texted me to propose a meeting. Add it to Simple Calendar Pro as a one-hour event titled '{title}' at the proposed time.",
  params: Meeting,
  generate: (rng) => {
    const [sender, ...others] = drawPeople(rng, 4);
    const day = dateParts(Date.UTC(2023, 9, 15) + rng.int(2, 40) * 86_400_000);
    const hour = rng.int(8, 18);
    const minute = rng.pick([0, 15, 30, 45]);
    const [title, ...distractorTitles] = randomTitles(rng, 4);
    const proposal = proposalText(title!, day, hour, minute);
    const messages = [
      ...conversation(rng, sender!.phone, [proposal], rng.int(5, 60)),
      ...distractorThreads(rng, others.map((o) => o.phone), 70),
    ];
    const existing = distractorTitles.map((t) => timedEvent(rng, t, dateParts(msOf(day) + rng.int(-2, 2) * 86_400_000)));
    return { sender: sender!, title: title!, start: msOf(day, hour, minute), proposal, messages, existing };
  },
  instruction: (p) => `${p.sender.name} texted me to propose a meeting. Add it to Simple Calendar Pro as a one-hour event titled '${p.title}' at the proposed time.`,
  initialize: async (device, p) => {
    await seedSms(device, p.messages, [p.sender]);
    await clearEvents(device);
    await addEvents(device, p.existing.map(toInput));
  },
  check: async (device, p) => {
    const want = { title: p.title, start: p.start, end: p.start + 60 * MINUTE_MS, allDay: false, location: '', description: '' };
    return verdictOf(keptThenWanted(await listEvents(device), EVENT, p.existing, MEETING, [want], 'added'));
  },
  subgoals: (p) => [
    smsOpen,
    calendarOpen,
    eventEditorOpen,
    { name: 'title typed', check: async ({ obs }) => fieldHolds(obs, p.title) },
    {
      name: 'event saved at the proposed time',
      check: async ({ device }) => (await listEvents(device)).some((e) => e.start === p.start && e.title.trim().toLowerCase() === p.title.toLowerCase()),
    },
  ],
  *oracle(p, ui) {
    yield* openSms(ui);
    yield* openConversation(ui, p.sender.name);
    const text = lastBubble(ui, 'received').node.text;
    const m = PROPOSAL.exec(text);
    if (!m) throw new OracleError(`No date and time in ${JSON.stringify(text)}`, screenSummary(ui.obs));
    const month = monthNumber(m[1]!);
    const day = { year: Number(m[3]), month, day: Number(m[2]) };
    const hour = (Number(m[4]) % 12) + (m[6] === 'PM' ? 12 : 0);
    const start = msOf(day, hour, Number(m[5]));
    yield* launch(ui, 'Calendar');
    yield ui.tap({ contentDesc: 'New event' });
    yield ui.type({ resourceId: 'event_title' }, p.title);
    yield* setEditorDate(ui, 'start', day);
    yield* setEditorTime(ui, 'start', start);
    yield* setEditorTime(ui, 'end', start + 60 * MINUTE_MS);
    yield ui.tap({ contentDesc: 'Save' });
    yield ui.complete();
  },
});

// ------------------------------------------------------------------ SMS → Pro Expense

const BANK = '72265';
const MERCHANTS = ['Blue Bottle Coffee', 'City Hardware', 'Green Grocer', 'Metro Cinema', 'Corner Pharmacy', 'Book Nook', 'Pizza Palace', 'Fuel Stop'] as const;

const BankText = z.object({
  merchant: z.string(), amount: z.int().positive(), category: z.enum(EXPENSE_CATEGORY_NAMES),
  messages: z.array(SeedMessage), existing: z.array(Draft),
});

function bankText(merchant: string, cents: number, day: DateParts, card: string): string {
  return `BANK ALERT: Card ending ${card} was charged $${(cents / 100).toFixed(2)} at ${merchant} on ${monthName(day.month).slice(0, 3)} ${day.day}.`;
}

export const BankTextToExpense = defineTask({
  id: 'MultiBankTextToExpense',
  maxSteps: 35,
  apps: ['Pro Expense', 'Simple SMS Messenger'],
  difficulty: 'hard',
  tags: ['multi_app', 'data_entry', 'screen_reading', 'transcription'],
  kind: 'completion',
  template: "Add the purchase from my bank's latest text message to Pro Expense: the store as the name, the amount, category {category}, and the note 'card'.",
  params: BankText,
  generate: (rng) => {
    const [merchant, older] = rng.sample(MERCHANTS, 2);
    const amount = rng.int(150, 25_000);
    const card = String(rng.int(1000, 9999));
    const today = dateParts(Date.UTC(2023, 9, 15));
    const latest = { address: BANK, body: bankText(merchant!, amount, today, card), minutesAgo: rng.int(5, 60), type: 1 as const, read: false };
    const previous = { address: BANK, body: bankText(older!, rng.int(150, 25_000), dateParts(Date.UTC(2023, 9, 13)), card), minutesAgo: 2 * 24 * 60, type: 1 as const, read: true };
    const [sender] = drawPeople(rng, 1);
    const messages = [previous, latest, ...distractorThreads(rng, [sender!.phone], latest.minutesAgo)];
    const category = rng.pick(EXPENSE_CATEGORY_NAMES.filter((c) => c !== 'Income'));
    return { merchant: merchant!, amount, category, messages, existing: randomExpenses(rng, rng.int(3, 6), { avoid: [...MERCHANTS] }) };
  },
  instruction: (p) => `Add the purchase from my bank's latest text message to Pro Expense: the store as the name, the amount, category ${p.category}, and the note 'card'.`,
  initialize: async (device, p) => {
    await seedSms(device, p.messages, []);
    await resetExpenses(device, p.existing);
  },
  check: async (device, p) => {
    const want = { name: p.merchant, amount: p.amount, category: p.category, note: 'card', date: 0 };
    return verdictOf(keptThenWanted(await listExpenses(device), EXACT_EXPENSE, p.existing, LOOSE_EXPENSE, [want], 'added'));
  },
  subgoals: (p) => [
    smsOpen,
    expenseOpen,
    { name: 'store typed', check: async ({ obs }) => fieldHolds(obs, p.merchant) },
    {
      name: 'expense saved',
      check: async ({ device }) => (await listExpenses(device)).some((r) => (r.name ?? '').trim().toLowerCase() === p.merchant.toLowerCase() && r.amount === p.amount),
    },
  ],
  *oracle(p, ui) {
    yield* openSms(ui);
    yield* openConversation(ui, BANK);
    const text = lastBubble(ui, 'received').node.text;
    const m = /charged \$(\d+)\.(\d\d) at (.+) on /.exec(text);
    if (!m) throw new OracleError(`No purchase in ${JSON.stringify(text)}`, screenSummary(ui.obs));
    yield* launch(ui, 'Pro Expense');
    yield* addExpense(ui, { name: m[3]!, amount: Number(m[1]) * 100 + Number(m[2]), category: p.category, note: 'card', date: 0 });
    yield ui.complete();
  },
});

export const MESSAGE_TASKS: readonly TaskTemplate[] = [SaveTextSenderAsContact, TextContactEmail, TextedMeetingToCalendar, BankTextToExpense];
