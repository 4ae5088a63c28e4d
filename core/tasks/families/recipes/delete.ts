import { z } from 'zod';
import { randomRecipe, randomRecipes, RECIPE_BASES, type RecipeDraft } from '../../../seed-data/recipes.js';
import type { Rng } from '../../../util/rng.js';
import { deleteDuplicateRecipes, deleteRecipesWhoseDirectionsMention } from './walk.js';
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

const Dupes = z.object({ target: Recipe, variants: z.array(Recipe), noise: z.array(Recipe) });

/** Same title (and often description) as the target, something else different: not a duplicate, it stays. */
function variantOf(rng: Rng, base: (typeof RECIPE_BASES)[number], target: RecipeDraft, sameDescription: boolean): RecipeDraft {
  for (;;) {
    const v = { ...randomRecipe(rng, base), ...(sameDescription ? { description: target.description } : {}) };
    if (JSON.stringify(v) !== JSON.stringify(target)) return v;
  }
}

export const DeleteDuplicateRecipes = defineTask({
  id: 'RecipeDeleteDuplicateRecipes',
  apps: ['Broccoli'],
  difficulty: 'hard',
  tags: ['deletion', 'verification', 'screen_reading', 'dialog', 'needs_scrolling'],
  kind: 'completion',
  template: 'Delete all but one of any recipes in the Broccoli app that are exact duplicates, ensuring at least one instance of each unique recipe remains',
  params: Dupes,
  // Each look-alike card is opened and read: AndroidWorld's hardest instances have eight in a row.
  maxSteps: 200,
  generate: (rng) => {
    const base = rng.pick(RECIPE_BASES);
    const target = randomRecipe(rng, base);
    // Look-alikes: same title, and (as in AndroidWorld's harder variants) often the same description too.
    const sameDescription = rng.chance(0.5);
    const variants = Array.from({ length: rng.int(1, 6) }, () => variantOf(rng, base, target, sameDescription && rng.chance(0.8)));
    return { target, variants, noise: randomRecipes(rng, rng.int(5, 20), [base.title]) };
  },
  // The copies are the last rows written, as AndroidWorld adds them after the others.
  initialize: async (device, p) => resetRecipes(device, [...rng0(p.noise, p.variants), p.target, p.target]),
  check: async (device, p) => verdictOf(await exactlyVerdict(device, [...p.noise, ...p.variants, p.target])),
  subgoals: (p) => [
    broccoliOpen,
    detailsOpen(p.target.title),
    deleteConfirm,
    { name: 'one duplicate deleted', check: async ({ device }) => met(await exactlyVerdict(device, [...p.noise, ...p.variants, p.target])) },
  ],
  *oracle(_p, ui) {
    yield* deleteDuplicateRecipes(ui);
    yield ui.complete();
  },
});

/** Noise and look-alikes interleaved in a fixed order (by directions), as a shuffled list would be. */
function rng0(noise: readonly RecipeDraft[], variants: readonly RecipeDraft[]): RecipeDraft[] {
  return [...noise, ...variants].sort((a, b) => a.directions.localeCompare(b.directions) || a.servings.localeCompare(b.servings));
}

/** Ingredients the recipe bases' directions mention, one word or two. */
const DIRECTION_INGREDIENTS = [
  'garlic', 'onion', 'tomato', 'cheese', 'rice', 'lemon', 'basil', 'chicken', 'egg', 'avocado', 'soy sauce', 'coconut milk', 'broccoli',
  'pasta', 'mango', 'tortillas', 'cucumber', 'olive oil', 'butter', 'ginger', 'beans', 'lettuce', 'yogurt', 'spinach',
];

const ByIngredient = z.object({ ingredient: z.string().min(1), targets: z.array(Recipe).min(1), noise: z.array(Recipe) });

/** AndroidWorld's RecipeDeleteMultipleRecipesWithConstraint: the recipes whose directions name an ingredient. */
export const DeleteRecipesByIngredient = defineTask({
  id: 'RecipeDeleteRecipesByIngredient',
  apps: ['Broccoli'],
  difficulty: 'hard',
  tags: ['deletion', 'screen_reading', 'dialog', 'needs_scrolling'],
  kind: 'completion',
  template: 'Delete the recipes from Broccoli app that use {ingredient} in the directions.',
  params: ByIngredient,
  maxSteps: 200,
  generate: (rng) => {
    for (;;) {
      const all = randomRecipes(rng, rng.int(8, 18));
      const mentions = (r: RecipeDraft, w: string) => r.directions.toLowerCase().includes(w);
      const usable = DIRECTION_INGREDIENTS.filter((w) => { const n = all.filter((r) => mentions(r, w)).length; return n >= 1 && n <= 3; });
      if (usable.length === 0) continue;
      const ingredient = rng.pick(usable);
      return { ingredient, targets: all.filter((r) => mentions(r, ingredient)), noise: all.filter((r) => !mentions(r, ingredient)) };
    }
  },
  initialize: async (device, p) => resetRecipes(device, rng0(p.noise, p.targets)),
  check: async (device, p) => verdictOf(await exactlyVerdict(device, p.noise)),
  subgoals: (p) => [broccoliOpen, deleteConfirm, { name: 'recipes deleted', check: async ({ device }) => met(await exactlyVerdict(device, p.noise)) }],
  *oracle(p, ui) {
    yield* deleteRecipesWhoseDirectionsMention(ui, p.ingredient);
    yield ui.complete();
  },
});

export const DELETE_TASKS: readonly TaskTemplate[] = [DeleteSingleRecipe, DeleteMultipleRecipes, DeleteDuplicateRecipes, DeleteRecipesByIngredient];
