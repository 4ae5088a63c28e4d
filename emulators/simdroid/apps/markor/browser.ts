import type { MenuView } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { appBar, fab, iconButton, list, searchBar, spacer, stack, text } from '../../view/widgets.js';
import { dirname } from '../../system/fs.js';
import {
  DOCUMENT_ACTIVITY, NOTEBOOK, displayPath, folderTitle, formatModified, formatSize, listEntries, type Entry,
} from './files.js';
import { currentFolder, openNewFileDialog, openPicker, openRenameDialog } from './dialogs.js';
import { FIELD, SORT_PREF, sortOrder, type MainCtx } from './state.js';
import { ID, fileRow, selectionBar } from './widgets.js';

/**
 * The Notebook tab: Markor's file browser over the notebook folder. Folders first, then files;
 * a tap opens a folder or a document; a long press starts the selection mode (Delete, Rename,
 * Move, Copy, Select all).
 */
export function openFolder(ctx: MainCtx, dir: string): void {
  ctx.s.dir = dir;
  ctx.s.selected = [];
  ctx.nav.scrollTo('files', 0);
}

/** Back and "Navigate up" in a subfolder go to its parent; false at the notebook root. */
export function folderUp(ctx: MainCtx): boolean {
  const dir = currentFolder(ctx);
  if (dir === NOTEBOOK) return false;
  openFolder(ctx, dirname(dir));
  return true;
}

function closeSearch(ctx: MainCtx): void {
  ctx.s.search = false;
  ctx.fields[FIELD.search] = '';
  ctx.nav.hideKeyboard();
}

/** Closes what the browser has open (search, selection); true if there was something. */
export function browserBack(ctx: MainCtx): boolean {
  if (ctx.s.search) {
    closeSearch(ctx);
    return true;
  }
  if (ctx.s.selected.length) {
    ctx.s.selected = [];
    return true;
  }
  return folderUp(ctx);
}

function toggle(ctx: MainCtx, name: string): void {
  const sel = ctx.s.selected;
  const i = sel.indexOf(name);
  if (i >= 0) sel.splice(i, 1);
  else sel.push(name);
}

function entryRow(ctx: MainCtx, e: Entry, h24: boolean): ViewSpec {
  const selecting = ctx.s.selected.length > 0;
  const modified = formatModified(e.mtime, h24);
  return fileRow({
    name: e.name,
    icon: e.dir ? 'folder' : e.name.toLowerCase().endsWith('.md') ? 'note' : 'file',
    description: e.dir ? modified : `${modified} · ${formatSize(e.size)}`,
    selected: ctx.s.selected.includes(e.name),
    onClick: () => {
      if (selecting) toggle(ctx, e.name);
      else if (e.dir) openFolder(ctx, e.path);
      else ctx.nav.start(DOCUMENT_ACTIVITY, { path: e.path });
    },
    onLongClick: () => toggle(ctx, e.name),
  });
}

function browserMenu(ctx: MainCtx, entries: readonly Entry[]): MenuView | undefined {
  const dismiss = () => { ctx.s.menu = null; };
  if (ctx.s.menu === 'browser') {
    const sortBy = (order: 'name' | 'date') => () => {
      ctx.app.prefs[SORT_PREF] = order;
      ctx.nav.scrollTo('files', 0);
      dismiss();
    };
    const mark = (order: 'name' | 'date') => (sortOrder(ctx) === order ? ' ✓' : '');
    return {
      items: [
        { label: `Sort by name${mark('name')}`, onClick: sortBy('name'), id: 'action_sort_by_name' },
        { label: `Sort by date modified${mark('date')}`, onClick: sortBy('date'), id: 'action_sort_by_date' },
        { label: 'Go to notebook', onClick: () => { openFolder(ctx, NOTEBOOK); dismiss(); }, id: 'action_go_to' },
      ],
      onDismiss: dismiss,
    };
  }
  if (ctx.s.menu === 'selection') {
    return {
      items: [
        { label: 'Select all', onClick: () => { ctx.s.selected = entries.map((e) => e.name); dismiss(); }, id: 'action_select_all' },
        { label: 'Copy', onClick: () => openPicker(ctx, 'copy'), id: 'action_copy_selected_items' },
      ],
      onDismiss: dismiss,
    };
  }
  return undefined;
}

export function notebookTab(ctx: MainCtx): { appBar: ViewSpec; body: ViewSpec; menu?: MenuView } {
  const dir = currentFolder(ctx);
  const query = ctx.s.search ? (ctx.fields[FIELD.search] ?? '').trim().toLowerCase() : '';
  const all = listEntries(ctx.sys.fs, dir, sortOrder(ctx));
  const entries = query ? all.filter((e) => e.name.toLowerCase().includes(query)) : all;
  // A selection may name entries deleted meanwhile; only existing ones count.
  const selected = ctx.s.selected.filter((n) => all.some((e) => e.name === n));
  const h24 = ctx.sys.settings.get('system', 'time_12_24') === '24';

  let bar: ViewSpec;
  if (selected.length) {
    const actions = [
      iconButton('delete', 'Delete', () => { ctx.s.selected = selected; ctx.s.dialog = { kind: 'delete' }; }, { id: 'action_delete_selected_items' }),
      iconButton('drive_file_move', 'Move', () => { ctx.s.selected = selected; openPicker(ctx, 'move'); }, { id: 'action_move_selected_items' }),
    ];
    if (selected.length === 1) {
      actions.push(iconButton('edit', 'Rename', () => { ctx.s.selected = selected; openRenameDialog(ctx); }, { id: 'action_rename_selected_item' }));
    }
    bar = selectionBar(selected.length, () => { ctx.s.selected = []; }, actions, () => { ctx.s.menu = 'selection'; });
  } else if (ctx.s.search) {
    bar = searchBar({ field: FIELD.search, hint: 'Search in this folder', id: 'action_search', onBack: () => closeSearch(ctx) });
  } else {
    bar = appBar({
      title: folderTitle(dir),
      subtitle: displayPath(dir),
      ...(dir !== NOTEBOOK ? { onBack: () => folderUp(ctx) } : {}),
      actions: [iconButton('search', 'Search', () => { ctx.s.search = true; ctx.fields[FIELD.search] = ''; ctx.nav.focus(FIELD.search); }, { id: 'action_search' })],
      onOverflow: () => { ctx.s.menu = 'browser'; },
    });
  }

  const rows: ViewSpec[] = [];
  if (dir !== NOTEBOOK && !query) rows.push(fileRow({ name: '..', icon: 'folder_up', onClick: () => folderUp(ctx) }));
  rows.push(...entries.map((e) => entryRow(ctx, e, h24)));
  const empty = query ? 'No matching files' : 'This folder is empty';
  if (!entries.length) rows.push(text(empty, { align: 'center', fg: 'onSurfaceVariant', id: 'empty_view', pad: [48, 16, 16, 16] }));
  // Room at the end so the last row can scroll out from under the FAB.
  const content = list('files', [...rows, spacer(88)], { id: ID.list });
  const children = [content];
  if (!selected.length) children.push(fab('add', 'Create a new file or folder', () => openNewFileDialog(ctx), { id: ID.fab }));
  const menu = browserMenu(ctx, all);
  return { appBar: bar, body: stack(children, { h: 'fill' }), ...(menu ? { menu } : {}) };
}
