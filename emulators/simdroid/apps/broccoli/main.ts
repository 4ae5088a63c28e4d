import type { ActivityDef, MenuItem } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { APP_BAR_DP } from '../../view/theme.js';
import { caption, column, divider, fab, fill, iconButton, list, listItem, row, screen, stack, strip, text } from '../../view/widgets.js';
import { listCategories, listRecipes, type Recipe, type RecipeFilter } from './db.js';
import { categoriesDialog, categoriesScreen, plainScreen } from './pages.js';
import { DETAILS, EDITOR, MAIN, type MainCtx, type MainState, type Page } from './state.js';

/**
 * Broccoli's MainActivity: the recipes list (cards of title, description and source, sorted by
 * title) with the category spinner (All recipes, Favorites, each category, Recipes without
 * category) and a search view in the toolbar, the "New Recipe" FAB, and the navigation drawer to
 * the Categories page and the app's other pages.
 */
const DRAWER: Array<{ page: Page; title: string; icon: string; id: string }> = [
  { page: 'recipes', title: 'Recipes', icon: 'recipe', id: 'nav_recipes' },
  { page: 'categories', title: 'Categories', icon: 'category', id: 'nav_categories' },
  { page: 'seasons', title: 'Seasonal calendar', icon: 'eco', id: 'nav_seasons' },
  { page: 'support', title: 'Support the app', icon: 'favorite_border', id: 'nav_support' },
  { page: 'backup', title: 'Backup and restore', icon: 'cloud', id: 'nav_backup_and_restore' },
  { page: 'settings', title: 'Settings', icon: 'settings', id: 'nav_settings' },
  { page: 'about', title: 'About the app', icon: 'info', id: 'nav_about' },
];

/** The spinner's selection; a category deleted meanwhile falls back to all recipes. */
function currentFilter(ctx: MainCtx): RecipeFilter {
  const f = ctx.s.filter;
  if (f.kind === 'category' && !listCategories(ctx.app.db).some((c) => c.categoryId === f.categoryId)) return { kind: 'all' };
  return f;
}

function filterLabel(ctx: MainCtx, f: RecipeFilter): string {
  switch (f.kind) {
    case 'all': return 'All recipes';
    case 'favorites': return 'Favorites';
    case 'unassigned': return 'Recipes without category';
    case 'category': return listCategories(ctx.app.db).find((c) => c.categoryId === f.categoryId)?.name ?? 'All recipes';
  }
}

function closeSearch(ctx: MainCtx): void {
  ctx.s.search = false;
  delete ctx.fields.query;
  ctx.nav.hideKeyboard();
  ctx.nav.scrollTo('recipes', 0);
}

function toolbar(ctx: MainCtx): ViewSpec {
  if (ctx.s.search) {
    const q = ctx.fields.query ?? '';
    return row([
      iconButton('arrow_back', 'Collapse', () => closeSearch(ctx)),
      strip({ cls: W.EditText, field: 'query', hint: 'Search', id: 'search_src_text', weight: 1, pad: [12, 8, 12, 8] }),
      ...(q ? [iconButton('close', 'Clear query', () => { ctx.fields.query = ''; ctx.nav.focus('query'); }, { id: 'search_close_btn' })] : []),
    ], { cls: W.ViewGroup, id: 'toolbar_recipes', h: APP_BAR_DP, pad: [8, 4, 8, 4], style: { bg: 'surface' } });
  }
  const spinner = row([
    text(filterLabel(ctx, currentFilter(ctx)), { id: 'android:id/text1', size: 20, pad: 0, w: 'wrap', lines: 1 }),
    strip({ cls: W.ImageView, w: 24, h: 24, style: { icon: 'expand_more', iconColor: 'onSurfaceVariant' } }),
  ], { id: 'spinner', desc: 'Categories', clickable: true, onClick: () => { ctx.s.spinner = true; }, w: 'wrap', pad: [12, 8, 12, 8], gap: 4 });
  return row([
    iconButton('menu', 'Open navigation drawer', () => { ctx.s.drawer = true; }),
    column([fill(), spinner, fill()], { weight: 1 }),
    iconButton('search', 'Search', () => {
      ctx.s.search = true;
      ctx.fields.query = '';
      ctx.nav.focus('query');
    }, { id: 'action_search' }),
  ], { cls: W.ViewGroup, id: 'toolbar_recipes', h: APP_BAR_DP, pad: [8, 4, 8, 4], style: { bg: 'surface' } });
}

