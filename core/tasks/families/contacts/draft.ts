import { z } from 'zod';
import { flattenUiTree } from '../../../a11y/ui-tree.js';
import { launch } from '../../oracle.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { inActivity } from '../../validators/ui.js';
import { condition, holds, verdictOf } from '../../verdict.js';
import { listContacts } from './contacts-db.js';
import { contactsOpen, drawPeople, EDITOR, editorOpen, PersonSchema, seedContacts, typed } from './common.js';

/**
 * AndroidWorld's ContactsNewContactDraft: the new-contact form filled in (first and last name, a
 * number, the number's label) and left unsaved. The check reads the screen, as AndroidWorld's does:
 * the editor in front with those values in its fields and that label under the number, and no
 * contact added.
 */
const LABELS = ['Home', 'Work'] as const;
const Draft = z.object({ first: z.string().min(1), last: z.string().min(1), phone: z.string().min(3), label: z.enum(LABELS), others: z.array(PersonSchema) });

const digits = (s: string) => s.replace(/\D/g, '');

export const NewContactDraft = defineTask({
  id: 'ContactsNewContactDraft',
  apps: ['Contacts'],
  difficulty: 'medium',
  tags: ['data_entry', 'dialog'],
  kind: 'completion',
  template: 'Go to the new contact screen and enter the following details: First Name: {first}, Last Name: {last}, Phone: {phone}, Phone Label: {label}. Do NOT hit save.',
  params: Draft,
  generate: (rng) => {
    const [person, ...others] = drawPeople(rng, rng.int(3, 6));
    const d = person!.phone;
    return { first: person!.first, last: person!.last, phone: `${d.slice(0, 3)}-${d.slice(3, 6)}-${d.slice(6)}`, label: rng.pick(LABELS), others };
  },
  initialize: async (device, p) => seedContacts(device, p.others),
  check: async (device, p) => {
    const els = flattenUiTree(await device.uiTree());
    const fg = await device.foreground();
    const field = (hint: string) => els.find((e) => e.node.className === 'android.widget.EditText' && e.node.resourceId.endsWith(`:id/${hint}`));
    const first = field('first_name')?.node.text ?? '';
    const last = field('last_name')?.node.text ?? '';
    const phone = field('phone_0')?.node.text ?? '';
    const label = els.find((e) => e.node.contentDesc.endsWith(' Phone'))?.node.text ?? '';
    const saved = (await listContacts(device)).length;
    return verdictOf([
      condition('new contact screen in front', EDITOR, fg.activity),
      condition('first name', p.first, first),
      condition('last name', p.last, last),
      holds('phone', digits(phone) === digits(p.phone), { expected: p.phone, found: phone }),
      condition('phone label', p.label, label),
      condition('contacts saved', String(p.others.length), String(saved)),
    ]);
  },
  subgoals: (p) => [
    contactsOpen,
    editorOpen,
    typed('first name', p.first),
    typed('number', p.phone),
    { name: `label ${p.label} chosen`, check: async ({ obs }) => inActivity(obs, 'com.google.android.contacts', EDITOR) && obs.elements.some((e) => e.node.contentDesc === `${p.label} Phone`) },
  ],
  *oracle(p, ui) {
    yield* launch(ui, 'Contacts');
    yield ui.tap({ contentDesc: 'Create contact' });
    yield ui.type({ text: 'First name' }, p.first);
    yield ui.type({ text: 'Last name' }, p.last);
    yield ui.type({ text: 'Phone' }, p.phone);
    yield ui.tap({ contentDesc: 'Mobile Phone' });
    yield ui.tap({ text: p.label, className: 'android.widget.RadioButton' });
    yield ui.complete();
  },
});

export const DRAFT_TASKS: readonly TaskTemplate[] = [NewContactDraft];
