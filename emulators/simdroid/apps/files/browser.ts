import type { ActivityContext, ActivityDef, DialogView, MenuItem, MenuView } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { list, screen, searchBar, caption } from '../../view/widgets.js';
import { basename, dirname } from '../../system/fs.js';
import { deleteDialog, nameDialog, sortDialog } from './dialogs.js';
import {
  DOWNLOAD_DIR, STORAGE_ROOT, isDir, createFolderIn, isWithin, listEntries, nameProblem, recentFiles, searchTree, sortEntries,
  type DocEntry, type SortKey,
} from './storage.js';
import { breadcrumb, browseToolbar, docGrid, docRow, selectionToolbar, withRootsDrawer, type Crumb, type RowOpts } from './views.js';

/**
 * DocumentsUI's FilesActivity: browse the roots (Recent, Downloads, Internal storage), open folders,
 * select with a long press, then delete, rename, copy or move; create folders, sort, switch list and
 * grid, search the root. All state is plain data here; documents live in ctx.sys.fs.
 */
export const FILES_ACTIVITY = 'com.android.documentsui.files.FilesActivity';
export const PICK_ACTIVITY = 'com.android.documentsui.picker.PickActivity';

export type RootId = 'storage' | 'downloads' | 'recent';

type Dialog =
  | { kind: 'delete' }
  | { kind: 'rename'; path: string; error: string | null }
  | { kind: 'new_folder'; error: string | null }
  | { kind: 'sort' };

export interface BrowserState {
  root: RootId;
  dir: string;
  /** Selected documents by full path. */
  selected: string[];
  searching: boolean;
  drawer: boolean;
  menu: null | 'overflow';
  dialog: Dialog | null;
}

type Ctx = ActivityContext<BrowserState>;

const ROOTS: Record<RootId, { title: string; base: string | null }> = {
  storage: { title: 'Internal storage', base: STORAGE_ROOT },
  downloads: { title: 'Downloads', base: DOWNLOAD_DIR },
  recent: { title: 'Recent', base: null },
};

function sortKey(ctx: Ctx): SortKey {
  return (ctx.app.prefs.sort as SortKey | undefined) ?? 'name_asc';
}

function gridMode(ctx: Ctx): boolean {
  return ctx.app.prefs.view === 'grid';
}

/** The folder on view: the state's, or its nearest existing ancestor when it was removed meanwhile. */
function currentDir(ctx: Ctx): string | null {
  const base = ROOTS[ctx.s.root].base;
  if (base === null) return null;
  let d = ctx.s.dir;
  while (!isDir(ctx.sys.fs, d) && d.length > base.length) d = dirname(d);
  return isDir(ctx.sys.fs, d) ? d : base;
}

function shownEntries(ctx: Ctx): DocEntry[] {
  const dir = currentDir(ctx);
  const query = ctx.fields.query ?? '';
  if (ctx.s.searching && query.trim()) return sortEntries(searchTree(ctx.sys.fs, dir ?? STORAGE_ROOT, query), sortKey(ctx));
  if (dir === null) return sortEntries(recentFiles(ctx.sys.fs), sortKey(ctx) === 'name_asc' ? 'date_desc' : sortKey(ctx));
  return sortEntries(listEntries(ctx.sys.fs, dir), sortKey(ctx));
}

function selectedEntries(ctx: Ctx): DocEntry[] {
  const fs = ctx.sys.fs;
  return ctx.s.selected.filter((p) => fs.exists(p)).map((p) => {
    const dir = isDir(fs, p);
    return { name: basename(p), path: p, dir, size: dir ? 0 : fs.size(p), mtime: fs.stat(p)!.mtime };
  });
}

function openFolder(ctx: Ctx, path: string): void {
  ctx.s.dir = path;
  ctx.s.selected = [];
  if (ctx.s.searching) {
    ctx.s.searching = false;
    ctx.fields.query = '';
    ctx.nav.hideKeyboard();
  }
  ctx.nav.scrollTo('dir', 0);
}

function goToRoot(ctx: Ctx, root: RootId): void {
  ctx.s.root = root;
  ctx.s.drawer = false;
  openFolder(ctx, ROOTS[root].base ?? STORAGE_ROOT);
}

function toggle(ctx: Ctx, path: string): void {
  const i = ctx.s.selected.indexOf(path);
  if (i >= 0) ctx.s.selected.splice(i, 1);
  else ctx.s.selected.push(path);
}

function onItemClick(ctx: Ctx, e: DocEntry): void {
  if (ctx.s.selected.length > 0) {
    toggle(ctx, e.path);
    return;
  }
  if (e.dir) {
    // Search results and Recent open a folder inside its own root.
    if (ctx.s.root === 'recent' || (ctx.s.root === 'downloads' && !isWithin(e.path, DOWNLOAD_DIR))) ctx.s.root = 'storage';
    openFolder(ctx, e.path);
    return;
  }
  // A web page opens in the browser (the one app for text/html, so no chooser), as a file: URL.
  if (/\.html?$/i.test(e.name)) {
    ctx.nav.launchApp('com.android.chrome', 'org.chromium.chrome.browser.ChromeTabbedActivity', { url: `file://${e.path}` });
    return;
  }
  ctx.nav.toast('Can’t open file');
}

