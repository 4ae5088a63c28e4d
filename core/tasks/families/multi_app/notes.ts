import { z } from 'zod';
import { defineTask, type TaskTemplate } from '../../task.js';
import { launch } from '../../oracle.js';
import { DAY_MS, DEVICE_NOW, dateParts, msOf, type DateParts } from '../../../seed-data/dates.js';
import { randomTitles, randomSlug, randomParagraph } from '../../../seed-data/text.js';
import { randomRecipes } from '../../../seed-data/recipes.js';
import { clearMarkor, notebookTree, readNote, treeOf, treeVerdict, writeNote } from '../markor/markor-files.js';
import { EDITOR, FAB, NEW_NAME, Note, documentOpen, markorOpen, openEntry, openMarkor } from '../markor/common.js';
import { addEvents, clearEvents } from '../calendar/calendar-db.js';
import { calendarOpen, dayOpen, dayText, EventSchema, openCalendar, openDay, readDayTitles, timedEvent, toInput } from '../calendar/common.js';
import { drawTitles, installSeeds, newRows, norm, othersUntouchedCondition, SeedTask, seedTasks, tasksOpen, withTasks } from '../tasks/common.js';
import { createTask, openTasks } from '../tasks/steps.js';
import { ingredientList, resetRecipes } from '../recipes/recipes-db.js';
import { broccoliOpen, detailsOpen, openRecipe, overflow, Recipe } from '../recipes/common.js';
import { holds, listed, verdictOf } from '../../verdict.js';

/**
 * Multi-app tasks around notes: copy what one app shows into a Markor note (the day's agenda, a
 * recipe's ingredients), or turn a note's lines into tasks. Checkers compare lines (trimmed, case
 * aside) and require every other note, event, task or recipe to be left as it was.
 */
const lines = (text: string | null) => (text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
const sameLines = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((l, i) => l.toLowerCase() === b[i]!.toLowerCase());
const sameSet = (a: readonly string[], b: readonly string[]) => sameLines([...a].map((x) => x.toLowerCase()).sort(), [...b].map((x) => x.toLowerCase()).sort());

/** Creates a Markor note through the new-file dialog and the editor, then saves. */
function* createNote(ui: Parameters<TaskTemplate['oracle']>[1], name: string, text: string) {
  yield* openMarkor(ui);
  yield ui.tap(FAB);
  yield ui.type(NEW_NAME, name);
  yield ui.tap({ text: 'OK' });
  yield ui.type(EDITOR, text);
  yield ui.tap({ contentDesc: 'Save' });
}

function noteWritten(file: string, want: (text: string | null) => boolean) {
  return { name: `${file} written`, check: async ({ device }: { device: Parameters<typeof readNote>[0] }) => want(await readNote(device, file)) };
}

// ------------------------------------------------------------------ Calendar → Markor

const Agenda = z.object({ file: z.string(), day: z.object({ year: z.int(), month: z.int(), day: z.int() }), titles: z.array(z.string()), events: z.array(EventSchema), notes: z.array(Note) });

export const CalendarAgendaToMarkor = defineTask({
  id: 'MultiCalendarAgendaToMarkor',
  maxSteps: 35,
  apps: ['Markor', 'Calendar'],
  difficulty: 'hard',
  tags: ['multi_app', 'screen_reading', 'data_entry', 'date_time'],
  kind: 'completion',
  template: 'Create a note in Markor named {file} with the titles of my Simple Calendar Pro events on {date}, one per line, in the order they happen.',
  params: Agenda,
  generate: (rng) => {
    const day: DateParts = dateParts(DEVICE_NOW + rng.int(1, 30) * DAY_MS);
    const count = rng.int(2, 4);
    const all = randomTitles(rng, count + 3);
    // Distinct start hours, so "the order they happen" is unambiguous.
    const hours = rng.sample([8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18], count).sort((a, b) => a - b);
    const onDay = all.slice(0, count).map((t, i) => ({ ...timedEvent(rng, t, day), start: msOf(day, hours[i]!), end: msOf(day, hours[i]!) + 30 * 60_000 }));
    const elsewhere = all.slice(count).map((t) => timedEvent(rng, t, dateParts(msOf(day) + rng.pick([-2, -1, 1, 2]) * DAY_MS)));
    const notes = Array.from({ length: rng.int(1, 3) }, () => ({ name: `${randomSlug(rng)}.md`, text: randomParagraph(rng) }));
    return {
      file: `agenda_${day.month}_${day.day}.md`, day, titles: onDay.map((e) => e.title),
      events: rng.shuffle([...onDay, ...elsewhere]), notes: notes.filter((n, i) => notes.findIndex((m) => m.name === n.name) === i),
    };
  },
  instruction: (p) => `Create a note in Markor named ${p.file} with the titles of my Simple Calendar Pro events on ${dayText(p.day)}, one per line, in the order they happen.`,
  initialize: async (device, p) => {
    await clearEvents(device);
    await addEvents(device, p.events.map(toInput));
    await clearMarkor(device);
    for (const n of p.notes) await writeNote(device, n.name, n.text);
  },
  check: async (device, p) => treeVerdict(await notebookTree(device), treeOf([...p.notes, { name: p.file, text: p.titles.join('\n') }]), {
    [p.file]: (text) => sameLines(lines(text), p.titles),
  }),
  subgoals: (p) => [calendarOpen, dayOpen(p.day), markorOpen, documentOpen(p.file), noteWritten(p.file, (t) => sameLines(lines(t), p.titles))],
  *oracle(p, ui) {
    yield* openCalendar(ui);
    yield* openDay(ui, p.day);
    const titles = yield* readDayTitles(ui);
    yield* createNote(ui, p.file, titles.join('\n'));
    yield ui.complete();
  },
});

// ------------------------------------------------------------------ Markor → Tasks

const NoteToTasks = z.object({ file: z.string(), items: z.array(z.string()).min(2), seeds: z.array(SeedTask), notes: z.array(Note) });

export const NoteLinesToTasks = defineTask({
  id: 'MultiNoteLinesToTasks',
  maxSteps: 35,
  apps: ['Tasks', 'Markor'],
  difficulty: 'hard',
  tags: ['multi_app', 'screen_reading', 'data_entry', 'transcription'],
  kind: 'completion',
  template: 'Each line of the note {file} in Markor is a to-do. Add each one as a separate task in Tasks.',
  params: NoteToTasks,
  generate: (rng) => {
    const titles = drawTitles(rng, rng.int(5, 8));
    const count = rng.int(2, 3);
    const items = titles.slice(0, count);
    const seeds = seedTasks(rng, titles.slice(count));
    const others = [{ name: `${randomSlug(rng)}.md`, text: randomParagraph(rng) }];
    return { file: rng.pick(['todo_list.md', 'errands.md', 'to_buy.txt', 'weekend_plan.md']), items, seeds, notes: others };
  },
  instruction: (p) => `Each line of the note ${p.file} in Markor is a to-do. Add each one as a separate task in Tasks.`,
  initialize: async (device, p) => {
    await clearMarkor(device);
    await writeNote(device, p.file, p.items.join('\n'));
    for (const n of p.notes) if (n.name !== p.file) await writeNote(device, n.name, n.text);
    await installSeeds(device, p.seeds);
  },
  check: async (device, p) => withTasks(device, (rows) => {
    const added = newRows(rows, p.seeds);
    const titles = added.map((r) => r.title);
    return verdictOf([
      othersUntouchedCondition(rows, p.seeds),
      holds('new tasks are the note\'s items', sameSet(titles.map(norm), p.items.map(norm)), { expected: p.items.join(', '), found: listed(titles) }),
    ]);
  }),
  subgoals: (p) => [
    markorOpen,
    documentOpen(p.file),
    tasksOpen,
    ...p.items.map((item) => ({ name: `task "${item}" added`, check: async ({ device }: { device: Parameters<typeof withTasks>[0] }) => withTasks(device, (rows) => newRows(rows, p.seeds).some((r) => norm(r.title) === norm(item))) })),
  ],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    yield* openEntry(ui, p.file);
    const items = lines(ui.require(EDITOR).node.text);
    yield ui.back();
    yield* openTasks(ui);
    for (const title of items) yield* createTask(ui, { title });
    yield ui.complete();
  },
});

