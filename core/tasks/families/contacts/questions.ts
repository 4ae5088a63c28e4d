import { z } from 'zod';
import { emailFor, FIRST_NAMES } from '../../../seed-data/people.js';
import { randomCompanies } from '../../../seed-data/companies.js';
import { launch } from '../../oracle.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { answeredWords, answerVerdict } from '../../validators/answers.js';
import { onScreen } from '../../validators/ui.js';
import { normalizePhone } from './contacts-db.js';
import { contactOpen, contactsOpen, drawPeople, NAME_ROW, openContact, PersonSchema, seedContacts, visibleNames } from './common.js';
import { holds, verdictOf } from '../../verdict.js';

/**
 * Questions answered from what Contacts shows: a person's number (find them in a long list), how
 * many names start with a letter (scroll through a section), how many people work somewhere (the
 * list does not show companies; search does match them).
 */

const PhoneParams = z.object({ person: PersonSchema, others: z.array(PersonSchema) });

export const PhoneNumberQuestion = defineTask({
  id: 'ContactsPhoneNumberQuestion',
  apps: ['Contacts'],
  difficulty: 'easy',
  tags: ['information_retrieval', 'needs_scrolling', 'screen_reading'],
  kind: 'information_retrieval',
  template: "What is {name}'s phone number?",
  params: PhoneParams,
  generate: (rng) => {
    const [person, ...others] = drawPeople(rng, rng.int(14, 19));
    return { person: person!, others };
  },
  instruction: (p) => `What is ${p.person.name}'s phone number?`,
  initialize: async (device, p) => seedContacts(device, [...p.others.slice(0, 6), p.person, ...p.others.slice(6)]),
  // Any formatting of the digits counts ("(415) 555-0134", "+1 415 555 0134").
  check: async (_device, p, episode) => verdictOf([holds(`answer is the number ${p.person.phone}`, episode.answer !== undefined && normalizePhone(episode.answer) === p.person.phone,
    { expected: p.person.phone, found: answeredWords(episode.answer) })]),
  subgoals: (p) => [contactsOpen, contactOpen(p.person.name)],
  *oracle(p, ui) {
    yield* openContact(ui, p.person.name);
    yield ui.answer(ui.require({ resourceId: 'header' }).node.text);
  },
});

/** Initials with at least two first names in the vocabulary. */
const INITIALS = [...new Set(FIRST_NAMES.map((f) => f[0]!))].filter((l) => FIRST_NAMES.filter((f) => f.startsWith(l)).length >= 2).sort();

const LetterParams = z.object({ letter: z.string().length(1), people: z.array(PersonSchema), answer: z.int().min(1) });

export const CountQuestion = defineTask({
  id: 'ContactsCountQuestion',
  apps: ['Contacts'],
  difficulty: 'medium',
  tags: ['information_retrieval', 'math_counting', 'needs_scrolling'],
  kind: 'information_retrieval',
  template: 'How many of my contacts have a name starting with the letter {letter}?',
  params: LetterParams,
  generate: (rng) => {
    const letter = rng.pick(INITIALS);
    const available = FIRST_NAMES.filter((f) => f.startsWith(letter)).length;
    const targets = drawPeople(rng, rng.int(1, Math.min(3, available)), { accept: (f) => f.startsWith(letter) });
    const others = drawPeople(rng, rng.int(14, 18), { accept: (f) => !f.startsWith(letter), avoid: targets });
    return { letter, people: rng.shuffle([...targets, ...others]), answer: targets.length };
  },
  initialize: async (device, p) => seedContacts(device, p.people),
  check: async (_device, p, episode) => answerVerdict(episode.answer, String(p.answer)),
  subgoals: (p) => [
    contactsOpen,
    { name: `section ${p.letter} on screen`, check: async ({ obs }) => onScreen(obs, { resourceId: 'section_header', text: p.letter }) },
  ],
  *oracle(p, ui) {
    yield* launch(ui, 'Contacts');
    const seen = new Set<string>();
    for (let guard = 0; guard < 30; guard++) {
      const names = visibleNames(ui);
      names.filter((n) => n.toUpperCase().startsWith(p.letter)).forEach((n) => seen.add(n));
      // The list is alphabetical: once a later initial shows, the section is complete.
      if (names.some((n) => n.charAt(0).toUpperCase() > p.letter)) break;
      const before = ui.fingerprint();
      yield ui.scroll('down');
      if (ui.fingerprint() === before) break;
    }
    yield ui.answer(String(seen.size));
  },
});

const CompanyParams = z.object({ company: z.string().min(1), people: z.array(PersonSchema), answer: z.int().min(1) });

export const CompanyCountQuestion = defineTask({
  id: 'ContactsCompanyCountQuestion',
  apps: ['Contacts'],
  difficulty: 'medium',
  tags: ['information_retrieval', 'math_counting', 'search'],
  kind: 'information_retrieval',
  template: 'How many of my contacts work at {company}?',
  params: CompanyParams,
  generate: (rng) => {
    const [company, ...elsewhere] = randomCompanies(rng, 4);
    const all = drawPeople(rng, rng.int(14, 18));
    const k = rng.int(2, 4);
    const people = all.map((x, i) => {
      const employer = i < k ? company! : rng.chance(0.6) ? rng.pick(elsewhere) : undefined;
      const email = rng.chance(0.4) ? emailFor(x, 'gmail.com') : undefined;
      return { ...x, ...(employer ? { company: employer } : {}), ...(email ? { email } : {}) };
    });
    return { company: company!, people: rng.shuffle(people), answer: k };
  },
  initialize: async (device, p) => seedContacts(device, p.people),
  check: async (_device, p, episode) => answerVerdict(episode.answer, String(p.answer)),
  subgoals: (p) => [
    contactsOpen,
    { name: 'company searched', check: async ({ obs }) => onScreen(obs, { resourceId: 'open_search_view_edit_text', text: p.company }) },
  ],
  *oracle(p, ui) {
    yield* launch(ui, 'Contacts');
    yield ui.tap({ resourceId: 'open_search_bar_text_view' });
    yield ui.type({ resourceId: 'open_search_view_edit_text' }, p.company);
    yield ui.answer(String(ui.findAll({ resourceId: NAME_ROW }).length));
  },
});

export const QUESTION_TASKS: readonly TaskTemplate[] = [PhoneNumberQuestion, CountQuestion, CompanyCountQuestion];
