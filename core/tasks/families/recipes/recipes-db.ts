import type { Device } from '../../../device/device.js';
import { exactRecords, recordKind, type RecordField, type RecordKind } from '../../validators/records.js';
import type { CheckCondition } from '../../verdict.js';
import type { RecipeDraft } from '../../../seed-data/recipes.js';
import { sqlExec, sqlInsert, sqlNumber, sqlObjects, sqlText } from '../../validators/sqlite.js';

/**
 * Broccoli's database as checkers see it through `sqlite3` on the device (real or SimDroid):
 * table `recipes` in /data/data/com.flauschcode.broccoli/databases/broccoli, ingredients one a
 * line, `favorite` 0/1 (the app's column name, American spelling).
 */
export const BROCCOLI_PKG = 'com.flauschcode.broccoli';
export const BROCCOLI_DB_PATH = '/data/data/com.flauschcode.broccoli/databases/broccoli';

export const RECIPE_COLUMNS = ['recipeId', 'title', 'description', 'servings', 'preparationTime', 'source', 'ingredients', 'directions', 'favorite'] as const;

export interface RecipeRow {
  recipeId: number;
  title: string | null;
  description: string | null;
  servings: string | null;
  preparationTime: string | null;
  source: string | null;
  ingredients: string | null;
  directions: string | null;
  favorite: number;
}

export async function listRecipes(device: Device): Promise<RecipeRow[]> {
  const rows = await sqlObjects(device, BROCCOLI_DB_PATH, RECIPE_COLUMNS, 'recipes ORDER BY recipeId');
  return rows.map((r) => ({
    recipeId: sqlNumber(r, 'recipeId'), title: sqlText(r, 'title'), description: sqlText(r, 'description'), servings: sqlText(r, 'servings'),
    preparationTime: sqlText(r, 'preparationTime'), source: sqlText(r, 'source'), ingredients: sqlText(r, 'ingredients'),
    directions: sqlText(r, 'directions'), favorite: sqlNumber(r, 'favorite'),
  }));
}

/** Empties the recipes (and their category links) and restarts ids; categories stay. */
export async function clearRecipes(device: Device): Promise<void> {
  await sqlExec(device, BROCCOLI_DB_PATH, "DELETE FROM recipes_with_categories; DELETE FROM recipes; DELETE FROM sqlite_sequence WHERE name = 'recipes';");
}

export function recipeInsert(r: RecipeDraft): string {
  return sqlInsert('recipes', {
    title: r.title, imageName: '', description: r.description, servings: r.servings, preparationTime: r.preparationTime,
    source: r.source, ingredients: r.ingredients, directions: r.directions, favorite: r.favorite ? 1 : 0,
  });
}

export async function insertRecipes(device: Device, rows: readonly RecipeDraft[]): Promise<void> {
  if (rows.length) await sqlExec(device, BROCCOLI_DB_PATH, rows.map(recipeInsert).join('\n'));
}

/** Clears the recipes, then inserts these in order (ids 1..n). */
export async function resetRecipes(device: Device, rows: readonly RecipeDraft[]): Promise<void> {
  await clearRecipes(device);
  await insertRecipes(device, rows);
}

const norm = (s: string | null | undefined) => (s ?? '').replace(/\s+/g, ' ').trim().toLowerCase();

/** Ingredients as a list, whether typed one a line (as stored) or separated by commas. */
export function ingredientList(text: string | null | undefined): string[] {
  return (text ?? '').split(/\n|,/).map(norm).filter(Boolean);
}

type TextColumn = 'title' | 'description' | 'servings' | 'preparationTime' | 'source' | 'ingredients' | 'directions';
const TEXT_COLUMNS: readonly TextColumn[] = ['description', 'servings', 'preparationTime', 'source', 'ingredients', 'directions'];
const FIELD_NAMES: Record<TextColumn, string> = {
  title: 'title', description: 'description', servings: 'servings', preparationTime: 'prep time', source: 'source', ingredients: 'ingredients', directions: 'directions',
};
const quoted = (s: string | null) => (s === null ? 'none' : JSON.stringify(s));

/**
 * Recipe rows in words for a checker's reasons: exactly as inserted or, `loose`, as
 * content (free text without case or spacing differences, ingredients as a list).
 */
export function recipeKind(loose: boolean): RecordKind<RecipeRow, RecipeDraft> {
  const text = (c: TextColumn): RecordField<RecipeRow, RecipeDraft> => ({
    name: FIELD_NAMES[c], got: (r) => quoted(r[c]), want: (d) => quoted(d[c]),
    same: !loose ? (r, d) => r[c] === d[c] : c === 'ingredients' ? (r, d) => ingredientList(r.ingredients).join('\n') === ingredientList(d.ingredients).join('\n') : (r, d) => norm(r[c]) === norm(d[c]),
  });
  return recordKind('recipe', (d) => JSON.stringify(d.title), (r) => r.title ?? '', [
    text('title'), ...TEXT_COLUMNS.map(text),
    { name: 'favorite', got: (r) => (r.favorite ? 'yes' : 'no'), want: (d) => (d.favorite ? 'yes' : 'no'), same: (r, d) => r.favorite === (d.favorite ? 1 : 0) },
  ]);
}
export const EXACT_RECIPE = recipeKind(false);

/** The table holds exactly these drafts (as a multiset), nothing more: one condition per draft, then none other. */
export async function exactlyVerdict(device: Device, expected: readonly RecipeDraft[], state = 'kept'): Promise<CheckCondition[]> {
  return exactRecords(EXACT_RECIPE, await listRecipes(device), expected, state);
}
