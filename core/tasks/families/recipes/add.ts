import { z } from 'zod';
import { randomRecipe, randomRecipes, RECIPE_BASES } from '../../../seed-data/recipes.js';
import { launch } from '../../oracle.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { fieldHolds } from '../../validators/ui.js';
import { APP, broccoliOpen, editorOpen, fillEditor, Recipe } from './common.js';
import { EXACT_RECIPE, listRecipes, recipeKind, resetRecipes, type RecipeRow } from './recipes-db.js';
import { met, verdictOf } from '../../verdict.js';
import { keptThenWanted } from '../../validators/records.js';

/**
 * AndroidWorld's RecipeAddSingleRecipe: ten noise recipes, one to add with its title,
 * description, servings, time, ingredients and directions. Afterwards the noise is untouched and
 * exactly one new recipe holds those values (source empty, not a favourite); ingredients may be
 * typed one a line or separated by commas.
 */
const Params = z.object({ target: Recipe, noise: z.array(Recipe) });
type P = z.infer<typeof Params>;

/** The noise untouched and exactly one new recipe with the target's content. */
const addedConditions = (rows: readonly RecipeRow[], p: P) => keptThenWanted(rows, EXACT_RECIPE, p.noise, recipeKind(true), [p.target], 'added');

export const AddRecipe = defineTask({
  id: 'RecipeAddRecipe',
  apps: ['Broccoli'],
  difficulty: 'medium',
  tags: ['data_entry', 'transcription'],
  kind: 'completion',
  template: 'Add a recipe in Broccoli with title {title}, description {description}, servings {servings}, prep time {time}, ingredients {ingredients}, directions {directions}',
  params: Params,
  maxSteps: 25,
  generate: (rng) => {
    const base = rng.pick(RECIPE_BASES);
    const target = { ...randomRecipe(rng, base), source: '' };
    return { target, noise: randomRecipes(rng, 10, [base.title]) };
  },
  instruction: (p) => {
    const t = p.target;
    return `Add a recipe in Broccoli with title "${t.title}", description "${t.description}", servings "${t.servings}", `
      + `prep time "${t.preparationTime}", ingredients "${t.ingredients.split('\n').join(', ')}" (one per line), directions "${t.directions}".`;
  },
  initialize: async (device, p) => resetRecipes(device, p.noise),
  check: async (device, p) => verdictOf(addedConditions(await listRecipes(device), p)),
  subgoals: (p) => [
    broccoliOpen,
    editorOpen,
    { name: 'title typed', check: async ({ obs }) => fieldHolds(obs, p.target.title) },
    { name: 'recipe saved', check: async ({ device }) => met(addedConditions(await listRecipes(device), p)) },
  ],
  *oracle(p, ui) {
    yield* launch(ui, APP);
    yield ui.tap({ contentDesc: 'New Recipe' });
    yield* fillEditor(ui, p.target);
    yield ui.complete();
  },
});

const Multiple = z.object({ targets: z.array(Recipe).min(1), noise: z.array(Recipe) });
type MP = z.infer<typeof Multiple>;
const addedAll = (rows: readonly RecipeRow[], p: MP) => keptThenWanted(rows, EXACT_RECIPE, p.noise, recipeKind(true), p.targets, 'added');

/** One recipe as AndroidWorld's goals list them: `title|description|servings|preparationTime|ingredients|directions`. */
function recipeLine(r: MP['targets'][number]): string {
  return [r.title, r.description, r.servings, r.preparationTime, r.ingredients.split('\n').join(', '), r.directions].join('|');
}

/** AndroidWorld's RecipeAddMultipleRecipes: several recipes given as a table in the instruction. */
export const AddMultipleRecipes = defineTask({
  id: 'RecipeAddMultipleRecipes',
  apps: ['Broccoli'],
  difficulty: 'hard',
  tags: ['data_entry', 'transcription', 'memorization'],
  kind: 'completion',
  template: 'Add the following recipes into the Broccoli app:\ntitle|description|servings|preparationTime|ingredients|directions\n{recipes}',
  params: Multiple,
  maxSteps: 60,
  generate: (rng) => {
    const targets = randomRecipes(rng, rng.int(2, 3)).map((r) => ({ ...r, source: '' }));
    return { targets, noise: randomRecipes(rng, 10, targets.map((t) => t.title)) };
  },
  instruction: (p) => `Add the following recipes into the Broccoli app:\ntitle|description|servings|preparationTime|ingredients|directions\n${p.targets.map(recipeLine).join('\n')}`,
  initialize: async (device, p) => resetRecipes(device, p.noise),
  check: async (device, p) => verdictOf(addedAll(await listRecipes(device), p)),
  subgoals: (p) => [
    broccoliOpen,
    editorOpen,
    { name: 'first title typed', check: async ({ obs }) => fieldHolds(obs, p.targets[0]!.title) },
    { name: 'recipes saved', check: async ({ device }) => met(addedAll(await listRecipes(device), p)) },
  ],
  *oracle(p, ui) {
    yield* launch(ui, APP);
    for (const t of p.targets) {
      yield ui.tap({ contentDesc: 'New Recipe' });
      yield* fillEditor(ui, t);
    }
    yield ui.complete();
  },
});

export const ADD_TASKS: readonly TaskTemplate[] = [AddRecipe, AddMultipleRecipes];
