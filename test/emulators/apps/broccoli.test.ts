import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { randomRecipe, RECIPE_BASES, type RecipeDraft } from '../../../core/seed-data/recipes.js';
import { resetRecipes } from '../../../core/tasks/families/recipes/recipes-db.js';
import { createRng } from '../../../core/util/rng.js';
import { device, elements, find, get, scroll, sh, tap, texts, typeInto } from '../../helpers/simdroid.js';

/** Broccoli in SimDroid, driven through the UI and read back with sqlite3. */
const d = device();
afterAll(() => d.close());

const PKG = 'com.flauschcode.broccoli';
const DB = '/data/data/com.flauschcode.broccoli/databases/broccoli';
const open = () => sh(d, `am start -n ${PKG}/${PKG}.MainActivity`);
const back = () => d.inputSync({ kind: 'key', key: 'BACK' });
const sql = (q: string) => sh(d, `sqlite3 ${DB} "${q}"`).trim();
const activity = () => d.wm.foreground().activity.split('.').pop();
const titles = () => elements(d).filter((e) => e.node.resourceId === `${PKG}:id/card_text_view_title`).map((e) => e.node.text);
const ids = (id: string) => elements(d).filter((e) => e.node.resourceId === `${PKG}:id/${id}`).map((e) => e.node.text);

const rng = createRng('broccoli-app-test');
const recipe = (title: string, over: Partial<RecipeDraft> = {}): RecipeDraft => ({ ...randomRecipe(rng, RECIPE_BASES.find((b) => b.title === title)!), ...over });

beforeEach(async () => {
  await d.loadSnapshot(BOOT_SNAPSHOT);
});