function crumbs(ctx: Ctx, dir: string): Crumb[] {
  const root = ROOTS[ctx.s.root];
  const base = root.base!;
  const out: Crumb[] = [{ label: root.title, onClick: () => openFolder(ctx, base) }];
  let path = base;
  for (const seg of dir.slice(base.length).split('/').filter(Boolean)) {
    path = `${path}/${seg}`;
    const target = path;
    out.push({ label: seg, onClick: () => openFolder(ctx, target) });
  }
  return out;
}

const closeDialog = (ctx: Ctx) => () => {
  ctx.s.dialog = null;
  ctx.nav.hideKeyboard();
};

function openRename(ctx: Ctx, path: string): void {
  ctx.fields.rename = basename(path);
  ctx.s.dialog = { kind: 'rename', path, error: null };
  ctx.nav.focus('rename');
}

function renameDocument(ctx: Ctx, d: Extract<Dialog, { kind: 'rename' }>): void {
  const name = (ctx.fields.rename ?? '').trim();
  const problem = nameProblem(name);
  if (problem === 'empty') return;
  if (problem === 'invalid') {
    d.error = 'Failed to rename document';
    return;
  }
  // Nothing to do when the name is unchanged, or the document went away meanwhile.
  if (name === basename(d.path) || !ctx.sys.fs.exists(d.path)) {
    closeDialog(ctx)();
    return;
  }
  const target = `${dirname(d.path)}/${name}`;
  if (ctx.sys.fs.exists(target)) {
    d.error = 'A file with this name already exists.';
    return;
  }
  ctx.sys.fs.rename(d.path, target);
  ctx.s.selected = [];
  closeDialog(ctx)();
}

function createFolder(ctx: Ctx, d: Extract<Dialog, { kind: 'new_folder' }>, dir: string): void {
  const made = createFolderIn(ctx.sys.fs, dir, ctx.fields.folder_name ?? '');
  if ('problem' in made) {
    if (made.problem === 'invalid') d.error = 'Failed to create folder';
    return;
  }
  // DocumentsUI opens the new folder.
  closeDialog(ctx)();
  openFolder(ctx, made.path);
}

function dialogView(ctx: Ctx, dir: string | null): DialogView | undefined {
  const d = ctx.s.dialog;
  if (!d) return undefined;
  const close = closeDialog(ctx);
  switch (d.kind) {
    case 'delete': {
      const items = selectedEntries(ctx);
      return deleteDialog(items, {
        onCancel: close,
        onOk: () => {
          for (const e of items) ctx.sys.fs.remove(e.path, true);
          ctx.s.selected = [];
          close();
        },
      });
    }
    case 'rename':
      return nameDialog({
        title: 'Rename', field: 'rename', value: ctx.fields.rename ?? '', hint: 'Name', error: d.error,
        onCancel: close, onOk: () => renameDocument(ctx, d),
      });
    case 'new_folder':
      return nameDialog({
        title: 'New folder', field: 'folder_name', value: ctx.fields.folder_name ?? '', hint: 'Folder name', error: d.error,
        onCancel: close, onOk: () => { if (dir !== null) createFolder(ctx, d, dir); },
      });
    case 'sort':
      return sortDialog(sortKey(ctx), {
        onCancel: close,
        onPick: (k) => {
          ctx.app.prefs.sort = k;
          close();
        },
      });
  }
}

function startTransfer(ctx: Ctx, op: 'move' | 'copy', dir: string | null): void {
  const sources = selectedEntries(ctx).map((e) => e.path);
  ctx.s.menu = null;
  ctx.s.selected = [];
  ctx.nav.start(PICK_ACTIVITY, { op, sources, dir: dir ?? dirname(sources[0] ?? `${STORAGE_ROOT}/x`) });
}

