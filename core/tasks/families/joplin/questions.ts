import { z } from 'zod';
import type { Rng } from '../../../util/rng.js';
import {
  MEETING_BODIES, MEETING_TITLES, QUESTION_NOTE_BODIES, QUESTION_NOTE_TITLES, RECIPE_BODIES, RECIPE_INGREDIENTS, RECIPE_QUANTITIES,
  RECIPE_TITLES, TODO_NOTEBOOKS,
} from '../../../seed-data/joplin-notes.js';
import { OracleError, screenSummary } from '../../oracle.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { answerVerdict } from '../../validators/answers.js';
import {
  distractorNotes, installNotes, joplinOpen, noteOpen, notebookListed, openNotebook, openNoteByTitle, readNoteBody, readTodoTitles,
  SeedNote,
} from './common.js';

/**
 * Questions answered from Joplin's screens, as AndroidWorld's Notes* templates ask them: whether a
 * note is a to-do (its check box), how many attended a meeting (a line of the minutes), how much of
 * an ingredient a recipe needs (its ingredient list), and how many to-dos a notebook holds (rows
 * with a check box, down a list longer than the screen). The asked-about note sits among some
 * forty everyday notes in a dozen notebooks.
 */

/** The target placed at a random position among the distractors. */
function among(rng: Rng, target: readonly SeedNote[], others: readonly SeedNote[]): SeedNote[] {
  return rng.shuffle([...target, ...others]);
}

const Distractors = z.array(SeedNote);

const IsTodo = z.object({ title: z.string().min(1), isTodo: z.boolean(), notes: Distractors });

export const IsTodoQuestion = defineTask({
  id: 'JoplinIsTodoQuestion',
  maxSteps: 15,
  apps: ['Joplin'],
  difficulty: 'easy',
  tags: ['information_retrieval', 'search', 'screen_reading'],
  kind: 'information_retrieval',
  template: "Is the note titled '{title}' in the Joplin app marked as a todo item? Respond with either 'True' if it is a todo or 'False' if not.",
  params: IsTodo,
  generate: (rng) => {
    const title = rng.pick(QUESTION_NOTE_TITLES);
    const isTodo = rng.chance(0.5);
    const target: SeedNote = { folder: rng.pick(TODO_NOTEBOOKS), title, body: rng.pick(QUESTION_NOTE_BODIES), isTodo, completed: false };
    return { title, isTodo, notes: among(rng, [target], distractorNotes(rng, rng.int(30, 45), { avoidTitles: [title] })) };
  },
  initialize: async (device, p) => installNotes(device, p.notes),
  check: async (_device, p, episode) => answerVerdict(episode.answer, p.isTodo ? 'True' : 'False'),
  subgoals: (p) => [joplinOpen, noteOpen(p.title)],
  *oracle(p, ui) {
    yield* openNoteByTitle(ui, p.title);
    yield ui.answer(ui.exists({ resourceId: 'note_todo_checkbox' }) ? 'True' : 'False');
  },
});

const Meeting = z.object({ title: z.string().min(1), attendees: z.int().min(1), notes: Distractors });

/** The number of people a meeting note says attended ("12 people attended", "Attended by 12 participants"). */
export function attendeesIn(lines: readonly string[]): number | null {
  for (const line of lines) {
    const m = /\b(\d+)\s+(?:people|participants|attendees|individuals)\b/i.exec(line) ?? /\battended by (\d+)\b/i.exec(line);
    if (m) return Number(m[1]);
  }
  return null;
}

export const MeetingAttendeesQuestion = defineTask({
  id: 'JoplinMeetingAttendeesQuestion',
  maxSteps: 15,
  apps: ['Joplin'],
  difficulty: 'easy',
  tags: ['information_retrieval', 'search', 'screen_reading'],
  kind: 'information_retrieval',
  template: "How many attendees were present in the meeting titled '{title}' in the Joplin app? Express your answer as just a single number.",
  params: Meeting,
  generate: (rng) => {
    const title = rng.pick(MEETING_TITLES);
    const attendees = rng.int(1, 20) * 5;
    const body = rng.pick(MEETING_BODIES).replace('{n}', String(attendees));
    const target: SeedNote = { folder: 'Meeting Notes', title, body, isTodo: false, completed: false };
    return { title, attendees, notes: among(rng, [target], distractorNotes(rng, rng.int(30, 45), { avoidTitles: [title] })) };
  },
  initialize: async (device, p) => installNotes(device, p.notes),
  check: async (_device, p, episode) => answerVerdict(episode.answer, String(p.attendees)),
  subgoals: (p) => [joplinOpen, noteOpen(p.title)],
  *oracle(p, ui) {
    yield* openNoteByTitle(ui, p.title);
    const n = attendeesIn(yield* readNoteBody(ui));
    if (n === null) throw new OracleError(`Oracle found no attendee count in "${p.title}"`, screenSummary(ui.obs));
    yield ui.answer(String(n));
  },
});