describe('Broccoli app', () => {
  it('boots with recipes listed by title', () => {
    open();
    expect(activity()).toBe('MainActivity');
    const shown = titles();
    expect(shown.length).toBeGreaterThanOrEqual(3);
    expect([...shown].sort((a, b) => a.localeCompare(b))).toEqual(shown);
    expect(sql('select title from recipes order by title collate nocase limit 1')).toBe(shown[0]);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('creates a recipe in the editor, ingredients one a line, with a category', async () => {
    await resetRecipes(d, []);
    open();
    expect(find(d, { text: 'No recipes found.' })).toBeDefined();
    tap(d, { contentDesc: 'New Recipe' });
    expect(activity()).toBe('CreateAndEditRecipeActivity');
    typeInto(d, { resourceId: 'new_title' }, 'Lentil Soup');
    typeInto(d, { resourceId: 'new_description' }, 'Warming');
    typeInto(d, { resourceId: 'new_servings' }, '4 servings');
    typeInto(d, { resourceId: 'new_preparation_time' }, '45 mins');
    back();
    tap(d, { resourceId: 'new_categories' });
    tap(d, { text: 'Soups' });
    tap(d, { text: 'OK' });
    expect(get(d, { resourceId: 'new_categories' }).node.text).toBe('Soups');
    for (let i = 0; i < 3 && !find(d, { resourceId: 'new_directions' }); i++) scroll(d, 'down');
    typeInto(d, { resourceId: 'new_ingredients' }, '250 g lentils\n1 onion');
    back();
    typeInto(d, { resourceId: 'new_directions' }, 'Simmer everything.');
    tap(d, { text: 'Save' });
    expect(d.wm.state.toast?.text).toBe('The recipe has been saved.');
    expect(activity()).toBe('MainActivity');
    expect(titles()).toEqual(['Lentil Soup']);
    expect(sql("select description, servings, preparationTime, ingredients, directions, favorite from recipes where title = 'Lentil Soup'"))
      .toBe('Warming|4 servings|45 mins|250 g lentils\n1 onion|Simmer everything.|0');
    expect(sql("select c.name from recipes_with_categories rc join categories c using (categoryId) join recipes r using (recipeId) where r.title = 'Lentil Soup'")).toBe('Soups');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('refuses to save without a title, and asks before discarding changes', () => {
    open();
    const before = sql('select count(*) from recipes');
    tap(d, { contentDesc: 'New Recipe' });
    back();
    expect(activity()).toBe('MainActivity');
    tap(d, { contentDesc: 'New Recipe' });
    typeInto(d, { resourceId: 'new_description' }, 'No title yet');
    tap(d, { text: 'Save' });
    expect(d.wm.state.toast?.text).toBe('Please add a title.');
    expect(activity()).toBe('CreateAndEditRecipeActivity');
    back();
    back();
    expect(find(d, { text: 'Discard changes?' })).toBeDefined();
    tap(d, { text: 'Cancel' });
    expect(activity()).toBe('CreateAndEditRecipeActivity');
    tap(d, { contentDesc: 'Navigate up' });
    tap(d, { text: 'Discard' });
    expect(activity()).toBe('MainActivity');
    expect(sql('select count(*) from recipes')).toBe(before);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('shows a recipe: servings, time, ingredients split from their quantity, numbered directions', async () => {
    await resetRecipes(d, [recipe('Spicy Tuna Wraps', { servings: '2 servings', preparationTime: '10 mins' }), recipe('Lentil Soup')]);
    open();
    tap(d, { text: 'Spicy Tuna Wraps' });
    expect(activity()).toBe('RecipeDetailsActivity');
    expect(get(d, { resourceId: 'details_title' }).node.text).toBe('Spicy Tuna Wraps');
    expect(get(d, { resourceId: 'details_servings' }).node.text).toBe('2 servings');
    expect(get(d, { resourceId: 'details_preparation_time' }).node.text).toBe('10 mins');
    for (let i = 0; i < 3 && !find(d, { text: 'Directions' }); i++) scroll(d, 'down');
    expect(ids('ingredient_quantity')).toEqual(['1 can', '2 tbsp', '1 tsp', '2', '1']);
    expect(ids('ingredient_text')).toEqual(['tuna', 'mayonnaise', 'sriracha', 'tortillas', 'cucumber']);
    expect(ids('direction_position')).toEqual(['1']);
    back();
    expect(activity()).toBe('MainActivity');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('marks a favourite from the details toolbar; the Favorites filter shows only favourites', async () => {
    await resetRecipes(d, [recipe('Spicy Tuna Wraps'), recipe('Lentil Soup'), recipe('Beef Stir Fry', { favorite: true })]);
    open();
    tap(d, { text: 'Lentil Soup' });
    tap(d, { contentDesc: 'Mark as favorite' });
    expect(find(d, { contentDesc: 'Remove from favorites' })).toBeDefined();
    expect(sql("select favorite from recipes where title = 'Lentil Soup'")).toBe('1');
    back();
    tap(d, { contentDesc: 'Categories' });
    tap(d, { text: 'Favorites' });
    expect(titles()).toEqual(['Beef Stir Fry', 'Lentil Soup']);
    tap(d, { text: 'Beef Stir Fry' });
    tap(d, { contentDesc: 'Remove from favorites' });
    back();
    expect(titles()).toEqual(['Lentil Soup']);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('edits a recipe from the overflow menu, keeping the other fields', async () => {
    const soup = recipe('Lentil Soup', { servings: '2 servings' });
    await resetRecipes(d, [soup, recipe('Spicy Tuna Wraps')]);
    open();
    tap(d, { text: 'Lentil Soup' });
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Edit' });
    expect(activity()).toBe('CreateAndEditRecipeActivity');
    expect(get(d, { resourceId: 'new_title' }).node.text).toBe('Lentil Soup');
    const field = get(d, { resourceId: 'new_servings' });
    expect(field.node.text).toBe('2 servings');
    tap(d, { resourceId: 'new_servings' });
    for (let i = 0; i < 10; i++) d.inputSync({ kind: 'key', key: 'DEL' });
    d.inputSync({ kind: 'text', text: '6 servings' });
    tap(d, { text: 'Save' });
    expect(activity()).toBe('RecipeDetailsActivity');
    expect(get(d, { resourceId: 'details_servings' }).node.text).toBe('6 servings');
    const row = sql("select description, preparationTime, ingredients, directions, servings from recipes where title = 'Lentil Soup'");
    expect(row).toBe(`${soup.description}|${soup.preparationTime}|${soup.ingredients}|${soup.directions}|6 servings`);
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('deletes a recipe only after confirmation, and duplicates one', async () => {
    await resetRecipes(d, [recipe('Lentil Soup'), recipe('Spicy Tuna Wraps')]);
    open();
    tap(d, { text: 'Lentil Soup' });
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Delete' });
    expect(find(d, { text: 'Delete this recipe?' })).toBeDefined();
    tap(d, { text: 'Cancel' });
    expect(sql('select count(*) from recipes')).toBe('2');
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Delete' });
    tap(d, { text: 'Delete' });
    expect(d.wm.state.toast?.text).toBe('The recipe has been deleted.');
    expect(activity()).toBe('MainActivity');
    expect(titles()).toEqual(['Spicy Tuna Wraps']);
    tap(d, { text: 'Spicy Tuna Wraps' });
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Duplicate' });
    back();
    expect(titles()).toEqual(['Spicy Tuna Wraps', 'Spicy Tuna Wraps']);
    expect(sql("select count(*) from recipes where title = 'Spicy Tuna Wraps'")).toBe('2');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('searches titles and ingredients; Back closes the search', async () => {
    await resetRecipes(d, [recipe('Lentil Soup'), recipe('Spicy Tuna Wraps'), recipe('Beef Stir Fry')]);
    open();
    tap(d, { contentDesc: 'Search' });
    d.inputSync({ kind: 'text', text: 'tuna' });
    expect(titles()).toEqual(['Spicy Tuna Wraps']);
    tap(d, { contentDesc: 'Clear query' });
    d.inputSync({ kind: 'text', text: 'lentils' });
    expect(titles()).toEqual(['Lentil Soup']);
    d.inputSync({ kind: 'text', text: 'xyz' });
    expect(find(d, { text: 'No recipes found.' })).toBeDefined();
    back();
    back();
    expect(titles()).toEqual(['Beef Stir Fry', 'Lentil Soup', 'Spicy Tuna Wraps']);
    back();
    expect(d.wm.foreground().package).toBe('com.google.android.apps.nexuslauncher');
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('scrolls a long list to its last recipe', async () => {
    await resetRecipes(d, RECIPE_BASES.slice(0, 20).map((b) => randomRecipe(rng, b)));
    open();
    const last = [...RECIPE_BASES.slice(0, 20)].map((b) => b.title).sort((a, b) => a.localeCompare(b)).at(-1)!;
    expect(find(d, { text: last })).toBeUndefined();
    for (let i = 0; i < 15 && !find(d, { text: last }); i++) scroll(d, 'down');
    expect(find(d, { text: last })).toBeDefined();
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('adds a category on the Categories page and filters the list by it', async () => {
    await resetRecipes(d, [recipe('Lentil Soup'), recipe('Spicy Tuna Wraps')]);
    open();
    tap(d, { contentDesc: 'Open navigation drawer' });
    tap(d, { text: 'Categories' });
    tap(d, { contentDesc: 'Add category' });
    d.inputSync({ kind: 'text', text: 'Lunch' });
    tap(d, { text: 'Save' });
    expect(texts(d)).toContain('Lunch');
    expect(sql("select count(*) from categories where name = 'Lunch'")).toBe('1');
    back();
    tap(d, { text: 'Spicy Tuna Wraps' });
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Edit' });
    tap(d, { resourceId: 'new_categories' });
    tap(d, { text: 'Lunch' });
    tap(d, { text: 'OK' });
    tap(d, { text: 'Save' });
    back();
    tap(d, { contentDesc: 'Categories' });
    tap(d, { text: 'Lunch' });
    expect(titles()).toEqual(['Spicy Tuna Wraps']);
    tap(d, { contentDesc: 'Categories' });
    tap(d, { text: 'Recipes without category' });
    expect(titles()).toEqual(['Lentil Soup']);
    expect(d.wm.state.crashes).toEqual([]);
  });
});