// ------------------------------------------------------------------ Broccoli → Markor

const Ingredients = z.object({ title: z.string(), file: z.string(), ingredients: z.array(z.string()).min(2), recipes: z.array(Recipe), notes: z.array(Note) });

export const RecipeIngredientsToMarkor = defineTask({
  id: 'MultiRecipeIngredientsToMarkor',
  maxSteps: 35,
  apps: ['Markor', 'Broccoli'],
  difficulty: 'hard',
  tags: ['multi_app', 'screen_reading', 'transcription'],
  kind: 'completion',
  template: 'Create a note in Markor named {file} listing the ingredients of the {title} recipe from Broccoli, one per line.',
  params: Ingredients,
  generate: (rng) => {
    const recipes = randomRecipes(rng, rng.int(3, 6));
    const target = rng.pick(recipes);
    const slug = target.title.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '');
    return {
      title: target.title, file: `${slug}_shopping.md`, ingredients: ingredientList(target.ingredients), recipes,
      notes: [{ name: `${randomSlug(rng)}.md`, text: randomParagraph(rng) }],
    };
  },
  instruction: (p) => `Create a note in Markor named ${p.file} listing the ingredients of the ${p.title} recipe from Broccoli, one per line.`,
  initialize: async (device, p) => {
    await resetRecipes(device, p.recipes);
    await clearMarkor(device);
    for (const n of p.notes) await writeNote(device, n.name, n.text);
  },
  check: async (device, p) => treeVerdict(await notebookTree(device), treeOf([...p.notes, { name: p.file, text: p.ingredients.join('\n') }]), {
    [p.file]: (text) => sameSet(lines(text), p.ingredients),
  }),
  subgoals: (p) => [broccoliOpen, detailsOpen(p.title), markorOpen, documentOpen(p.file), noteWritten(p.file, (t) => sameSet(lines(t), p.ingredients))],
  *oracle(p, ui) {
    yield* openRecipe(ui, p.title);
    // The editor shows the ingredients exactly as stored, one per line.
    yield* overflow(ui, 'Edit');
    const text = ui.require({ resourceId: 'new_ingredients' }).node.text;
    yield ui.back();
    yield* launch(ui, 'Markor');
    yield* createNote(ui, p.file, lines(text).join('\n'));
    yield ui.complete();
  },
});

export const NOTE_TASKS: readonly TaskTemplate[] = [CalendarAgendaToMarkor, NoteLinesToTasks, RecipeIngredientsToMarkor];