const Recipe = z.object({ title: z.string().min(1), ingredient: z.string().min(1), quantity: z.string().min(1), notes: Distractors });

/** The quantity on an ingredient line ("1/2 cup chia seeds" → "1/2 cup"); the last such line when several name it. */
export function quantityOf(lines: readonly string[], ingredient: string): string | null {
  const want = ingredient.trim().toLowerCase();
  let found: string | null = null;
  for (const line of lines) {
    const t = line.trim();
    if (t.toLowerCase().endsWith(` ${want}`) && /^\d/.test(t)) found = t.slice(0, t.length - want.length).trim();
  }
  return found;
}

export const RecipeQuantityQuestion = defineTask({
  id: 'JoplinRecipeQuantityQuestion',
  maxSteps: 15,
  apps: ['Joplin'],
  difficulty: 'easy',
  tags: ['information_retrieval', 'search', 'screen_reading'],
  kind: 'information_retrieval',
  template: "What quantity of {ingredient} do I need for the recipe '{title}' in the Joplin app? Express your answer in the format <amount> <unit> where both the amount and unit exactly match the format in the recipe.",
  params: Recipe,
  generate: (rng) => {
    const title = rng.pick(RECIPE_TITLES);
    const ingredient = rng.pick(RECIPE_INGREDIENTS);
    const quantity = rng.pick(RECIPE_QUANTITIES);
    const body = rng.pick(RECIPE_BODIES).replace('{q}', `${quantity} ${ingredient}`);
    const target: SeedNote = { folder: 'Recipes', title, body, isTodo: false, completed: false };
    return { title, ingredient, quantity, notes: among(rng, [target], distractorNotes(rng, rng.int(30, 45), { avoidTitles: [title] })) };
  },
  initialize: async (device, p) => installNotes(device, p.notes),
  check: async (_device, p, episode) => answerVerdict(episode.answer, p.quantity),
  subgoals: (p) => [joplinOpen, noteOpen(p.title)],
  *oracle(p, ui) {
    yield* openNoteByTitle(ui, p.title);
    const q = quantityOf(yield* readNoteBody(ui), p.ingredient);
    if (q === null) throw new OracleError(`Oracle found no line for ${p.ingredient} in "${p.title}"`, screenSummary(ui.obs));
    yield ui.answer(q);
  },
});

const TodoCount = z.object({ folder: z.string().min(1), count: z.int().min(0), notes: Distractors });

export const TodoCountQuestion = defineTask({
  id: 'JoplinTodoCountQuestion',
  maxSteps: 30,
  apps: ['Joplin'],
  difficulty: 'medium',
  tags: ['information_retrieval', 'math_counting', 'needs_scrolling', 'screen_reading'],
  kind: 'information_retrieval',
  template: "How many to-dos do I have in the '{folder}' folder in the Joplin app? Express your answer as just a single number.",
  params: TodoCount,
  generate: (rng) => {
    const folder = rng.pick(TODO_NOTEBOOKS);
    const count = rng.int(2, 5);
    const todos = rng.sample(QUESTION_NOTE_TITLES, count).map((title) => ({ folder, title, body: rng.pick(QUESTION_NOTE_BODIES), isTodo: true, completed: false }));
    // The notebook's other notes are plain notes; to-dos elsewhere are distractors.
    const plainHere = distractorNotes(rng, rng.int(8, 16), { notebooks: [folder], todos: false });
    const elsewhere = distractorNotes(rng, rng.int(25, 35), { notebooks: TODO_NOTEBOOKS.filter((f) => f !== folder) });
    return { folder, count, notes: among(rng, todos, [...plainHere, ...elsewhere]) };
  },
  initialize: async (device, p) => installNotes(device, p.notes),
  check: async (_device, p, episode) => answerVerdict(episode.answer, String(p.count)),
  subgoals: (p) => [joplinOpen, notebookListed(p.folder)],
  *oracle(p, ui) {
    yield* openNotebook(ui, p.folder);
    const titles = yield* readTodoTitles(ui);
    yield ui.answer(String(titles.length));
  },
});

export const QUESTION_TASKS: readonly TaskTemplate[] = [IsTodoQuestion, MeetingAttendeesQuestion, RecipeQuantityQuestion, TodoCountQuestion];
