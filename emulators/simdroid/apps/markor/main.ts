import type { ActivityDef } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { appBar, caption, column, iconButton, listItem, list, screen } from '../../view/widgets.js';
import { MAIN_ACTIVITY, NOTEBOOK, QUICKNOTE_FILE, TODO_FILE, readTextOr, writeDocument } from './files.js';
import { browserBack, notebookTab } from './browser.js';
import { browserDialog } from './dialogs.js';
import { FIELD, type MainCtx, type MainState, type Tab } from './state.js';
import { bottomNav, editorPane } from './widgets.js';

/**
 * Markor's MainActivity: a bottom navigation of Notebook (the file browser), To-Do (todo.txt),
 * QuickNote (QuickNote.md) and More. The To-Do and QuickNote tabs are editors of those files, saved
 * when leaving the tab, on Back and with the toolbar's Save, as Markor saves on pause.
 */
type EditorTab = 'todo' | 'quicknote';

const EDITOR_FILES: Record<EditorTab, { path: string; field: string; title: string }> = {
  todo: { path: TODO_FILE, field: FIELD.todo, title: 'To-Do' },
  quicknote: { path: QUICKNOTE_FILE, field: FIELD.quicknote, title: 'QuickNote' },
};

function isEditorTab(t: Tab): t is EditorTab {
  return t === 'todo' || t === 'quicknote';
}

/** Saves the To-Do or QuickNote editor if its text changed (an untouched tab creates no file). */
function saveEditorTab(ctx: MainCtx): void {
  const t = ctx.s.tab;
  if (!isEditorTab(t)) return;
  const f = EDITOR_FILES[t];
  const text = ctx.fields[f.field] ?? '';
  if (text === ctx.s.saved[t]) return;
  writeDocument(ctx.sys.fs, f.path, text);
  ctx.s.saved[t] = text;
}

function selectTab(ctx: MainCtx, tab: Tab): void {
  saveEditorTab(ctx);
  ctx.nav.hideKeyboard();
  ctx.s.menu = null;
  ctx.s.dialog = null;
  ctx.s.tab = tab;
  if (isEditorTab(tab)) {
    // Reload: the file may have changed since the tab was last shown.
    const f = EDITOR_FILES[tab];
    const text = readTextOr(ctx.sys.fs, f.path, '');
    ctx.fields[f.field] = text;
    ctx.s.saved[tab] = text;
    ctx.nav.scrollTo(tab, 0);
  }
}

function editorTab(ctx: MainCtx, tab: EditorTab): { appBar: ViewSpec; body: ViewSpec } {
  const f = EDITOR_FILES[tab];
  return {
    appBar: appBar({ title: f.title, subtitle: f.path.slice(NOTEBOOK.length + 1), actions: [iconButton('save', 'Save', () => saveEditorTab(ctx), { id: 'action_save' })] }),
    body: editorPane(ctx.nav, f.field, tab, tab === 'todo' ? 'One task per line' : undefined),
  };
}

const MORE_ROWS: ReadonlyArray<[string, string, string]> = [
  ['settings', 'Settings', 'Notebook, editor, appearance'],
  ['info', 'About', 'Markor 2.11.1'],
  ['share', 'Share', 'Tell friends about Markor'],
  ['favorite_border', 'Donate', 'Support the project'],
];

function moreTab(): { appBar: ViewSpec; body: ViewSpec } {
  return {
    appBar: appBar({ title: 'More' }),
    body: column([
      list('more', MORE_ROWS.map(([icon, title, subtitle]) => listItem({ leading: icon, title, subtitle }))),
      caption(`Notebook: ${NOTEBOOK}`, { pad: [8, 16, 16, 16] }),
    ], { h: 'fill' }),
  };
}

export const mainActivity: ActivityDef<MainState> = {
  name: MAIN_ACTIVITY,
  create: () => ({
    tab: 'notebook', dir: NOTEBOOK, selected: [], search: false, dialog: null, menu: null,
    saved: { todo: '', quicknote: '' },
  }),
  render: (ctx) => {
    const tab = ctx.s.tab;
    const nav = bottomNav(tab, (t) => selectTab(ctx, t));
    if (tab === 'notebook') {
      const v = notebookTab(ctx);
      const dialog = browserDialog(ctx);
      return {
        body: screen({ appBar: v.appBar, body: [v.body], bottom: nav }),
        ...(dialog ? { dialog } : {}),
        ...(v.menu ? { menu: v.menu } : {}),
      };
    }
    const v = isEditorTab(tab) ? editorTab(ctx, tab) : moreTab();
    return { body: screen({ appBar: v.appBar, body: [v.body], bottom: nav }) };
  },
  onPause: (ctx) => saveEditorTab(ctx),
  onBack: (ctx) => {
    if (ctx.s.tab === 'notebook') return browserBack(ctx);
    // Back on another tab returns to the notebook, saving the editor first.
    selectTab(ctx, 'notebook');
    return true;
  },
};
