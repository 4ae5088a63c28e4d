import { z } from 'zod';
import { randomPhone } from '../../../seed-data/people.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { contactCount, contactHas, contactsKept, listContacts, withName } from './contacts-db.js';
import { contactOpen, contactsOpen, drawPeople, editorOpen, openContact, PersonSchema, seedContacts, typed, writtenPhone } from './common.js';
import { eachHolds, holds, verdictOf } from '../../verdict.js';

/** Changing an existing contact: its number through the editor, its star from its page. */

const EditParams = z.object({ person: PersonSchema, newPhone: z.string().regex(/^\d{10}$/), number: z.string().min(1), others: z.array(PersonSchema) });

export const EditNumber = defineTask({
  id: 'ContactsEditNumber',
  apps: ['Contacts'],
  difficulty: 'medium',
  tags: ['data_edit', 'needs_scrolling'],
  kind: 'completion',
  template: "Update {name}'s phone number to {number}.",
  params: EditParams,
  generate: (rng) => {
    const [person, ...others] = drawPeople(rng, rng.int(8, 16));
    let newPhone = randomPhone(rng);
    while ([person!, ...others].some((x) => x.phone === newPhone)) newPhone = randomPhone(rng);
    return { person: person!, newPhone, number: writtenPhone(rng, newPhone), others };
  },
  instruction: (p) => `Update ${p.person.name}'s phone number to ${p.number}.`,
  // The target goes in first, so it has the lowest id: a re-created contact would not.
  initialize: async (device, p) => seedContacts(device, [p.person, ...p.others]),
  check: async (device, p) => {
    const list = await listContacts(device);
    const found = withName(list, p.person.name);
    const number = contactHas(list, p.person.name, p.newPhone);
    if (found.length !== 1) return verdictOf([number]);
    const c = found[0]!;
    return verdictOf([
      holds(`${p.person.name} edited, not re-created`, list.every((x) => x.id >= c.id), { expected: 'the original contact', found: list.every((x) => x.id >= c.id) ? 'the original contact' : 'a new contact' }),
      number, contactCount(list, p.others.length + 1), contactsKept(list, p.others),
    ]);
  },
  subgoals: (p) => [
    contactsOpen,
    contactOpen(p.person.name),
    editorOpen,
    typed('new number', p.number),
    { name: 'number saved', check: async ({ device }) => contactHas(await listContacts(device), p.person.name, p.newPhone).ok },
  ],
  *oracle(p, ui) {
    yield* openContact(ui, p.person.name);
    yield ui.tap({ contentDesc: 'Edit contact' });
    yield ui.type({ resourceId: 'phone_0' }, p.number, { clear: true });
    yield ui.tap({ resourceId: 'toolbar_button' });
    yield ui.complete();
  },
});

const StarParams = z.object({ person: PersonSchema, star: z.boolean(), others: z.array(PersonSchema) });

export const StarContact = defineTask({
  id: 'ContactsStarContact',
  apps: ['Contacts'],
  difficulty: 'easy',
  tags: ['toggle', 'needs_scrolling'],
  kind: 'completion',
  template: 'Add {name} to my favourite contacts.',
  params: StarParams,
  generate: (rng) => {
    const star = rng.chance(0.7);
    const [person, ...others] = drawPeople(rng, rng.int(8, 15));
    return {
      person: { ...person!, starred: !star },
      star,
      others: others.map((o) => ({ ...o, starred: rng.chance(0.3) })),
    };
  },
  instruction: (p) => (p.star ? `Add ${p.person.name} to my favourite contacts.` : `Remove ${p.person.name} from my favourite contacts.`),
  initialize: async (device, p) => seedContacts(device, [...p.others.slice(0, 3), p.person, ...p.others.slice(3)]),
  check: async (device, p) => {
    const list = await listContacts(device);
    const starredAs = (name: string, want: boolean) => {
      const found = withName(list, name);
      return found.length === 1 && found[0]!.starred === want;
    };
    const starState = (name: string) => {
      const found = withName(list, name);
      return found.length === 1 ? (found[0]!.starred ? 'starred' : 'not starred') : `${found.length} contacts named ${name}`;
    };
    return verdictOf([
      contactCount(list, p.others.length + 1),
      holds(`${p.person.name} ${p.star ? 'starred' : 'not starred'}`, starredAs(p.person.name, p.star), { expected: p.star ? 'starred' : 'not starred', found: starState(p.person.name) }),
      eachHolds(`the ${p.others.length} other contacts' stars unchanged`, p.others, (o) => starredAs(o.name, o.starred === true), (o) => `${o.name} (${starState(o.name)})`),
    ]);
  },
  subgoals: (p) => [
    contactsOpen,
    contactOpen(p.person.name),
    {
      name: p.star ? 'starred' : 'unstarred',
      check: async ({ device }) => withName(await listContacts(device), p.person.name).every((c) => c.starred === p.star),
    },
  ],
  *oracle(p, ui) {
    yield* openContact(ui, p.person.name);
    yield ui.tap({ contentDesc: p.star ? 'Add to favourites' : 'Remove from favourites' });
    yield ui.complete();
  },
});

export const EDIT_TASKS: readonly TaskTemplate[] = [EditNumber, StarContact];
