import { afterAll, describe, expect, it } from 'vitest';
import { resetForTask } from '../../core/episode/runner.js';
import type { RecipeDraft } from '../../core/seed-data/recipes.js';
import { AddRecipe } from '../../core/tasks/families/recipes/add.js';
import { DeleteDuplicateRecipes, DeleteMultipleRecipes, DeleteSingleRecipe } from '../../core/tasks/families/recipes/delete.js';
import { EditServings, MarkFavourite } from '../../core/tasks/families/recipes/edit.js';
import { IngredientsQuestion } from '../../core/tasks/families/recipes/questions.js';
import { BROCCOLI_DB_PATH, recipeInsert } from '../../core/tasks/families/recipes/recipes-db.js';
import { instantiate } from '../../core/tasks/instance.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { sqlExec, sqlLiteral } from '../../core/tasks/validators/sqlite.js';
import { device, elements, find, scroll, tap, typeInto } from '../helpers/simdroid.js';

/** Each Broccoli checker accepts the right end state and rejects near misses. */
const d = device();
afterAll(() => d.close());

const none = { actions: [] };
const answer = (text: string) => ({ actions: [], answer: text });
const exec = (sql: string) => sqlExec(d, BROCCOLI_DB_PATH, sql);
const add = (r: RecipeDraft) => exec(recipeInsert(r));
const where = (title: string, extra = '') => `recipeId = (SELECT recipeId FROM recipes WHERE title = ${sqlLiteral(title)} ${extra} LIMIT 1)`;
const del = (title: string, extra = '') => exec(`DELETE FROM recipes WHERE ${where(title, extra)};`);
const set = (title: string, assignments: string) => exec(`UPDATE recipes SET ${assignments} WHERE ${where(title)};`);

async function start<P>(t: TaskTemplate<P>, seed = 0): Promise<P> {
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return inst.params;
}

describe('RecipeAddRecipe', () => {
  it('accepts the recipe with ingredients one a line or separated by commas', async () => {
    const p = await start(AddRecipe, 0);
    expect((await AddRecipe.check(d, p, none)).ok).toBe(false);
    await add(p.target);
    expect((await AddRecipe.check(d, p, none)).ok).toBe(true);
    await del(p.target.title);
    await add({ ...p.target, title: p.target.title.toLowerCase(), ingredients: p.target.ingredients.split('\n').join(', ') });
    expect((await AddRecipe.check(d, p, none)).ok).toBe(true);
  });

  it.each([
    ['other servings', (r: RecipeDraft) => ({ ...r, servings: `${r.servings}!` })],
    ['another prep time', (r: RecipeDraft) => ({ ...r, preparationTime: '99 mins' })],
    ['an ingredient missing', (r: RecipeDraft) => ({ ...r, ingredients: r.ingredients.split('\n').slice(1).join('\n') })],
    ['the directions left out', (r: RecipeDraft) => ({ ...r, directions: '' })],
    ['marked as a favourite', (r: RecipeDraft) => ({ ...r, favorite: true })],
    ['a source added', (r: RecipeDraft) => ({ ...r, source: 'Grandma' })],
  ])('rejects the recipe with %s', async (_what, change) => {
    const p = await start(AddRecipe, 1);
    await add(change(p.target));
    expect((await AddRecipe.check(d, p, none)).ok).toBe(false);
  });

  it('rejects the recipe added twice, or a noise recipe lost', async () => {
    const p = await start(AddRecipe, 2);
    await add(p.target);
    await add(p.target);
    expect((await AddRecipe.check(d, p, none)).ok).toBe(false);
    await del(p.target.title);
    await del(p.noise[0]!.title);
    expect((await AddRecipe.check(d, p, none)).ok).toBe(false);
  });

  it('accepts the recipe typed into the app', async () => {
    const p = await start(AddRecipe, 3);
    const t = p.target;
    d.wm.launchApp('com.flauschcode.broccoli');
    d.changed();
    tap(d, { contentDesc: 'New Recipe' });
    // As a person fills a long form: close the keyboard, scroll to the field, tap it and type; a
    // field low on the screen scrolls up above the keyboard when tapped.
    const fillIn = (id: string, value: string) => {
      if (d.wm.state.keyboard.visible) d.inputSync({ kind: 'key', key: 'BACK' });
      for (let i = 0; i < 5 && !find(d, { resourceId: id }); i++) scroll(d, 'down');
      typeInto(d, { resourceId: id }, value);
    };
    fillIn('new_title', t.title);
    fillIn('new_description', t.description);
    fillIn('new_servings', t.servings);
    fillIn('new_preparation_time', t.preparationTime);
    fillIn('new_ingredients', t.ingredients.split('\n').join(', '));
    fillIn('new_directions', t.directions);
    tap(d, { resourceId: 'button_save_recipe' });
    expect((await AddRecipe.check(d, p, none)).ok).toBe(true);
  });
});

describe('RecipeDeleteSingleRecipe', () => {
  it('accepts the target deleted, and only it', async () => {
    const p = await start(DeleteSingleRecipe, 0);
    expect((await DeleteSingleRecipe.check(d, p, none)).ok).toBe(false);
    await del(p.targets[0]!.title);
    expect((await DeleteSingleRecipe.check(d, p, none)).ok).toBe(true);
    await del(p.noise[0]!.title);
    expect((await DeleteSingleRecipe.check(d, p, none)).ok).toBe(false);
  });

  it('rejects another recipe deleted, or a remaining one changed', async () => {
    const p = await start(DeleteSingleRecipe, 1);
    await del(p.noise[1]!.title);
    expect((await DeleteSingleRecipe.check(d, p, none)).ok).toBe(false);
    await start(DeleteSingleRecipe, 1);
    await del(p.targets[0]!.title);
    await set(p.noise[0]!.title, `favorite = ${p.noise[0]!.favorite ? 0 : 1}`);
    expect((await DeleteSingleRecipe.check(d, p, none)).ok).toBe(false);
  });
});

