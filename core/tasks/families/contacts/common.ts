import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { UiElement } from '../../../a11y/ui-tree.js';
import type { Rng } from '../../../util/rng.js';
import { FIRST_NAMES, LAST_NAMES, randomPhone } from '../../../seed-data/people.js';
import { launch, scrollTo, type OracleUi } from '../../oracle.js';
import type { Subgoal } from '../../task.js';
import { fieldHolds, inActivity } from '../../validators/ui.js';
import { addContacts, clearContacts, CONTACTS_PKG, type NewContact } from './contacts-db.js';

/** What Contacts tasks share: people as parameters, seeding the provider, and the oracle's moves. */
export const EDITOR = 'com.android.contacts.activities.ContactEditorActivity';
export const QUICK_CONTACT = 'com.android.contacts.quickcontact.QuickContactActivity';

export const PersonSchema = z.object({
  first: z.string().min(1),
  last: z.string().min(1),
  name: z.string().min(1),
  phone: z.string().regex(/^\d{10}$/),
  email: z.string().optional(),
  company: z.string().optional(),
  starred: z.boolean().optional(),
});
export type PersonP = z.infer<typeof PersonSchema>;

export const NAME_ROW = 'cliv_name_textview';

/**
 * `count` people with distinct full names, first names and numbers; `accept` filters candidate
 * first names (e.g. by initial), `avoid` lists names already taken.
 */
export function drawPeople(rng: Rng, count: number, opts: { accept?: (first: string) => boolean; avoid?: readonly PersonP[] } = {}): PersonP[] {
  const firsts = new Set((opts.avoid ?? []).map((p) => p.first));
  const phones = new Set((opts.avoid ?? []).map((p) => p.phone));
  const pool = rng.shuffle(FIRST_NAMES.filter((f) => !firsts.has(f) && (opts.accept?.(f) ?? true)));
  if (pool.length < count) throw new Error(`drawPeople: only ${pool.length} first names for ${count} people`);
  return pool.slice(0, count).map((first) => {
    let phone = randomPhone(rng);
    while (phones.has(phone)) phone = randomPhone(rng);
    phones.add(phone);
    const last = rng.pick(LAST_NAMES);
    return { first, last, name: `${first} ${last}`, phone };
  });
}

/** A number the way a person might write it in an instruction; checkers compare digits. */
export function writtenPhone(rng: Rng, digits: string): string {
  const [a, b, c] = [digits.slice(0, 3), digits.slice(3, 6), digits.slice(6)];
  return rng.pick([digits, `${a}-${b}-${c}`, `(${a}) ${b}-${c}`, `+1 ${a}-${b}-${c}`]);
}

export function toNewContact(p: PersonP): NewContact {
  return { name: p.name, phone: p.phone, email: p.email, company: p.company, starred: p.starred };
}

/** Replaces whatever contacts the device has with these, in order. */
export async function seedContacts(device: Parameters<typeof clearContacts>[0], people: readonly PersonP[]): Promise<void> {
  await clearContacts(device);
  await addContacts(device, people.map(toNewContact));
}

// ---------------------------------------------------------------- subgoals

export const contactsOpen: Subgoal = {
  name: 'Contacts open',
  check: async ({ obs }) => inActivity(obs, CONTACTS_PKG),
};

export const editorOpen: Subgoal = {
  name: 'contact editor open',
  check: async ({ obs }) => inActivity(obs, CONTACTS_PKG, EDITOR),
};

export function contactOpen(name: string): Subgoal {
  return {
    name: `${name}'s contact page open`,
    check: async ({ obs }) => inActivity(obs, CONTACTS_PKG, QUICK_CONTACT) && obs.elements.some((e) => e.node.resourceId.endsWith(':id/large_title') && e.node.text === name),
  };
}

export function typed(what: string, value: string): Subgoal {
  return { name: `${what} typed`, check: async ({ obs }) => fieldHolds(obs, value) };
}

// ---------------------------------------------------------------- oracle moves

const nameRow = (name: string) => ({ text: name, resourceId: NAME_ROW });

/** Scrolls the contact list to a person's row. */
export function* findRow(ui: OracleUi, name: string): Generator<Action, UiElement, void> {
  return yield* scrollTo(ui, nameRow(name));
}

/** Opens Contacts and a person's contact page from the list. */
export function* openContact(ui: OracleUi, name: string): Generator<Action, void, void> {
  yield* launch(ui, 'Contacts');
  yield ui.tap(yield* findRow(ui, name));
}

/** From the contact list: the FAB, the form, Save. Ends on the new contact's page. */
export function* createContact(ui: OracleUi, p: { first: string; last: string; phone: string; email?: string | undefined; company?: string | undefined }): Generator<Action, void, void> {
  yield ui.tap({ contentDesc: 'Create contact' });
  yield ui.type({ text: 'First name' }, p.first);
  yield ui.type({ text: 'Last name' }, p.last);
  if (p.company) yield ui.type({ text: 'Company' }, p.company);
  yield ui.type({ text: 'Phone' }, p.phone);
  if (p.email) yield ui.type({ text: 'Email' }, p.email);
  yield ui.tap({ resourceId: 'toolbar_button' });
}

/** Names on screen in the contact list. */
export function visibleNames(ui: OracleUi): string[] {
  return ui.findAll({ resourceId: NAME_ROW }).map((e) => e.node.text);
}
