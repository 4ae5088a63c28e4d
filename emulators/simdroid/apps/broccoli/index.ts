import type { AppDef } from '../../runtime/app.js';
import { BROCCOLI_DB, BROCCOLI_SCHEMA, bootRecipes } from './db.js';
import { detailsActivity } from './details.js';
import { editorActivity } from './editor.js';
import { mainActivity } from './main.js';
import { MAIN } from './state.js';

/**
 * Broccoli (com.flauschcode.broccoli), the recipe app: MainActivity (recipe list, search,
 * category spinner, drawer, Categories page), RecipeDetailsActivity and
 * CreateAndEditRecipeActivity, over the app's Room database (see db.ts).
 */
export const broccoliApp: AppDef = {
  package: 'com.flauschcode.broccoli',
  label: 'Broccoli',
  icon: { glyph: 'restaurant', color: '#558B2F' },
  accent: '#558B2F',
  launchActivity: MAIN,
  activities: [mainActivity, detailsActivity, editorActivity],
  databases: [{ path: BROCCOLI_DB, schema: BROCCOLI_SCHEMA }],
  boot: ({ app, rng }) => bootRecipes(app.db, rng),
};
