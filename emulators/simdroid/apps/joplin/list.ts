import type { ActivityContext } from '../../runtime/app.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { APP_BAR_DP } from '../../view/theme.js';
import { caption, column, divider, iconButton, list, listItem, row, screen, searchBar, stack, strip, text } from '../../view/widgets.js';
import { folder, folders, notesIn, searchNotes, setTodoCompleted, type Note } from './db.js';

/**
 * Joplin's note list (NotesScreen), its side menu of notebooks (SideMenuContent) and the search
 * screen, all in the React Native app's one MainActivity. A row is a to-do's check box (when the
 * note is a to-do) and the title; "All notes" lists every notebook's notes.
 */
export interface JoplinState {
  /** The notebook listed, or null for "All notes". */
  folder: string | null;
  sideMenu: boolean;
  searching: boolean;
  /** The note open in the note screen, or null. */
  noteId: string | null;
}

export type Ctx = ActivityContext<JoplinState>;

/** Joplin's blue header bar with white text. */
export const HEADER_BG = '#1071D3';
export const HEADER_FG = '#FFFFFF';

export const SEARCH_FIELD = 'search_query';
export const LIST_KEY = 'notes';

export function openNote(ctx: Ctx, id: string): void {
  ctx.s.noteId = id;
  ctx.nav.hideKeyboard();
  ctx.nav.scrollTo('note', 0);
}

/** The to-do check box: checked when done; ticking it completes the to-do, as in the list and the note screen. */
export function todoBox(ctx: Ctx, n: Note, id: string): ViewSpec {
  const done = n.todo_completed > 0;
  return strip({
    cls: W.CheckBox, id, desc: done ? `Completed to-do: ${n.title}` : `To-do: ${n.title}`, checkable: true, checked: done, w: 48, h: 48,
    pad: [0, 0, 0, -64],
    onClick: () => setTodoCompleted(ctx.app.db, n.id, !done, ctx.sys.clock.now()),
    style: { icon: done ? 'checkbox_on' : 'checkbox_off', iconColor: done ? 'onSurfaceVariant' : 'primary' },
  });
}

function noteRow(ctx: Ctx, n: Note): ViewSpec {
  const done = n.is_todo === 1 && n.todo_completed > 0;
  const parts: ViewSpec[] = [];
  if (n.is_todo === 1) parts.push(todoBox(ctx, n, 'todo_checkbox'));
  parts.push({ ...text(n.title || 'Untitled', { id: 'note_title', size: 16, lines: 1, pad: [14, 8, 14, n.is_todo === 1 ? 0 : 8], fg: done ? 'onSurfaceVariant' : 'onSurface' }), weight: 1 });
  return row(parts, { id: 'note_item', clickable: true, onClick: () => openNote(ctx, n.id), pad: [0, 8, 0, 8], style: { divider: true } });
}

function sideMenu(ctx: Ctx): ViewSpec {
  const pick = (id: string | null) => () => {
    ctx.s.folder = id;
    ctx.s.sideMenu = false;
    ctx.nav.scrollTo(LIST_KEY, 0);
  };
  const panel = column([
    text('Joplin', { size: 22, bold: true, pad: [24, 24, 12, 24] }),
    listItem({ id: 'all_notes', title: 'All notes', leading: 'note', selected: ctx.s.folder === null, onClick: pick(null) }),
    divider(),
    caption('NOTEBOOKS', { pad: [12, 24, 4, 24], size: 12 }),
    list('side_menu', folders(ctx.app.db).map((f) => row([
      strip({ cls: W.ImageView, w: 24, h: 24, style: { icon: 'folder', iconColor: 'onSurfaceVariant' } }),
      { ...text(f.title, { id: 'folder_title', size: 16, lines: 1, pad: 0 }), weight: 1 },
    ], {
      id: 'folder_item', clickable: true, onClick: pick(f.id), selected: ctx.s.folder === f.id, pad: [14, 24, 14, 24], gap: 16,
      ...(ctx.s.folder === f.id ? { style: { bg: 'primaryContainer' as const } } : {}),
    })), { id: 'side_menu_folders' }),
    divider(),
    listItem({ id: 'configuration', title: 'Configuration', leading: 'settings', onClick: () => ctx.nav.toast('Configuration is not available') }),
  ], { id: 'side_menu', w: 300, style: { bg: 'surface' } });
  const scrim: ViewSpec = { cls: W.View, weight: 1, clickable: true, desc: 'Close side menu', onClick: () => { ctx.s.sideMenu = false; }, style: { bg: '#00000066' } };
  return row([panel, scrim], { id: 'side_menu_layout' });
}

function header(ctx: Ctx, title: string): ViewSpec {
  return row([
    iconButton('menu', 'Side menu', () => { ctx.s.sideMenu = true; }, { id: 'side_menu_button', color: HEADER_FG }),
    { ...text(title, { id: 'screen_title', size: 20, bold: true, lines: 1, pad: [0, 8, 0, 8], fg: HEADER_FG }), weight: 1 },
    iconButton('search', 'Search', () => {
      ctx.s.searching = true;
      ctx.fields[SEARCH_FIELD] = '';
      ctx.nav.focus(SEARCH_FIELD);
    }, { id: 'search_button', color: HEADER_FG }),
  ], { cls: W.ViewGroup, id: 'header', h: APP_BAR_DP, pad: [8, 4, 8, 4], style: { bg: HEADER_BG } });
}

export function notesScreen(ctx: Ctx): ViewSpec {
  const notebook = ctx.s.folder === null ? undefined : folder(ctx.app.db, ctx.s.folder);
  if (ctx.s.folder !== null && !notebook) ctx.s.folder = null;
  const notes = notesIn(ctx.app.db, notebook ? notebook.id : null);
  const body = list(LIST_KEY, notes.map((n) => noteRow(ctx, n)), {
    id: 'note_list', empty: 'There are currently no notes. Create one by clicking on the (+) button.',
  });
  const spec = screen({ appBar: header(ctx, notebook ? notebook.title : 'All notes'), body: [body], id: 'notes_screen' });
  return ctx.s.sideMenu ? stack([spec, sideMenu(ctx)]) : spec;
}

export function searchScreen(ctx: Ctx): ViewSpec {
  const query = ctx.fields[SEARCH_FIELD] ?? '';
  const hits = searchNotes(ctx.app.db, query);
  const close = () => closeSearch(ctx);
  const body = query.trim() ? list('search', hits.map((n) => noteRow(ctx, n)), { id: 'search_results', empty: 'No results' }) : column([]);
  return screen({ appBar: searchBar({ field: SEARCH_FIELD, hint: 'Search...', onBack: close, id: 'search_input' }), body: [body], id: 'search_screen' });
}

export function closeSearch(ctx: Ctx): void {
  ctx.s.searching = false;
  delete ctx.fields[SEARCH_FIELD];
  ctx.nav.hideKeyboard();
}
