import { z } from 'zod';
import { randomRecipe, randomRecipes, RECIPE_BASES, RECIPE_DESCRIPTIONS } from '../../../seed-data/recipes.js';
import { launch } from '../../oracle.js';
import { defineTask, type Subgoal, type TaskTemplate } from '../../task.js';
import { onScreen } from '../../validators/ui.js';
import { APP, broccoliOpen, detailsOpen, findCard, openRecipe, overflow, Recipe } from './common.js';
import { exactlyVerdict, resetRecipes } from './recipes-db.js';
import { met, verdictOf } from '../../verdict.js';

/**
 * Deleting recipes (AndroidWorld's RecipeDeleteSingleRecipe, RecipeDeleteMultipleRecipes and
 * RecipeDeleteDuplicateRecipes): afterwards exactly the recipes that should remain are there,
 * untouched. Deleting another recipe, or leaving a target, fails.
 */
const deleteConfirm: Subgoal = { name: 'delete confirmation shown', check: async ({ obs }) => onScreen(obs, { text: 'Delete this recipe?' }) };

const Params = z.object({ targets: z.array(Recipe).min(1), noise: z.array(Recipe) });

export const DeleteSingleRecipe = defineTask({
  id: 'RecipeDeleteSingleRecipe',
  apps: ['Broccoli'],
  difficulty: 'medium',
  tags: ['deletion', 'dialog'],
  kind: 'completion',
  template: 'Delete the following recipe from Broccoli app: {title}.',
  params: Params,
  generate: (rng) => {
    const all = randomRecipes(rng, 1 + rng.int(4, 7));
    all.forEach((r) => { r.favorite = rng.chance(0.3); });
    return { targets: all.slice(0, 1), noise: all.slice(1) };
  },
  instruction: (p) => `Delete the following recipe from Broccoli app: ${p.targets[0]!.title}.`,
  initialize: async (device, p) => resetRecipes(device, [...p.noise, ...p.targets]),
  check: async (device, p) => verdictOf(await exactlyVerdict(device, p.noise)),
  subgoals: (p) => [broccoliOpen, detailsOpen(p.targets[0]!.title), deleteConfirm, { name: 'recipe deleted', check: async ({ device }) => met(await exactlyVerdict(device, p.noise)) }],
  *oracle(p, ui) {
    yield* openRecipe(ui, p.targets[0]!.title);
    yield* overflow(ui, 'Delete');
    yield ui.tap({ text: 'Delete' });
    yield ui.complete();
  },
});

export const DeleteMultipleRecipes = defineTask({
  id: 'RecipeDeleteMultipleRecipes',
  apps: ['Broccoli'],
  difficulty: 'hard',
  tags: ['deletion', 'dialog', 'search', 'needs_scrolling'],
  kind: 'completion',
  template: 'Delete the following recipes from Broccoli app: {titles}.',
  params: Params,
  maxSteps: 30,
  generate: (rng) => {
    const all = randomRecipes(rng, 3 + rng.int(12, 18));
    return { targets: all.slice(0, 3), noise: all.slice(3) };
  },
  instruction: (p) => `Delete the following recipes from Broccoli app: ${p.targets.map((t) => t.title).join(', ')}.`,
  initialize: async (device, p) => resetRecipes(device, [...p.noise, ...p.targets].sort((a, b) => a.directions.localeCompare(b.directions))),
  check: async (device, p) => verdictOf(await exactlyVerdict(device, p.noise)),
  subgoals: (p) => [broccoliOpen, detailsOpen(p.targets[0]!.title), { name: 'recipes deleted', check: async ({ device }) => met(await exactlyVerdict(device, p.noise)) }],
  *oracle(p, ui) {
    yield* launch(ui, APP);
    // Search finds each recipe wherever the list is scrolled to.
    yield ui.tap({ contentDesc: 'Search' });
    for (const t of p.targets) {
      yield ui.type({ resourceId: 'search_src_text' }, t.title, { clear: true });
      yield ui.tap(yield* findCard(ui, t.title));
      yield* overflow(ui, 'Delete');
      yield ui.tap({ text: 'Delete' });
    }
    yield ui.complete();
  },
});

const Dupes = z.object({ target: Recipe, variant: Recipe, noise: z.array(Recipe) });

export const DeleteDuplicateRecipes = defineTask({
  id: 'RecipeDeleteDuplicateRecipes',
  apps: ['Broccoli'],
  difficulty: 'hard',
  tags: ['deletion', 'verification', 'screen_reading', 'dialog'],
  kind: 'completion',
  template: 'Delete all but one of any recipes in the Broccoli app that are exact duplicates, ensuring at least one instance of each unique recipe remains',
  params: Dupes,
  maxSteps: 25,
  generate: (rng) => {
    const base = rng.pick(RECIPE_BASES);
    const target = randomRecipe(rng, base);
    // Same title, other description and servings: not a duplicate, and it must stay.
    const variant = { ...randomRecipe(rng, base), description: rng.pick(RECIPE_DESCRIPTIONS.filter((d) => d !== target.description)) };
    return { target, variant, noise: randomRecipes(rng, rng.int(5, 8), [base.title]) };
  },
  initialize: async (device, p) => resetRecipes(device, [...p.noise, p.variant, p.target, p.target]),
  check: async (device, p) => verdictOf(await exactlyVerdict(device, [...p.noise, p.variant, p.target])),
  subgoals: (p) => [
    broccoliOpen,
    detailsOpen(p.target.title),
    deleteConfirm,
    { name: 'one duplicate deleted', check: async ({ device }) => met(await exactlyVerdict(device, [...p.noise, p.variant, p.target])) },
  ],
  *oracle(p, ui) {
    yield* openRecipe(ui, p.target.title, p.target.description);
    yield* overflow(ui, 'Delete');
    yield ui.tap({ text: 'Delete' });
    yield ui.complete();
  },
});

export const DELETE_TASKS: readonly TaskTemplate[] = [DeleteSingleRecipe, DeleteMultipleRecipes, DeleteDuplicateRecipes];
