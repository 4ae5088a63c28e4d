import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { launch, OracleError, screenSummary, type OracleUi } from '../../oracle.js';
import { EXPENSE_CATEGORY_NAMES, randomExpenses, type ExpenseCategoryName } from '../../../seed-data/expenses.js';
import { PREP_TIME_OPTIONS, randomRecipes, type RecipeDraft } from '../../../seed-data/recipes.js';
import { randomNoteNames, randomNoteText } from '../../../seed-data/notes.js';
import { randomPhone } from '../../../seed-data/people.js';
import { keptThenWanted } from '../../validators/records.js';
import { met, verdictOf } from '../../verdict.js';
import { EDITOR, documentOpen, markorOpen, Note, openEntry, openMarkor } from '../markor/common.js';
import { clearMarkor, notebookTree, readNote, sameTypedText, treeOf, treeVerdict, writeNote } from '../markor/markor-files.js';
import { createNote } from '../markor/rewrite.js';
import { addExpense, APP as EXPENSE_APP, entryOpen, expenseOpen } from '../expense/common.js';
import { EXACT_EXPENSE, listExpenses, LOOSE_EXPENSE, resetExpenses } from '../expense/expense-db.js';
import { Draft } from '../expense/params.js';
import { APP as BROCCOLI, broccoliOpen, editorOpen, fillEditor, Recipe } from '../recipes/common.js';
import { EXACT_RECIPE, listRecipes, recipeKind, resetRecipes } from '../recipes/recipes-db.js';
import { chooseRecipient, formatPhone, messageSent, openSms, seedSms, sentVerdict, typeAndSend } from '../sms/common.js';

/**
 * A note in Markor as the source of another app's records (AndroidWorld's
 * ExpenseAddMultipleFromMarkor, RecipeAddMultipleRecipesFromMarkor and …Markor2), and a note
 * shared by text (MarkorCreateNoteAndSms). The oracle reads the note where a person reads it, in
 * Markor's editor, and parses its table or its blocks; the checkers want exactly the asked records
 * added and every other record, note and message left alone.
 */
function* readNoteInEditor(ui: OracleUi, file: string): Generator<Action, string, void> {
  yield* openMarkor(ui);
  yield* openEntry(ui, file);
  return ui.require(EDITOR).node.text;
}

// ------------------------------------------------------------------ expenses

/** The words that mark a row to log, appended to its note (as AndroidWorld writes them). */
const REIMBURSABLE = 'Reimbursable.';

/** "$446.73", "$12.5", "$100.0" → cents. */
function cents(amount: string): number {
  return Math.round(Number(amount.replace(/[$,\s]/g, '')) * 100);
}

/** The transactions table: `name|amount_dollars|category_name|note`, one row a line. */
function expenseTable(rows: ReadonlyArray<{ name: string; amount: number; category: string; note: string }>): string {
  return ['name|amount_dollars|category_name|note', ...rows.map((r) => `${r.name}|$${r.amount / 100}|${r.category}|${r.note}`)].join('\n');
}

const FromMarkor = z.object({ file: z.string().min(1), targets: z.array(Draft).min(1), noise: z.array(Draft), logged: z.array(Draft) });

export const MarkorExpensesToExpense = defineTask({
  id: 'MultiMarkorExpensesToExpense',
  apps: ['Pro Expense', 'Markor'],
  difficulty: 'hard',
  tags: ['multi_app', 'data_entry', 'screen_reading', 'transcription'],
  kind: 'completion',
  template: 'Go through the transactions in {file} in Markor. Log the reimbursable transactions in the pro expense.',
  params: FromMarkor,
  maxSteps: 60,
  generate: (rng) => {
    const targets = randomExpenses(rng, rng.int(1, 3));
    // The other rows say nothing of being reimbursable (the notes' vocabulary has a "Reimbursable").
    const noise = randomExpenses(rng, rng.int(8, 40), { avoid: targets.map((t) => t.name) }).map((e) => (/reimburs/i.test(e.note) ? { ...e, note: 'Paid by card' } : e));
    // Already logged: other expenses (a row logged twice would be ambiguous to check).
    const logged = randomExpenses(rng, rng.int(3, 8), { avoid: targets.map((t) => t.name) });
    return { file: rng.pick(['my_expenses.txt', 'expenses.txt', 'transactions.txt']), targets, noise, logged };
  },
  initialize: async (device, p) => {
    await resetExpenses(device, p.logged);
    await clearMarkor(device);
    const marked = p.targets.map((t) => ({ ...t, note: `${t.note}. ${REIMBURSABLE}` }));
    const rows = [...marked, ...p.noise].sort((a, b) => a.name.localeCompare(b.name) || a.amount - b.amount);
    await writeNote(device, p.file, expenseTable(rows));
  },
  // The marker says which rows to log; it is not part of the note logged.
  check: async (device, p) => verdictOf(keptThenWanted(await listExpenses(device), EXACT_EXPENSE, p.logged, LOOSE_EXPENSE, p.targets, 'logged')),
  subgoals: (p) => [
    markorOpen,
    documentOpen(p.file),
    expenseOpen,
    entryOpen,
    { name: 'reimbursable transactions logged', check: async ({ device }) => met(keptThenWanted(await listExpenses(device), EXACT_EXPENSE, p.logged, LOOSE_EXPENSE, p.targets, 'logged')) },
  ],
  *oracle(p, ui) {
    const text = yield* readNoteInEditor(ui, p.file);
    const [header, ...rows] = text.split('\n').filter((l) => l.trim());
    const cols = (header ?? '').split('|').map((c) => c.trim());
    const at = (name: string) => cols.indexOf(name);
    const toLog = rows.map((r) => r.split('|')).filter((f) => /reimbursable\.?\s*$/i.test(f[at('note')] ?? ''));
    if (toLog.length === 0) throw new OracleError(`No reimbursable rows in ${p.file}`, screenSummary(ui.obs));
    yield* launch(ui, EXPENSE_APP);
    for (const f of toLog) {
      const category = f[at('category_name')]!.trim();
      if (!(EXPENSE_CATEGORY_NAMES as readonly string[]).includes(category)) throw new OracleError(`Unknown category ${category}`, screenSummary(ui.obs));
      const note = f[at('note')]!.replace(/\.?\s*Reimbursable\.?\s*$/, '').trim();
      yield* addExpense(ui, { name: f[at('name')]!.trim(), amount: cents(f[at('amount_dollars')]!), category: category as ExpenseCategoryName, note, date: 0 });
    }
    yield ui.complete();
  },
});

