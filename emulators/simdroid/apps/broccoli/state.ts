import type { ActivityContext } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { text } from '../../view/widgets.js';
import type { RecipeFilter } from './db.js';

/** Activity names and the main activity's state (its fragments are plain data, as in the app). */
export const MAIN = 'com.flauschcode.broccoli.MainActivity';
export const DETAILS = 'com.flauschcode.broccoli.recipe.details.RecipeDetailsActivity';
export const EDITOR = 'com.flauschcode.broccoli.recipe.crud.CreateAndEditRecipeActivity';

export type Page = 'recipes' | 'categories' | 'seasons' | 'support' | 'backup' | 'settings' | 'about';

export interface MainState {
  page: Page;
  drawer: boolean;
  /** The toolbar's search view is expanded. */
  search: boolean;
  /** The category spinner's dropdown is open. */
  spinner: boolean;
  filter: RecipeFilter;
  /** The add/edit category dialog (categoryId null: a new one). */
  dialog: null | { kind: 'category'; id: number | null };
}

export type MainCtx = ActivityContext<MainState>;

/** The message of a title-less AlertDialog (setMessage only), padded as Material does. */
export function alertMessage(message: string): ViewSpec {
  return text(message, { size: 16, pad: [24, 24, 8, 24], fg: 'onSurfaceVariant', id: 'android:id/message' });
}
