import type { DialogView } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { appBar, caption, column, dialog, fab, fill, list, listItem, screen, text, textField } from '../../view/widgets.js';
import { deleteCategory, insertCategory, listCategories, renameCategory } from './db.js';
import type { MainCtx, Page } from './state.js';

/**
 * MainActivity's other drawer pages: Categories (add, rename or delete a category in a dialog,
 * as fragment_categories and dialog_add_category do) and plain information pages.
 */
export function categoriesScreen(ctx: MainCtx, openDrawer: () => void): ViewSpec {
  const cats = listCategories(ctx.app.db);
  const open = (id: number | null, name: string) => () => {
    ctx.fields.category_name = name;
    ctx.s.dialog = { kind: 'category', id };
    ctx.nav.focus('category_name');
  };
  const body = cats.length
    ? list('categories', cats.map((c) => listItem({ title: c.name ?? '', leading: 'category', onClick: open(c.categoryId, c.name ?? ''), id: 'card_text_view_category_name' })), { id: 'recycler_view' })
    : column([fill(), text('Create custom categories to manage your recipes.', { id: 'categories_empty', align: 'center' }), fill()], { h: 'fill' });
  return screen({
    appBar: appBar({ title: 'Categories', onMenu: openDrawer }),
    body: [body],
    fab: fab('add', 'Add category', open(null, ''), { id: 'fab_categories' }),
  });
}

export function categoriesDialog(ctx: MainCtx): DialogView | undefined {
  const dlg = ctx.s.dialog;
  if (dlg?.kind !== 'category') return undefined;
  const close = () => {
    ctx.s.dialog = null;
    delete ctx.fields.category_name;
    ctx.nav.hideKeyboard();
  };
  const save = () => {
    const name = (ctx.fields.category_name ?? '').trim();
    if (!name) return;
    if (dlg.id === null) insertCategory(ctx.app.db, name);
    else renameCategory(ctx.app.db, dlg.id, name);
    close();
  };
  const buttons = [
    ...(dlg.id !== null ? [{ label: 'Delete', onClick: () => { deleteCategory(ctx.app.db, dlg.id!); close(); } }] : []),
    { label: 'Cancel', onClick: close },
    { label: 'Save', onClick: save },
  ];
  return {
    spec: dialog({
      title: dlg.id === null ? 'Add category' : 'Edit category',
      body: [
        textField({ field: 'category_name', hint: 'Name', id: 'category_name' }),
        ...(dlg.id !== null ? [caption('Do you really want to delete this category?', { id: 'delete_category_warning', pad: [4, 24, 0, 24], size: 12 })] : []),
      ],
      buttons,
    }),
    onCancel: close,
  };
}

const PLAIN: Record<Exclude<Page, 'recipes' | 'categories'>, { title: string; lines: Array<[string, string]> }> = {
  seasons: { title: 'Seasonal calendar', lines: [['Seasonal calendar', 'The seasonal calendar has not been fully configured yet.']] },
  support: { title: 'Support the app', lines: [['Broccoli', 'Free for everyone, without ads. Support the development if you like the app.']] },
  backup: { title: 'Backup and restore', lines: [['Backup recipes', 'Export all your recipes and categories and save them wherever you want.'], ['Restore recipes', 'Import all recipes and categories from a backup file.']] },
  settings: { title: 'Settings', lines: [['Theme', 'System default'], ['Preferred category', 'All recipes'], ['Languages of recipes', 'English']] },
  about: { title: 'About the app', lines: [['Version', '2.2.0'], ['Send feedback', 'Did you find a bug or do you miss a feature?'], ['Legal', 'Privacy policy']] },
};

export function plainScreen(page: Page, openDrawer: () => void): ViewSpec {
  const p = PLAIN[page as keyof typeof PLAIN];
  return screen({
    appBar: appBar({ title: p.title, onMenu: openDrawer }),
    body: [list(page, p.lines.map(([title, subtitle]) => listItem({ title, subtitle, subtitleLines: 3 })))],
  });
}
