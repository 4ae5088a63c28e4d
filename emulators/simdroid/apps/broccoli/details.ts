import type { ActivityContext, ActivityDef } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { appBar, caption, column, dialog, fill, iconButton, row, screen, scroll, stack, strip, text } from '../../view/widgets.js';
import { deleteRecipe, getRecipe, insertRecipe, lines, listCategories, recipeCategoryIds, setFavorite, setRecipeCategories, splitIngredient, type Recipe } from './db.js';
import { alertMessage, DETAILS, EDITOR } from './state.js';

/**
 * RecipeDetailsActivity: the photo, title, servings, time, categories, description and source,
 * then the ingredients (quantity apart from the name) and the numbered directions. The toolbar
 * holds the favourite heart; the overflow menu Edit, Duplicate and Delete (with "Delete this
 * recipe?" confirmation, then a toast and back to the list).
 */
interface DetailsState {
  menu: boolean;
  confirmDelete: boolean;
}

type Ctx = ActivityContext<DetailsState>;

function iconLine(icon: string, desc: string, value: string, id: string): ViewSpec {
  return row([
    strip({ cls: W.ImageView, id: `details_icon_${id.replace('details_', '')}`, desc, w: 24, h: 24, style: { icon, iconColor: 'onSurfaceVariant' } }),
    text(value, { id, size: 16, pad: 0 }),
  ], { pad: [4, 24, 4, 24], gap: 12 });
}

function section(title: string, items: ViewSpec[], id: string): ViewSpec[] {
  if (items.length === 0) return [];
  return [
    text(title, { size: 20, bold: true, pad: [20, 24, 8, 24], fg: 'primary' }),
    column(items, { id, gap: 2 }),
  ];
}

function content(ctx: Ctx, r: Recipe): ViewSpec[] {
  const cats = recipeCategoryIds(ctx.app.db, r.recipeId);
  const names = listCategories(ctx.app.db).filter((c) => cats.includes(c.categoryId)).map((c) => c.name ?? '');
  const meta: ViewSpec[] = [];
  if (r.servings) meta.push(iconLine('person', 'Servings', r.servings, 'details_servings'));
  if (r.preparationTime) meta.push(iconLine('timer', 'Time', r.preparationTime, 'details_preparation_time'));
  if (names.length) meta.push(iconLine('category', 'Categories', names.join(', '), 'details_categories'));
  const ingredients = lines(r.ingredients).map((l) => {
    const { quantity, text: name } = splitIngredient(l);
    return row([
      text(quantity, { id: 'ingredient_quantity', size: 16, bold: true, pad: 0, w: 88 }),
      text(name, { id: 'ingredient_text', size: 16, pad: 0 }),
    ], { pad: [4, 24, 4, 24], gap: 8 });
  });
  const directions = lines(r.directions).map((l, i) => row([
    text(String(i + 1), { id: 'direction_position', size: 16, bold: true, pad: 0, w: 28, fg: 'primary' }),
    text(l, { id: 'direction_text', size: 16, pad: 0 }),
  ], { pad: [6, 24, 6, 24], gap: 8 }));
  return [
    stack([strip({ cls: W.ImageView, id: 'backdrop', desc: 'Recipe photo', h: 160, style: { icon: 'restaurant', iconColor: '#558B2F', iconSize: 56 } })], { h: 160, style: { bg: '#DCEDC8' } }),
    text(r.title ?? '', { id: 'details_title', size: 26, bold: true, pad: [16, 24, 8, 24] }),
    ...meta,
    ...(r.description ? [text(r.description, { id: 'details_description', size: 16, pad: [12, 24, 4, 24], fg: 'onSurfaceVariant' })] : []),
    ...(r.source ? [iconLine('globe', 'Source', r.source, 'details_source')] : []),
    ...section('Ingredients', ingredients, 'details_ingredients'),
    ...section('Directions', directions, 'details_directions'),
    { cls: W.View, h: 32 },
  ];
}

function duplicate(ctx: Ctx, r: Recipe): void {
  const { recipeId, ...copy } = r;
  const id = insertRecipe(ctx.app.db, { ...copy, favorite: 0 });
  setRecipeCategories(ctx.app.db, id, recipeCategoryIds(ctx.app.db, recipeId));
  ctx.s.menu = false;
  ctx.nav.replace(DETAILS, { recipeId: id });
}

export const detailsActivity: ActivityDef<DetailsState> = {
  name: DETAILS,
  create: () => ({ menu: false, confirmDelete: false }),
  render: (ctx) => {
    const r = getRecipe(ctx.app.db, Number(ctx.intent.extras.recipeId));
    if (!r) {
      // The recipe went away underneath (deleted by a shell command): an empty page with Up.
      return { body: screen({ appBar: appBar({ title: '', onBack: () => ctx.nav.finish() }), body: [column([fill(), caption('No recipes found.', { align: 'center' }), fill()], { h: 'fill' })] }) };
    }
    const fav = r.favorite === 1;
    const heart = fav
      ? iconButton('favorite', 'Remove from favorites', () => setFavorite(ctx.app.db, r.recipeId, false), { id: 'action_details_unlike', color: '#D32F2F' })
      : iconButton('favorite_border', 'Mark as favorite', () => setFavorite(ctx.app.db, r.recipeId, true), { id: 'action_details_like' });
    const body = screen({
      appBar: appBar({ title: '', onBack: () => ctx.nav.finish(), actions: [heart], onOverflow: () => { ctx.s.menu = true; } }),
      body: [scroll('details', content(ctx, r), { id: 'scroll_view' })],
    });
    const closeMenu = () => { ctx.s.menu = false; };
    const menu = ctx.s.menu ? {
      items: [
        { label: 'Edit', id: 'android:id/title', onClick: () => { ctx.s.menu = false; ctx.nav.start(EDITOR, { recipeId: r.recipeId }); } },
        { label: 'Duplicate', id: 'android:id/title', onClick: () => duplicate(ctx, r) },
        { label: 'Delete', id: 'android:id/title', onClick: () => { ctx.s.menu = false; ctx.s.confirmDelete = true; } },
      ],
      onDismiss: closeMenu,
    } : undefined;
    const close = () => { ctx.s.confirmDelete = false; };
    const confirm = ctx.s.confirmDelete ? {
      spec: dialog({
        body: [alertMessage('Delete this recipe?')],
        buttons: [
          { label: 'Cancel', onClick: close },
          {
            label: 'Delete',
            onClick: () => {
              deleteRecipe(ctx.app.db, r.recipeId);
              close();
              ctx.nav.toast('The recipe has been deleted.');
              ctx.nav.finish();
            },
          },
        ],
      }),
      onCancel: close,
    } : undefined;
    return { body, ...(menu ? { menu } : {}), ...(confirm ? { dialog: confirm } : {}) };
  },
};
