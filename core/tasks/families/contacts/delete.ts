import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { UiElement } from '../../../a11y/ui-tree.js';
import { launch, OracleError, screenSummary, type OracleUi } from '../../oracle.js';
import { defineTask, type Subgoal, type TaskTemplate } from '../../task.js';
import { onScreen } from '../../validators/ui.js';
import { contactCount, contactsKept, listContacts, withName } from './contacts-db.js';
import { contactOpen, contactsOpen, drawPeople, findRow, NAME_ROW, openContact, PersonSchema, seedContacts } from './common.js';
import { countIs, verdictOf } from '../../verdict.js';

/** Removing contacts: one from its page (overflow › Delete › confirm), duplicates through selection mode. */

const DeleteParams = z.object({ person: PersonSchema, others: z.array(PersonSchema) });

const confirmOpen: Subgoal = {
  name: 'delete confirmation open',
  check: async ({ obs }) => onScreen(obs, { resourceId: 'android:id/alertTitle', text: /^Delete/ }),
};

export const DeleteContact = defineTask({
  id: 'ContactsDeleteContact',
  apps: ['Contacts'],
  difficulty: 'medium',
  tags: ['deletion', 'dialog', 'needs_scrolling'],
  kind: 'completion',
  template: 'Delete the contact {name}.',
  params: DeleteParams,
  generate: (rng) => {
    const [person, ...others] = drawPeople(rng, rng.int(10, 17));
    return { person: person!, others };
  },
  instruction: (p) => `Delete the contact ${p.person.name}.`,
  initialize: async (device, p) => seedContacts(device, [...p.others.slice(0, 4), p.person, ...p.others.slice(4)]),
  check: async (device, p) => {
    const list = await listContacts(device);
    return verdictOf([
      countIs(`contacts named ${p.person.name}`, 0, withName(list, p.person.name).length),
      contactCount(list, p.others.length), contactsKept(list, p.others),
    ]);
  },
  subgoals: (p) => [
    contactsOpen,
    contactOpen(p.person.name),
    confirmOpen,
    { name: 'contact deleted', check: async ({ device }) => withName(await listContacts(device), p.person.name).length === 0 },
  ],
  *oracle(p, ui) {
    yield* openContact(ui, p.person.name);
    yield ui.tap({ contentDesc: 'More options' });
    yield ui.tap({ text: 'Delete' });
    yield ui.tap({ resourceId: 'android:id/button1' });
    yield ui.complete();
  },
});

const DupParams = z.object({
  people: z.array(PersonSchema).min(4),
  /** How many copies of each person the list holds (1 = no duplicate). */
  copies: z.array(z.int().min(1).max(3)),
});

/** The list row (the clickable LinearLayout) holding a name. */
function rowOf(el: UiElement): UiElement {
  for (let e: UiElement | null = el; e; e = e.parent) if (e.node.longClickable) return e;
  return el;
}

/** Selects every copy of `name` but the first; the first selection is a long press. */
function* selectExtraCopies(ui: OracleUi, name: string, copies: number, startSelection: boolean): Generator<Action, void, void> {
  let pressed = !startSelection;
  const sel = { text: name, resourceId: NAME_ROW };
  yield* findRow(ui, name);
  for (let guard = 0; guard < 12; guard++) {
    const rows = ui.findAll(sel).map(rowOf);
    if (rows.length < copies) {
      // Copies are adjacent; the last ones may still be below the fold.
      yield ui.scroll('down');
      continue;
    }
    const next = rows.slice(1).find((r) => !r.node.selected);
    if (!next) return;
    yield pressed ? ui.tap(next) : ui.longPress(next);
    pressed = true;
  }
  throw new OracleError(`Could not select the copies of ${name}`, screenSummary(ui.obs));
}

export const DeleteDuplicates = defineTask({
  id: 'ContactsDeleteDuplicates',
  apps: ['Contacts'],
  difficulty: 'hard',
  tags: ['deletion', 'long_press', 'needs_scrolling', 'verification'],
  kind: 'completion',
  template: 'Some people are saved more than once in my contacts. Delete the duplicate entries so that everyone appears only once.',
  params: DupParams,
  maxSteps: 40,
  generate: (rng) => {
    const people = drawPeople(rng, rng.int(8, 13));
    const dupes = rng.sample(people.map((_, i) => i), rng.int(2, 3));
    const copies = people.map((_, i) => (dupes.includes(i) ? (rng.chance(0.25) ? 3 : 2) : 1));
    return { people, copies };
  },
  initialize: async (device, p) => {
    // Copies are added later than the originals, as an import would; the list sorts them together.
    const extra = p.people.flatMap((x, i) => Array.from({ length: p.copies[i]! - 1 }, () => x));
    await seedContacts(device, [...p.people, ...extra]);
  },
  check: async (device, p) => {
    const list = await listContacts(device);
    return verdictOf([contactCount(list, p.people.length), contactsKept(list, p.people, 'people there once each')]);
  },
  subgoals: (p) => [
    contactsOpen,
    { name: 'selection mode', check: async ({ obs }) => onScreen(obs, { resourceId: 'menu_delete' }) },
    confirmOpen,
    {
      name: 'duplicates deleted',
      check: async ({ device }) => {
        const list = await listContacts(device);
        return p.people.every((x) => withName(list, x.name).length === 1);
      },
    },
  ],
  *oracle(p, ui) {
    yield* launch(ui, 'Contacts');
    const dupes = p.people.map((x, i) => ({ name: x.name, copies: p.copies[i]! })).filter((x) => x.copies > 1)
      .sort((a, b) => a.name.localeCompare(b.name, 'en', { sensitivity: 'base' }));
    for (const [i, d] of dupes.entries()) yield* selectExtraCopies(ui, d.name, d.copies, i === 0);
    yield ui.tap({ resourceId: 'menu_delete' });
    yield ui.tap({ resourceId: 'android:id/button1' });
    yield ui.complete();
  },
});

export const DELETE_TASKS: readonly TaskTemplate[] = [DeleteContact, DeleteDuplicates];
