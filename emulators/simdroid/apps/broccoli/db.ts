import type { Rng } from '../../../../core/util/rng.js';
import type { Db } from '../../system/databases.js';
import { randomRecipes } from '../../../../core/seed-data/recipes.js';

/**
 * Broccoli's Room database at its real path, as version 1 of BroccoliDatabase (the APK AndroidWorld
 * installs) creates it: `recipes` with its 10 columns in Room's order (text columns, one ingredient a
 * line, `favorite` 0/1; AndroidWorld reads rows into its 10-field Recipe by name, so a column more
 * breaks it), `categories` and the `recipes_with_categories` join table.
 * The app's FTS4 search table is left out; search runs a LIKE over the same columns.
 */
export const BROCCOLI_DB = '/data/data/com.flauschcode.broccoli/databases/broccoli';

export const BROCCOLI_SCHEMA = `
CREATE TABLE recipes (recipeId INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, title TEXT, imageName TEXT, description TEXT,
  servings TEXT, preparationTime TEXT, source TEXT, ingredients TEXT, directions TEXT, favorite INTEGER NOT NULL);
CREATE TABLE categories (categoryId INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, name TEXT);
CREATE TABLE recipes_with_categories (recipeId INTEGER NOT NULL, categoryId INTEGER NOT NULL, PRIMARY KEY(recipeId, categoryId),
  FOREIGN KEY(recipeId) REFERENCES recipes(recipeId) ON UPDATE NO ACTION ON DELETE CASCADE,
  FOREIGN KEY(categoryId) REFERENCES categories(categoryId) ON UPDATE NO ACTION ON DELETE CASCADE);
CREATE INDEX index_recipes_with_categories_recipeId ON recipes_with_categories (recipeId);
CREATE INDEX index_recipes_with_categories_categoryId ON recipes_with_categories (categoryId);
CREATE TABLE android_metadata (locale TEXT);
INSERT INTO android_metadata VALUES ('en_US');
`;

export interface Recipe {
  recipeId: number;
  title: string | null;
  imageName: string | null;
  description: string | null;
  servings: string | null;
  preparationTime: string | null;
  source: string | null;
  ingredients: string | null;
  directions: string | null;
  favorite: number;
}

export interface Category {
  categoryId: number;
  name: string | null;
}

/** Which recipes the list shows (the toolbar spinner). */
export type RecipeFilter = { kind: 'all' } | { kind: 'favorites' } | { kind: 'unassigned' } | { kind: 'category'; categoryId: number };