describe('RecipeDeleteMultipleRecipes', () => {
  it('needs every target deleted and nothing else', async () => {
    const p = await start(DeleteMultipleRecipes, 0);
    for (const t of p.targets.slice(0, 2)) await del(t.title);
    expect((await DeleteMultipleRecipes.check(d, p, none)).ok).toBe(false);
    await del(p.targets[2]!.title);
    expect((await DeleteMultipleRecipes.check(d, p, none)).ok).toBe(true);
    await del(p.noise[3]!.title);
    expect((await DeleteMultipleRecipes.check(d, p, none)).ok).toBe(false);
  });
});

describe('RecipeDeleteDuplicateRecipes', () => {
  it('accepts one copy deleted; rejects both copies deleted', async () => {
    const p = await start(DeleteDuplicateRecipes, 0);
    const same = `AND description = ${sqlLiteral(p.target.description)}`;
    expect((await DeleteDuplicateRecipes.check(d, p, none)).ok).toBe(false);
    await del(p.target.title, same);
    expect((await DeleteDuplicateRecipes.check(d, p, none)).ok).toBe(true);
    await del(p.target.title, same);
    expect((await DeleteDuplicateRecipes.check(d, p, none)).ok).toBe(false);
  });

  it('rejects deleting a same-titled look-alike instead', async () => {
    const p = await start(DeleteDuplicateRecipes, 1);
    const v = p.variants[0]!;
    await del(v.title, `AND description = ${sqlLiteral(v.description)} AND servings = ${sqlLiteral(v.servings)} AND preparationTime = ${sqlLiteral(v.preparationTime)} AND directions = ${sqlLiteral(v.directions)}`);
    expect((await DeleteDuplicateRecipes.check(d, p, none)).ok).toBe(false);
  });
});

describe('RecipeEditServings', () => {
  it('accepts the new servings, everything else kept', async () => {
    const p = await start(EditServings, 0);
    expect((await EditServings.check(d, p, none)).ok).toBe(false);
    await set(p.target.title, `servings = ${sqlLiteral(p.servings)}`);
    expect((await EditServings.check(d, p, none)).ok).toBe(true);
  });

  it('rejects other servings, another field changed, or another recipe edited', async () => {
    const p = await start(EditServings, 1);
    await set(p.target.title, `servings = ${sqlLiteral(`${p.servings} `)}`);
    expect((await EditServings.check(d, p, none)).ok).toBe(false);
    await set(p.target.title, `servings = ${sqlLiteral(p.servings)}, preparationTime = '5 mins'`);
    expect((await EditServings.check(d, p, none)).ok).toBe(false);
    await start(EditServings, 1);
    await set(p.noise[0]!.title, `servings = ${sqlLiteral(p.servings)}`);
    expect((await EditServings.check(d, p, none)).ok).toBe(false);
  });
});

describe('RecipeMarkFavourite', () => {
  it('accepts the target marked, other favourites kept', async () => {
    const p = await start(MarkFavourite, 0);
    expect((await MarkFavourite.check(d, p, none)).ok).toBe(false);
    await set(p.target.title, 'favorite = 1');
    expect((await MarkFavourite.check(d, p, none)).ok).toBe(true);
    const other = p.noise[0]!;
    await set(other.title, `favorite = ${other.favorite ? 0 : 1}`);
    expect((await MarkFavourite.check(d, p, none)).ok).toBe(false);
  });

  it('rejects another recipe marked instead', async () => {
    const p = await start(MarkFavourite, 1);
    const plain = p.noise.find((r) => !r.favorite)!;
    await set(plain.title, 'favorite = 1');
    expect((await MarkFavourite.check(d, p, none)).ok).toBe(false);
  });
});

describe('RecipeIngredientsQuestion', () => {
  it('accepts the ingredient names or whole lines in any order, nothing missing or extra', async () => {
    const p = await start(IngredientsQuestion, 0);
    const lines = p.target.ingredients.split('\n');
    expect(p.names.length).toBe(lines.length);
    expect((await IngredientsQuestion.check(d, p, answer(p.names.join(', ')))).ok).toBe(true);
    expect((await IngredientsQuestion.check(d, p, answer([...p.names].reverse().join(', ')))).ok).toBe(true);
    expect((await IngredientsQuestion.check(d, p, answer(lines.join('\n')))).ok).toBe(true);
    expect((await IngredientsQuestion.check(d, p, answer(p.names.slice(1).join(', ')))).ok).toBe(false);
    expect((await IngredientsQuestion.check(d, p, answer([...p.names, 'salt'].join(', ')))).ok).toBe(false);
    expect((await IngredientsQuestion.check(d, p, none)).ok).toBe(false);
  });

  it('names what the details screen shows after the quantity', async () => {
    const p = await start(IngredientsQuestion, 3);
    d.wm.launchApp('com.flauschcode.broccoli');
    d.changed();
    tap(d, { resourceId: 'card_text_view_title', text: p.target.title });
    const shown = elements(d).filter((e) => e.node.resourceId.endsWith(':id/ingredient_text')).map((e) => e.node.text);
    expect(shown).toEqual(p.names);
  });
});