function card(ctx: MainCtx, r: Recipe): ViewSpec {
  const texts: ViewSpec[] = [text(r.title ?? '', { id: 'card_text_view_title', size: 18, bold: true, pad: 0, lines: 2 })];
  if (r.description) texts.push(text(r.description, { id: 'card_text_view_description', size: 14, pad: [4, 0, 0, 0], fg: 'onSurfaceVariant', lines: 2 }));
  if (r.source) texts.push(caption(r.source, { id: 'card_text_view_source', size: 12, pad: [4, 0, 0, 0], lines: 1 }));
  const image = stack([strip({ cls: W.ImageView, id: 'card_image', desc: 'Recipe photo', w: 88, h: 88, style: { icon: 'restaurant', iconColor: '#558B2F', iconSize: 36 } })],
    { w: 88, h: 88, style: { bg: '#DCEDC8', radius: 12 } });
  return column([
    row([image, column(texts, { weight: 1, pad: [4, 0, 4, 0] })], {
      clickable: true, onClick: () => ctx.nav.start(DETAILS, { recipeId: r.recipeId }),
      pad: [12, 12, 12, 12], gap: 16, style: { variant: 'card', radius: 16 },
    }),
  ], { pad: [6, 12, 6, 12] });
}

function recipesScreen(ctx: MainCtx): ViewSpec {
  const recipes = listRecipes(ctx.app.db, currentFilter(ctx), ctx.s.search ? (ctx.fields.query ?? '') : '');
  const body = recipes.length
    ? list('recipes', recipes.map((r) => card(ctx, r)), { id: 'recycler_view', pad: [6, 0, 88, 0] })
    : column([
      fill(),
      text('No recipes found.', { id: 'recipes_empty', size: 18, align: 'center' }),
      ...(ctx.s.search || currentFilter(ctx).kind !== 'all' ? [] : [caption('Create a new recipe with the + button.', { align: 'center' })]),
      fill(),
    ], { h: 'fill' });
  return screen({
    appBar: toolbar(ctx),
    body: [body],
    ...(ctx.s.search ? {} : { fab: fab('add', 'New Recipe', () => ctx.nav.start(EDITOR, {}), { id: 'fab_recipes' }) }),
  });
}

function spinnerMenu(ctx: MainCtx): MenuItem[] {
  const pick = (f: RecipeFilter) => () => {
    ctx.s.filter = f;
    ctx.s.spinner = false;
    ctx.nav.scrollTo('recipes', 0);
  };
  return [
    { label: 'All recipes', onClick: pick({ kind: 'all' }) },
    { label: 'Favorites', onClick: pick({ kind: 'favorites' }) },
    ...listCategories(ctx.app.db).map((c) => ({ label: c.name ?? '', onClick: pick({ kind: 'category', categoryId: c.categoryId }) })),
    { label: 'Recipes without category', onClick: pick({ kind: 'unassigned' }) },
  ];
}

function drawer(ctx: MainCtx): ViewSpec {
  const go = (page: Page) => () => {
    ctx.s.page = page;
    ctx.s.drawer = false;
    if (ctx.s.search) closeSearch(ctx);
  };
  const panel = column([
    column([
      text('Broccoli', { size: 22, bold: true, pad: 0 }),
      caption('Free for everyone', { id: 'header_subtitle', pad: [4, 0, 0, 0] }),
    ], { pad: [32, 24, 16, 24] }),
    divider(),
    ...DRAWER.map((d) => listItem({ id: d.id, title: d.title, leading: d.icon, selected: ctx.s.page === d.page, onClick: go(d.page) })),
  ], { id: 'nav_view', w: 300, style: { bg: 'surface' } });
  const scrim: ViewSpec = { cls: W.View, weight: 1, clickable: true, onClick: () => { ctx.s.drawer = false; }, style: { bg: '#00000066' } };
  return row([panel, scrim], { id: 'drawer_layout' });
}

export const mainActivity: ActivityDef<MainState> = {
  name: MAIN,
  create: () => ({ page: 'recipes', drawer: false, search: false, spinner: false, filter: { kind: 'all' }, dialog: null }),
  render: (ctx) => {
    let body = ctx.s.page === 'recipes' ? recipesScreen(ctx)
      : ctx.s.page === 'categories' ? categoriesScreen(ctx, () => { ctx.s.drawer = true; })
        : plainScreen(ctx.s.page, () => { ctx.s.drawer = true; });
    if (ctx.s.drawer) body = stack([body, drawer(ctx)]);
    const dialog = categoriesDialog(ctx);
    const menu = ctx.s.spinner && ctx.s.page === 'recipes'
      ? { items: spinnerMenu(ctx), onDismiss: () => { ctx.s.spinner = false; }, anchor: { x: 56, y: 88 } }
      : undefined;
    return { body, ...(dialog ? { dialog } : {}), ...(menu ? { menu } : {}) };
  },
  onBack: (ctx) => {
    if (ctx.s.drawer) {
      ctx.s.drawer = false;
      return true;
    }
    if (ctx.s.search) {
      closeSearch(ctx);
      return true;
    }
    if (ctx.s.page !== 'recipes') {
      ctx.s.page = 'recipes';
      return true;
    }
    return false;
  },
};