// ------------------------------------------------------------------ recipes

const RECIPE_FIELDS = ['title', 'description', 'servings', 'preparationTime', 'ingredients', 'directions'] as const;
type RecipeText = Record<(typeof RECIPE_FIELDS)[number], string>;

/** A recipe as the file writes it: ingredients on one line (commas), as AndroidWorld's descriptors are. */
function recipeText(r: RecipeDraft): RecipeText {
  return { title: r.title, description: r.description, servings: r.servings, preparationTime: r.preparationTime, ingredients: r.ingredients.split('\n').join(', '), directions: r.directions };
}

/** AndroidWorld's two ways of writing rows: a `|` table with a header, or blocks ("Recipe: title" then " field: value" lines). */
function recipesFile(rows: readonly RecipeText[], format: 'csv' | 'text_block'): string {
  if (format === 'csv') return [RECIPE_FIELDS.join('|'), ...rows.map((r) => RECIPE_FIELDS.map((f) => r[f]).join('|'))].join('\n');
  return rows.map((r) => [`Recipe: ${r.title}`, ...RECIPE_FIELDS.filter((f) => f !== 'title').map((f) => ` ${f}: ${r[f]}`)].join('\n') + '\n').join('\n');
}

/** The recipes a file holds, in either format. */
export function parseRecipes(text: string): RecipeText[] {
  const lines = text.split('\n');
  if ((lines[0] ?? '').startsWith('title|')) {
    const cols = lines[0]!.split('|');
    return lines.slice(1).filter((l) => l.trim()).map((l) => {
      const f = l.split('|');
      return Object.fromEntries(RECIPE_FIELDS.map((k) => [k, (f[cols.indexOf(k)] ?? '').trim()])) as RecipeText;
    });
  }
  const out: RecipeText[] = [];
  let cur: Partial<RecipeText> | null = null;
  for (const line of lines) {
    const head = /^Recipe:\s*(.*)$/.exec(line);
    if (head) {
      cur = { title: head[1]!.trim() };
      out.push(cur as RecipeText);
      continue;
    }
    const field = /^\s+(\w+):\s?(.*)$/.exec(line);
    if (cur && field && (RECIPE_FIELDS as readonly string[]).includes(field[1]!)) cur[field[1] as keyof RecipeText] = field[2]!.trim();
  }
  return out.map((r) => ({ ...Object.fromEntries(RECIPE_FIELDS.map((k) => [k, ''])), ...r }) as RecipeText);
}

const RecipesFromMarkor = z.object({
  file: z.string().min(1), format: z.enum(['csv', 'text_block']), prep_time: z.string().nullable(),
  targets: z.array(Recipe).min(1), others: z.array(Recipe), existing: z.array(Recipe),
});

