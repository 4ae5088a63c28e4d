import { z } from 'zod';
import { randomRecipes, SERVINGS_OPTIONS } from '../../../seed-data/recipes.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { fieldHolds } from '../../validators/ui.js';
import { broccoliOpen, detailsOpen, editorOpen, fill, openRecipe, overflow, Recipe } from './common.js';
import { exactlyVerdict, resetRecipes } from './recipes-db.js';
import { met, verdictOf } from '../../verdict.js';

/**
 * Changing one recipe: its servings (overflow › Edit, replace the field, Save) or its favourite
 * mark (the heart in the details toolbar). Everything else, the other recipes included, must stay
 * exactly as it was.
 */
const Servings = z.object({ target: Recipe, servings: z.string().min(1), noise: z.array(Recipe) });

export const EditServings = defineTask({
  id: 'RecipeEditServings',
  apps: ['Broccoli'],
  difficulty: 'medium',
  tags: ['data_edit'],
  kind: 'completion',
  template: 'In the Broccoli app, change the servings of the recipe {title} to "{servings}".',
  params: Servings,
  generate: (rng) => {
    const [target, ...noise] = randomRecipes(rng, 1 + rng.int(5, 8));
    const servings = rng.pick(SERVINGS_OPTIONS.filter((s) => s !== target!.servings));
    return { target: target!, servings, noise };
  },
  instruction: (p) => `In the Broccoli app, change the servings of the recipe ${p.target.title} to "${p.servings}".`,
  initialize: async (device, p) => resetRecipes(device, [...p.noise, p.target]),
  check: async (device, p) => verdictOf(await exactlyVerdict(device, [...p.noise, { ...p.target, servings: p.servings }])),
  subgoals: (p) => [
    broccoliOpen,
    detailsOpen(p.target.title),
    editorOpen,
    { name: 'new servings typed', check: async ({ obs }) => fieldHolds(obs, p.servings) },
    { name: 'servings saved', check: async ({ device }) => met(await exactlyVerdict(device, [...p.noise, { ...p.target, servings: p.servings }])) },
  ],
  *oracle(p, ui) {
    yield* openRecipe(ui, p.target.title);
    yield* overflow(ui, 'Edit');
    yield* fill(ui, 'new_servings', p.servings, true);
    yield ui.tap({ resourceId: 'button_save_recipe' });
    yield ui.complete();
  },
});

const Favourite = z.object({ target: Recipe, noise: z.array(Recipe) });

export const MarkFavourite = defineTask({
  id: 'RecipeMarkFavourite',
  apps: ['Broccoli'],
  difficulty: 'easy',
  tags: ['toggle'],
  kind: 'completion',
  template: 'Mark the recipe {title} as a favorite in the Broccoli app.',
  params: Favourite,
  generate: (rng) => {
    const [target, ...noise] = randomRecipes(rng, 1 + rng.int(5, 8));
    noise.forEach((r) => { r.favorite = rng.chance(0.4); });
    return { target: target!, noise };
  },
  instruction: (p) => `Mark the recipe ${p.target.title} as a favorite in the Broccoli app.`,
  initialize: async (device, p) => resetRecipes(device, [...p.noise, p.target]),
  check: async (device, p) => verdictOf(await exactlyVerdict(device, [...p.noise, { ...p.target, favorite: true }])),
  subgoals: (p) => [
    broccoliOpen,
    detailsOpen(p.target.title),
    { name: 'marked as favorite', check: async ({ device }) => met(await exactlyVerdict(device, [...p.noise, { ...p.target, favorite: true }])) },
  ],
  *oracle(p, ui) {
    yield* openRecipe(ui, p.target.title);
    yield ui.tap({ contentDesc: 'Mark as favorite' });
    yield ui.complete();
  },
});

export const EDIT_TASKS: readonly TaskTemplate[] = [EditServings, MarkFavourite];
