import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { UiElement } from '../../../a11y/ui-tree.js';
import type { RecipeDraft } from '../../../seed-data/recipes.js';
import { launch, OracleError, screenSummary, scrollTo, type OracleUi } from '../../oracle.js';
import type { Subgoal } from '../../task.js';
import { inActivity, onScreen } from '../../validators/ui.js';
import { BROCCOLI_PKG } from './recipes-db.js';

/** Parameters, oracle moves and subgoals shared by the Broccoli templates. */
export const APP = 'Broccoli';
export const DETAILS_ACTIVITY = 'com.flauschcode.broccoli.recipe.details.RecipeDetailsActivity';
export const EDITOR_ACTIVITY = 'com.flauschcode.broccoli.recipe.crud.CreateAndEditRecipeActivity';

export const Recipe = z.object({
  title: z.string().min(1),
  description: z.string(),
  servings: z.string(),
  preparationTime: z.string(),
  source: z.string(),
  ingredients: z.string(),
  directions: z.string(),
  favorite: z.boolean(),
});

export const broccoliOpen: Subgoal = { name: 'Broccoli open', check: async ({ obs }) => inActivity(obs, BROCCOLI_PKG) };

export function detailsOpen(title: string): Subgoal {
  return {
    name: `"${title}" open`,
    check: async ({ obs }) => inActivity(obs, BROCCOLI_PKG, DETAILS_ACTIVITY) && onScreen(obs, { resourceId: 'details_title', text: title }),
  };
}

export const editorOpen: Subgoal = { name: 'recipe editor open', check: async ({ obs }) => inActivity(obs, BROCCOLI_PKG, EDITOR_ACTIVITY) };

/** The card for a recipe by title (and description, to tell same-titled recipes apart), scrolling the list. */
export function* findCard(ui: OracleUi, title: string, description?: string): Generator<Action, UiElement, void> {
  for (let i = 0; i < 40; i++) {
    const hit = ui.findAll({ resourceId: 'card_text_view_title', text: title }).find((el) => {
      if (description === undefined) return true;
      const card = el.parent;
      return card !== null && ui.findAll({ resourceId: 'card_text_view_description', text: description }).some((d) => d.parent?.node === card.node);
    });
    if (hit) return hit;
    const before = ui.fingerprint();
    yield ui.scroll('down');
    if (ui.fingerprint() === before) break;
  }
  throw new OracleError(`No recipe card ${JSON.stringify(title)}`, screenSummary(ui.obs));
}

/** Launches Broccoli and opens a recipe's details from the list. */
export function* openRecipe(ui: OracleUi, title: string, description?: string): Generator<Action, void, void> {
  yield* launch(ui, APP);
  yield ui.tap(yield* findCard(ui, title, description));
}

/** On the details screen: overflow menu, then an item (Edit, Duplicate, Delete). */
export function* overflow(ui: OracleUi, item: string): Generator<Action, void, void> {
  yield ui.tap({ contentDesc: 'More options' });
  yield ui.tap({ text: item });
}

/** Types a value into an editor field, scrolling to it first. */
export function* fill(ui: OracleUi, id: string, value: string, clear = false): Generator<Action, void, void> {
  const el = yield* scrollTo(ui, { resourceId: id });
  yield ui.type(el, value, { clear });
}

/** Fills the editor with a recipe's fields (the editor is open and empty) and saves. */
export function* fillEditor(ui: OracleUi, r: RecipeDraft): Generator<Action, void, void> {
  yield* fill(ui, 'new_title', r.title);
  if (r.description) yield* fill(ui, 'new_description', r.description);
  if (r.source) yield* fill(ui, 'new_source', r.source);
  if (r.servings) yield* fill(ui, 'new_servings', r.servings);
  if (r.preparationTime) yield* fill(ui, 'new_preparation_time', r.preparationTime);
  if (r.ingredients) yield* fill(ui, 'new_ingredients', r.ingredients);
  if (r.directions) yield* fill(ui, 'new_directions', r.directions);
  yield ui.tap({ resourceId: 'button_save_recipe' });
}