export function listRecipes(db: Db, filter: RecipeFilter, query = ''): Recipe[] {
  const where: string[] = [];
  const args: Array<string | number> = [];
  if (filter.kind === 'favorites') where.push('favorite = 1');
  if (filter.kind === 'unassigned') where.push('NOT EXISTS (SELECT 1 FROM recipes_with_categories rc WHERE rc.recipeId = recipes.recipeId)');
  if (filter.kind === 'category') {
    where.push('EXISTS (SELECT 1 FROM recipes_with_categories rc WHERE rc.recipeId = recipes.recipeId AND rc.categoryId = ?)');
    args.push(filter.categoryId);
  }
  const q = query.trim();
  if (q) {
    // The FTS columns: title, description, source, ingredients.
    where.push("(title LIKE ? ESCAPE '\\' OR description LIKE ? ESCAPE '\\' OR source LIKE ? ESCAPE '\\' OR ingredients LIKE ? ESCAPE '\\')");
    const like = `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    args.push(like, like, like, like);
  }
  const sql = `SELECT * FROM recipes ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY title COLLATE NOCASE, recipeId`;
  return db.prepare(sql).all(...args) as Recipe[];
}

export function getRecipe(db: Db, id: number): Recipe | undefined {
  return db.prepare('SELECT * FROM recipes WHERE recipeId = ?').get(id) as Recipe | undefined;
}

export type RecipeInput = Omit<Recipe, 'recipeId'>;

export function insertRecipe(db: Db, r: RecipeInput): number {
  const res = db.prepare(`INSERT INTO recipes (title, imageName, description, servings, preparationTime, source, ingredients, directions,
    favorite) VALUES (@title, @imageName, @description, @servings, @preparationTime, @source, @ingredients, @directions, @favorite)`).run(r);
  return Number(res.lastInsertRowid);
}

export function updateRecipe(db: Db, id: number, r: RecipeInput): void {
  db.prepare(`UPDATE recipes SET title = @title, imageName = @imageName, description = @description, servings = @servings,
    preparationTime = @preparationTime, source = @source, ingredients = @ingredients, directions = @directions,
    favorite = @favorite WHERE recipeId = @id`).run({ ...r, id });
}

export function deleteRecipe(db: Db, id: number): void {
  db.transaction(() => {
    db.prepare('DELETE FROM recipes_with_categories WHERE recipeId = ?').run(id);
    db.prepare('DELETE FROM recipes WHERE recipeId = ?').run(id);
  })();
}

export function setFavorite(db: Db, id: number, favorite: boolean): void {
  db.prepare('UPDATE recipes SET favorite = ? WHERE recipeId = ?').run(favorite ? 1 : 0, id);
}

export function listCategories(db: Db): Category[] {
  return db.prepare('SELECT * FROM categories ORDER BY name COLLATE NOCASE, categoryId').all() as Category[];
}

export function recipeCategoryIds(db: Db, recipeId: number): number[] {
  return (db.prepare('SELECT categoryId FROM recipes_with_categories WHERE recipeId = ? ORDER BY categoryId').pluck().all(recipeId) as number[]);
}

export function setRecipeCategories(db: Db, recipeId: number, ids: readonly number[]): void {
  db.transaction(() => {
    db.prepare('DELETE FROM recipes_with_categories WHERE recipeId = ?').run(recipeId);
    const add = db.prepare('INSERT OR IGNORE INTO recipes_with_categories (recipeId, categoryId) VALUES (?, ?)');
    for (const c of ids) add.run(recipeId, c);
  })();
}

export function insertCategory(db: Db, name: string): number {
  return Number(db.prepare('INSERT INTO categories (name) VALUES (?)').run(name).lastInsertRowid);
}

export function renameCategory(db: Db, id: number, name: string): void {
  db.prepare('UPDATE categories SET name = ? WHERE categoryId = ?').run(name, id);
}

export function deleteCategory(db: Db, id: number): void {
  db.transaction(() => {
    db.prepare('DELETE FROM recipes_with_categories WHERE categoryId = ?').run(id);
    db.prepare('DELETE FROM categories WHERE categoryId = ?').run(id);
  })();
}

/**
 * An ingredient line split as the details screen shows it: the leading quantity (and unit) apart
 * from the rest, e.g. "200 g spaghetti" → "200 g" + "spaghetti".
 */
const UNITS = 'g|kg|mg|ml|l|dl|cl|tbsp|tsp|cups?|oz|lbs?|pinch|pinches|cloves?|cans?|slices?|bunch|bunches|heads?|stalks?|handfuls?';
const QUANTITY = new RegExp(`^((?:\\d+(?:[.,/]\\d+)?|[½¼¾⅓⅔])(?:\\s*-\\s*\\d+)?(?:\\s*(?:${UNITS})\\b)?)\\s+(.+)$`, 'i');

export function splitIngredient(line: string): { quantity: string; text: string } {
  const m = QUANTITY.exec(line.trim());
  return m ? { quantity: m[1]!, text: m[2]! } : { quantity: '', text: line.trim() };
}

/** Non-empty lines of a multi-line text column. */
export function lines(text: string | null): string[] {
  return (text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
}

/** First-launch content: a few categories and recipes, some of them favourites. */
export function bootRecipes(db: Db, rng: Rng): void {
  const cats = ['Breakfast', 'Main dishes', 'Soups', 'Salads'].map((name) => ({ name, id: insertCategory(db, name) }));
  for (const r of randomRecipes(rng, 6)) {
    const id = insertRecipe(db, {
      title: r.title, imageName: '', description: r.description, servings: r.servings, preparationTime: r.preparationTime,
      source: r.source, ingredients: r.ingredients, directions: r.directions, favorite: rng.chance(0.3) ? 1 : 0,
    });
    setRecipeCategories(db, id, [rng.pick(cats).id]);
  }
}
