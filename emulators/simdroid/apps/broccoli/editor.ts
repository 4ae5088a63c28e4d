import type { ActivityContext, ActivityDef, DialogView } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { appBar, button, checkbox, column, dialog, scroll, stack, strip, text, textField } from '../../view/widgets.js';
import { getRecipe, insertRecipe, listCategories, recipeCategoryIds, setRecipeCategories, updateRecipe } from './db.js';
import { alertMessage, EDITOR } from './state.js';

/**
 * CreateAndEditRecipeActivity: Title (required: "Please add a title."), Categories (a
 * multi-choice dialog), Description, Source, Servings, Time, Ingredients and Directions (one a
 * line); Save in the toolbar. Leaving with changes asks "Discard changes?".
 */
const FIELDS = [
  { key: 'title', hint: 'Title', id: 'new_title' },
  { key: 'description', hint: 'Description', id: 'new_description', multiline: true },
  { key: 'source', hint: 'Source', id: 'new_source' },
  { key: 'servings', hint: 'Servings', id: 'new_servings' },
  { key: 'preparationTime', hint: 'Time', id: 'new_preparation_time' },
  { key: 'ingredients', hint: 'Ingredients', id: 'new_ingredients', multiline: true },
  { key: 'directions', hint: 'Directions', id: 'new_directions', multiline: true },
] as const;
type Key = (typeof FIELDS)[number]['key'];

interface EditorState {
  id: number | null;
  categories: number[];
  /** What the form held when opened, to tell whether leaving discards changes. */
  initial: Record<string, string>;
  initialCategories: number[];
  dialog: null | 'discard' | 'categories';
  /** Kept as the recipe had them (the editor does not show them). */
  favorite: number;
  imageName: string;
}

type Ctx = ActivityContext<EditorState>;

function value(ctx: Ctx, key: Key): string {
  return ctx.fields[key] ?? '';
}

function dirty(ctx: Ctx): boolean {
  return FIELDS.some((f) => value(ctx, f.key) !== (ctx.s.initial[f.key] ?? ''))
    || ctx.s.categories.join(',') !== ctx.s.initialCategories.join(',');
}

function leave(ctx: Ctx): void {
  if (dirty(ctx)) ctx.s.dialog = 'discard';
  else ctx.nav.finish();
}

function save(ctx: Ctx): void {
  const title = value(ctx, 'title').trim();
  if (!title) {
    ctx.nav.toast('Please add a title.');
    return;
  }
  const row = {
    title, imageName: ctx.s.imageName, favorite: ctx.s.favorite,
    description: value(ctx, 'description').trim(), source: value(ctx, 'source').trim(), servings: value(ctx, 'servings').trim(),
    preparationTime: value(ctx, 'preparationTime').trim(), ingredients: value(ctx, 'ingredients').trim(), directions: value(ctx, 'directions').trim(),
  };
  const db = ctx.app.db;
  const id = ctx.s.id ?? insertRecipe(db, row);
  if (ctx.s.id !== null) updateRecipe(db, id, row);
  setRecipeCategories(db, id, ctx.s.categories);
  ctx.nav.toast('The recipe has been saved.');
  ctx.nav.finish();
}

/**
 * An outlined field with its floating label: TextInputLayout moves the hint above the box once
 * the field holds text, so a filled form still says which box is which.
 */
function labelled(ctx: Ctx, f: { key: string; hint: string; id: string; multiline?: boolean }): ViewSpec {
  const filled = (ctx.fields[f.key] ?? '') !== '';
  return column([
    filled ? text(f.hint, { size: 12, fg: 'primary', pad: [0, 20, 0, 20], h: 16 }) : { cls: W.View, h: 16 },
    textField({ field: f.key, hint: f.hint, id: f.id, multiline: f.multiline, pad: [0, 16, 4, 16] }),
  ]);
}