function menuView(ctx: Ctx, dir: string | null, entries: readonly DocEntry[]): MenuView | undefined {
  if (ctx.s.menu !== 'overflow') return undefined;
  const close = () => { ctx.s.menu = null; };
  const item = (label: string, id: string, run: () => void): MenuItem => ({ label, id, onClick: () => { close(); run(); } });
  const selectAll = item('Select all', 'action_menu_select_all', () => { ctx.s.selected = entries.map((e) => e.path); });
  let items: MenuItem[];
  if (ctx.s.selected.length > 0) {
    const sel = selectedEntries(ctx);
    items = [
      selectAll,
      item('Copy to…', 'action_menu_copy_to', () => startTransfer(ctx, 'copy', dir)),
      item('Move to…', 'action_menu_move_to', () => startTransfer(ctx, 'move', dir)),
    ];
    if (sel.length === 1) items.push(item('Rename', 'action_menu_rename', () => openRename(ctx, sel[0]!.path)));
  } else {
    items = [];
    if (dir !== null && !ctx.s.searching) {
      items.push(item('New folder', 'option_menu_create_dir', () => {
        ctx.fields.folder_name = '';
        ctx.s.dialog = { kind: 'new_folder', error: null };
        ctx.nav.focus('folder_name');
      }));
    }
    items.push(item('Sort by', 'option_menu_sort', () => { ctx.s.dialog = { kind: 'sort' }; }));
    items.push(gridMode(ctx)
      ? item('List view', 'option_menu_list', () => { ctx.app.prefs.view = 'list'; })
      : item('Grid view', 'option_menu_grid', () => { ctx.app.prefs.view = 'grid'; }));
    if (entries.length > 0) items.push(selectAll);
  }
  return { items, onDismiss: close };
}

function toolbar(ctx: Ctx, count: number): ViewSpec {
  if (count > 0) {
    return selectionToolbar(count, {
      onClose: () => { ctx.s.selected = []; },
      onShare: () => ctx.nav.toast('No apps can perform this action.'),
      onDelete: () => { ctx.s.dialog = { kind: 'delete' }; },
      onOverflow: () => { ctx.s.menu = 'overflow'; },
    });
  }
  if (ctx.s.searching) {
    return searchBar({
      field: 'query', hint: 'Search files', id: 'search_src_text',
      onBack: () => { ctx.s.searching = false; ctx.fields.query = ''; ctx.nav.hideKeyboard(); },
      onSubmit: () => ctx.nav.hideKeyboard(),
    });
  }
  // As DocumentsUI: the root's title at its top, the folder's name below it.
  const dir = currentDir(ctx);
  const base = ROOTS[ctx.s.root].base;
  return browseToolbar(dir !== null && dir !== base ? basename(dir) : ROOTS[ctx.s.root].title, {
    onRoots: () => { ctx.s.drawer = true; },
    onSearch: () => {
      ctx.s.searching = true;
      ctx.fields.query = '';
      ctx.nav.focus('query');
    },
    onOverflow: () => { ctx.s.menu = 'overflow'; },
  });
}

function render(ctx: Ctx) {
  const dir = currentDir(ctx);
  const entries = shownEntries(ctx);
  const selection = new Set(selectedEntries(ctx).map((e) => e.path));
  const now = ctx.sys.clock.now();
  const opts = (e: DocEntry): RowOpts => ({
    now, selected: selection.has(e.path), selecting: selection.size > 0,
    onClick: () => onItemClick(ctx, e), onLongClick: () => toggle(ctx, e.path),
  });
  const query = (ctx.fields.query ?? '').trim();
  const empty = ctx.s.searching && query ? `No matches in ${ROOTS[ctx.s.root].title}` : 'No items';
  const items = gridMode(ctx) ? docGrid(entries, opts) : entries.map((e) => docRow(e, opts(e)));
  const body: ViewSpec[] = [];
  if (dir !== null && !(ctx.s.searching && query)) body.push(breadcrumb(crumbs(ctx, dir)));
  if (dir === null) body.push(caption('Recent files', { pad: [12, 16, 8, 16] }));
  body.push(list('dir', items, { id: 'dir_list', empty }));
  let spec = screen({ appBar: toolbar(ctx, selection.size), body });
  if (ctx.s.drawer) {
    const root = (id: RootId, icon: string, subtitle?: string) => ({
      label: ROOTS[id].title, icon, selected: ctx.s.root === id, onClick: () => goToRoot(ctx, id), ...(subtitle ? { subtitle } : {}),
    });
    spec = withRootsDrawer(spec, [root('recent', 'clock'), root('downloads', 'download'), root('storage', 'storage', '7.9 GB free')], () => {
      ctx.s.drawer = false;
    });
  }
  const dialog = dialogView(ctx, dir);
  const menu = menuView(ctx, dir, entries);
  return { body: spec, ...(dialog ? { dialog } : {}), ...(menu ? { menu } : {}) };
}

export const browser: ActivityDef<BrowserState> = {
  name: FILES_ACTIVITY,
  create: () => ({ root: 'storage', dir: STORAGE_ROOT, selected: [], searching: false, drawer: false, menu: null, dialog: null }),
  render,
  onBack: (ctx) => {
    const { s } = ctx;
    if (s.drawer) {
      s.drawer = false;
      return true;
    }
    if (s.selected.length > 0) {
      s.selected = [];
      return true;
    }
    if (s.searching) {
      s.searching = false;
      ctx.fields.query = '';
      return true;
    }
    const base = ROOTS[s.root].base;
    const dir = currentDir(ctx);
    if (base !== null && dir !== null && dir !== base) {
      openFolder(ctx, dirname(dir));
      return true;
    }
    return false;
  },
};