function recipesImport(o: { id: string; byTime: boolean }) {
  return defineTask({
    id: o.id,
    apps: ['Broccoli', 'Markor'],
    difficulty: 'hard',
    tags: ['multi_app', 'data_entry', 'screen_reading', 'transcription', ...(o.byTime ? ['needs_scrolling' as const] : [])],
    kind: 'completion',
    template: o.byTime
      ? 'Add the recipes from {file} in Markor that take {prep_time} to prepare into the Broccoli recipe app.'
      : 'Add the recipes from {file} in Markor to the Broccoli recipe app.',
    params: RecipesFromMarkor,
    maxSteps: 120,
    generate: (rng) => {
      const all = randomRecipes(rng, o.byTime ? rng.int(6, 14) : rng.int(1, 3)).map((r) => ({ ...r, source: '', ingredients: r.ingredients.split('\n').join(', ') }));
      const prep = o.byTime ? rng.pick(PREP_TIME_OPTIONS) : null;
      if (prep !== null) all.slice(0, rng.int(1, 3)).forEach((r) => { r.preparationTime = prep; });
      const targets = prep === null ? all : all.filter((r) => r.preparationTime === prep);
      return {
        file: 'recipes.txt', format: rng.pick(['csv', 'text_block'] as const), prep_time: prep,
        targets, others: all.filter((r) => !targets.includes(r)), existing: randomRecipes(rng, rng.int(3, 8), all.map((r) => r.title)),
      };
    },
    instruction: (p) => o.byTime
      ? `Add the recipes from ${p.file} in Markor that take ${p.prep_time} to prepare into the Broccoli recipe app.`
      : `Add the recipes from ${p.file} in Markor to the Broccoli recipe app.`,
    initialize: async (device, p) => {
      await resetRecipes(device, p.existing);
      await clearMarkor(device);
      const rows = [...p.targets, ...p.others].sort((a, b) => a.directions.localeCompare(b.directions)).map(recipeText);
      await writeNote(device, p.file, recipesFile(rows, p.format));
    },
    check: async (device, p) => verdictOf(keptThenWanted(await listRecipes(device), EXACT_RECIPE, p.existing, recipeKind(true), p.targets, 'added')),
    subgoals: (p) => [
      markorOpen,
      documentOpen(p.file),
      broccoliOpen,
      editorOpen,
      { name: 'recipes added', check: async ({ device }) => met(keptThenWanted(await listRecipes(device), EXACT_RECIPE, p.existing, recipeKind(true), p.targets, 'added')) },
    ],
    *oracle(p, ui) {
      const rows = parseRecipes(yield* readNoteInEditor(ui, p.file));
      const wanted = o.byTime ? rows.filter((r) => r.preparationTime.toLowerCase() === (p.prep_time ?? '').toLowerCase()) : rows;
      if (wanted.length === 0) throw new OracleError(`No recipe to add in ${p.file}`, screenSummary(ui.obs));
      yield* launch(ui, BROCCOLI);
      for (const r of wanted) {
        yield ui.tap({ contentDesc: 'New Recipe' });
        yield* fillEditor(ui, { ...r, source: '', favorite: false });
      }
      yield ui.complete();
    },
  });
}

export const MarkorRecipesToBroccoli = recipesImport({ id: 'MultiMarkorRecipesToBroccoli', byTime: false });
export const MarkorRecipesByTimeToBroccoli = recipesImport({ id: 'MultiMarkorRecipesByTimeToBroccoli', byTime: true });

// ------------------------------------------------------------------ note, then text it

const NoteSms = z.object({ file_name: z.string().min(1), text: z.string().min(1), number: z.string().min(3), others: z.array(Note) });

export const MarkorNoteThenSms = defineTask({
  id: 'MultiMarkorNoteThenSms',
  apps: ['Markor', 'Simple SMS Messenger'],
  difficulty: 'medium',
  tags: ['multi_app', 'data_entry', 'dialog'],
  kind: 'completion',
  template: 'Create a new note in Markor named {file_name} with the following text: {text}. Share the entire content of the note with the phone number {number} via SMS using Simple SMS Messenger',
  params: NoteSms,
  generate: (rng) => {
    const [file, ...names] = randomNoteNames(rng, 1 + rng.int(1, 5));
    return { file_name: file!, text: randomNoteText(rng, 1), number: formatPhone(rng, randomPhone(rng)), others: names.map((name) => ({ name, text: randomNoteText(rng, 1) })) };
  },
  initialize: async (device, p) => {
    await clearMarkor(device);
    for (const n of p.others) await writeNote(device, n.name, n.text);
    await seedSms(device, []);
  },
  check: async (device, p) => verdictOf([
    ...(await treeVerdict(await notebookTree(device), treeOf([...p.others, { name: p.file_name, text: p.text }]), { [p.file_name]: (t) => sameTypedText(t, p.text) })).conditions,
    ...(await sentVerdict(device, [], p.number, p.text)).conditions,
  ]),
  subgoals: (p) => [
    markorOpen,
    documentOpen(p.file_name),
    { name: 'note saved', check: async ({ device }) => sameTypedText(await readNote(device, p.file_name), p.text) },
    messageSent([], p.number, p.text),
  ],
  *oracle(p, ui) {
    yield* openMarkor(ui);
    yield* createNote(ui, p.file_name);
    yield ui.type(EDITOR, p.text);
    yield ui.tap({ contentDesc: 'Save' });
    yield* openSms(ui);
    yield ui.tap({ contentDesc: 'Start a conversation' });
    yield* chooseRecipient(ui, { number: p.number });
    yield* typeAndSend(ui, p.text);
    yield ui.complete();
  },
});

export const IMPORT_TASKS: readonly TaskTemplate[] = [MarkorExpensesToExpense, MarkorRecipesToBroccoli, MarkorRecipesByTimeToBroccoli, MarkorNoteThenSms];