function categoriesField(ctx: Ctx): ViewSpec {
  const names = listCategories(ctx.app.db).filter((c) => ctx.s.categories.includes(c.categoryId)).map((c) => c.name ?? '');
  // A 1dp outline around the field, drawn as a frame: only EditTexts draw borders themselves.
  const frame = column([
    strip({
      cls: W.TextView, id: 'new_categories', text: names.length ? names.join(', ') : 'Categories', clickable: true,
      onClick: () => { ctx.nav.hideKeyboard(); ctx.s.dialog = 'categories'; },
      pad: [14, 16, 14, 16], style: { bg: 'background', radius: 4, fg: names.length ? 'onSurface' : 'onSurfaceVariant' },
    }),
  ], { pad: 1, style: { bg: 'outline', radius: 4 } });
  return column([
    names.length ? text('Categories', { size: 12, fg: 'primary', pad: [0, 4, 0, 4], h: 16 }) : { cls: W.View, h: 16 },
    frame,
  ], { pad: [0, 16, 4, 16] });
}

function editorDialog(ctx: Ctx): DialogView | undefined {
  const close = () => { ctx.s.dialog = null; };
  if (ctx.s.dialog === 'discard') {
    return {
      spec: dialog({ body: [alertMessage('Discard changes?')], buttons: [{ label: 'Cancel', onClick: close }, { label: 'Discard', onClick: () => { close(); ctx.nav.finish(); } }] }),
      onCancel: close,
    };
  }
  if (ctx.s.dialog === 'categories') {
    const cats = listCategories(ctx.app.db);
    return {
      spec: dialog({
        title: 'Categories',
        ...(cats.length ? {} : { message: 'No categories have been created yet.' }),
        body: cats.map((c) => checkbox({
          label: c.name ?? '', checked: ctx.s.categories.includes(c.categoryId),
          onToggle: () => {
            const has = ctx.s.categories.includes(c.categoryId);
            ctx.s.categories = has ? ctx.s.categories.filter((x) => x !== c.categoryId) : [...ctx.s.categories, c.categoryId].sort((a, b) => a - b);
          },
        })),
        buttons: [{ label: 'OK', onClick: close }],
      }),
      onCancel: close,
    };
  }
  return undefined;
}

export const editorActivity: ActivityDef<EditorState> = {
  name: EDITOR,
  create: (intent, env) => {
    const id = typeof intent.extras.recipeId === 'number' ? intent.extras.recipeId : null;
    const r = id === null ? undefined : getRecipe(env.app.db, id);
    const initial: Record<string, string> = {};
    if (r) for (const f of FIELDS) initial[f.key] = r[f.key] ?? '';
    // The form opens filled with the recipe (the editor's EditTexts get their text on create).
    Object.assign(env.fields, initial);
    const categories = r ? recipeCategoryIds(env.app.db, r.recipeId) : [];
    return {
      id: r ? r.recipeId : null, categories, initial, initialCategories: [...categories], dialog: null,
      favorite: r?.favorite ?? 0, imageName: r?.imageName ?? '',
    };
  },
  render: (ctx) => {
    const form: ViewSpec[] = [
      stack([strip({ cls: W.ImageView, id: 'new_image', desc: 'Recipe photo', h: 120, style: { icon: 'image', iconColor: '#558B2F', iconSize: 40 } })], { h: 120, style: { bg: '#DCEDC8' } }),
      labelled(ctx, FIELDS[0]),
      categoriesField(ctx),
      ...FIELDS.slice(1).map((f) => labelled(ctx, { ...f, multiline: 'multiline' in f })),
      { cls: W.View, h: 24 },
    ];
    const bar = appBar({
      title: 'New Recipe',
      onBack: () => leave(ctx),
      actions: [column([button('Save', () => save(ctx), { id: 'button_save_recipe', variant: 'text', w: 'wrap' })], { w: 'wrap', pad: [4, 0, 4, 0] })],
    });
    const dlg = editorDialog(ctx);
    return {
      body: column([bar, scroll('editor', form, { id: 'scroll_view' })], { h: 'fill', style: { bg: 'background' } }),
      ...(dlg ? { dialog: dlg } : {}),
    };
  },
  onBack: (ctx) => {
    if (!dirty(ctx)) return false;
    ctx.s.dialog = 'discard';
    return true;
  },
};
