import { z } from 'zod';
import { emailFor } from '../../../seed-data/people.js';
import { randomCompanies } from '../../../seed-data/companies.js';
import { launch } from '../../oracle.js';
import { defineTask, type Subgoal, type TaskTemplate } from '../../task.js';
import { contactCount, contactHas, contactsKept, listContacts, normalizeName, withName, type ContactRecord } from './contacts-db.js';
import { holds, listed, verdictOf, type CheckCondition } from '../../verdict.js';
import { contactsOpen, createContact, drawPeople, editorOpen, PersonSchema, seedContacts, typed, writtenPhone, type PersonP } from './common.js';

/**
 * Creating contacts through the editor: one with a number (AndroidWorld's ContactsAddContact), one
 * with every field, and several in a row. The checkers want each new person exactly once with the
 * right details, and every contact that was there before still there.
 */

/** The distractors are all still there, unchanged, and nothing but `added` was created. */
function othersIntact(list: readonly ContactRecord[], before: readonly PersonP[], added: number): CheckCondition[] {
  return [contactCount(list, before.length + added), contactsKept(list, before)];
}

const savedSubgoal = (p: PersonP): Subgoal => ({
  name: `${p.name} saved`,
  check: async ({ device }) => withName(await listContacts(device), p.name).length > 0,
});

const AddParams = z.object({ person: PersonSchema, number: z.string().min(1), others: z.array(PersonSchema) });

export const AddContact = defineTask({
  id: 'ContactsAddContact',
  apps: ['Contacts'],
  difficulty: 'easy',
  tags: ['data_entry'],
  kind: 'completion',
  template: 'Create a new contact for {name}. Their number is {number}.',
  params: AddParams,
  generate: (rng) => {
    const [person, ...others] = drawPeople(rng, rng.int(3, 7));
    return { person: person!, number: writtenPhone(rng, person!.phone), others };
  },
  instruction: (p) => `Create a new contact for ${p.person.name}. Their number is ${p.number}.`,
  initialize: async (device, p) => seedContacts(device, p.others),
  check: async (device, p) => {
    const list = await listContacts(device);
    return verdictOf([contactHas(list, p.person.name, p.person.phone), ...othersIntact(list, p.others, 1)]);
  },
  subgoals: (p) => [contactsOpen, editorOpen, typed('first name', p.person.first), typed('number', p.number), savedSubgoal(p.person)],
  *oracle(p, ui) {
    yield* launch(ui, 'Contacts');
    yield* createContact(ui, { first: p.person.first, last: p.person.last, phone: p.number });
    yield ui.complete();
  },
});

const FullParams = z.object({ person: PersonSchema.required({ email: true, company: true }), number: z.string().min(1), others: z.array(PersonSchema) });

export const AddContactWithEmail = defineTask({
  id: 'ContactsAddContactWithEmail',
  apps: ['Contacts'],
  difficulty: 'medium',
  tags: ['data_entry', 'transcription'],
  kind: 'completion',
  template: 'Add a contact named {name} who works at {company}. Their phone number is {number} and their email is {email}.',
  params: FullParams,
  generate: (rng) => {
    const [person, ...others] = drawPeople(rng, rng.int(4, 8));
    const company = randomCompanies(rng, 1)[0]!;
    const domain = rng.pick(['gmail.com', 'outlook.com', 'example.com', `${company.split(' ')[0]!.toLowerCase()}.com`]);
    return { person: { ...person!, company, email: emailFor(person!, domain) }, number: writtenPhone(rng, person!.phone), others };
  },
  instruction: (p) => `Add a contact named ${p.person.name} who works at ${p.person.company}. Their phone number is ${p.number} and their email is ${p.person.email}.`,
  initialize: async (device, p) => seedContacts(device, p.others),
  check: async (device, p) => {
    const list = await listContacts(device);
    const [c] = withName(list, p.person.name);
    const emails = c?.emails.map((e) => e.trim()) ?? [];
    return verdictOf([
      contactHas(list, p.person.name, p.person.phone), ...othersIntact(list, p.others, 1),
      holds(`contact ${p.person.name} has email ${p.person.email}`, emails.length === 1 && emails[0]!.toLowerCase() === p.person.email.toLowerCase(),
        { expected: p.person.email, found: c ? listed(emails, 'no email') : 'no contact' }),
      holds(`contact ${p.person.name} works at ${p.person.company}`, c !== undefined && normalizeName(c.company ?? '') === normalizeName(p.person.company),
        { expected: p.person.company, found: c ? (c.company ?? 'no company') : 'no contact' }),
    ]);
  },
  subgoals: (p) => [
    contactsOpen, editorOpen, typed('first name', p.person.first), typed('company', p.person.company), typed('email', p.person.email), savedSubgoal(p.person),
  ],
  *oracle(p, ui) {
    yield* launch(ui, 'Contacts');
    yield* createContact(ui, { first: p.person.first, last: p.person.last, phone: p.number, email: p.person.email, company: p.person.company });
    yield ui.complete();
  },
});

const MultiParams = z.object({ people: z.array(PersonSchema).min(2), numbers: z.array(z.string().min(1)), others: z.array(PersonSchema) });

export const AddMultipleContacts = defineTask({
  id: 'ContactsAddMultiple',
  apps: ['Contacts'],
  difficulty: 'hard',
  tags: ['data_entry', 'memorization'],
  kind: 'completion',
  template: 'Add these people to my contacts: {list}.',
  params: MultiParams,
  maxSteps: 40,
  generate: (rng) => {
    const n = rng.int(2, 3);
    const all = drawPeople(rng, n + rng.int(2, 6));
    const people = all.slice(0, n);
    return { people, numbers: people.map((x) => writtenPhone(rng, x.phone)), others: all.slice(n) };
  },
  instruction: (p) => `Add these people to my contacts: ${p.people.map((x, i) => `${x.name} (${p.numbers[i]})`).join(', ')}.`,
  initialize: async (device, p) => seedContacts(device, p.others),
  check: async (device, p) => {
    const list = await listContacts(device);
    return verdictOf([...p.people.map((x) => contactHas(list, x.name, x.phone)), ...othersIntact(list, p.others, p.people.length)]);
  },
  subgoals: (p) => [contactsOpen, ...p.people.flatMap((x) => [editorOpen, savedSubgoal(x)]), {
    name: 'every contact saved',
    check: async ({ device }) => {
      const list = await listContacts(device);
      return p.people.every((x) => contactHas(list, x.name, x.phone).ok);
    },
  }],
  *oracle(p, ui) {
    yield* launch(ui, 'Contacts');
    for (const [i, x] of p.people.entries()) {
      yield* createContact(ui, { first: x.first, last: x.last, phone: p.numbers[i]! });
      // Saving opens the new contact's page; go back up to the list for the next one.
      yield ui.tap({ contentDesc: 'Navigate up' });
    }
    yield ui.complete();
  },
});

export const ADD_TASKS: readonly TaskTemplate[] = [AddContact, AddContactWithEmail, AddMultipleContacts];

