import type { ActivityContext, ActivityDef, DialogView, MenuView } from '../../runtime/app.js';
import { CONTACTS_DB } from '../../system/providers.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { appBar, caption, column, dialog, fab, fill, iconButton, list, row, screen, searchBar, stack, strip, tabs, text } from '../../view/widgets.js';
import { deleteContacts, listContacts, searchContacts, type ContactSummary } from './db.js';
import { letterAvatar, sectionOf } from './format.js';
import { EDITOR, PEOPLE, QUICK_CONTACT } from './names.js';

/**
 * PeopleActivity: the alphabetical contact list with letter sections, the search view, the
 * Favourites tab (starred contacts), and the selection mode a long press starts (delete, select all).
 */
export interface PeopleState {
  tab: 'contacts' | 'favourites';
  searching: boolean;
  /** Raw contact ids chosen in selection mode; empty when not selecting. */
  selected: number[];
  dialog: null | 'delete';
  menu: boolean;
}

type Ctx = ActivityContext<PeopleState>;

const contacts = (ctx: Ctx) => listContacts(ctx.sys.db(CONTACTS_DB));

/** The selection, minus contacts that no longer exist (deleted behind the app's back). */
function selection(ctx: Ctx, all: readonly ContactSummary[]): number[] {
  return ctx.s.selected.filter((id) => all.some((c) => c.id === id));
}

function toggle(ctx: Ctx, id: number): void {
  const s = ctx.s;
  s.selected = s.selected.includes(id) ? s.selected.filter((x) => x !== id) : [...s.selected, id];
}

function avatar(c: ContactSummary, selected: boolean): ViewSpec {
  if (selected) {
    return strip({ cls: W.ImageView, w: 40, h: 40, style: { variant: 'avatar', bg: 'primary', icon: 'check', iconColor: 'onPrimary' } });
  }
  return letterAvatar(c.name, c.id, 40);
}

/** One contact row: tapping opens it, a long press starts selection; in selection mode both toggle. */
function contactRow(ctx: Ctx, c: ContactSummary, selectedIds: readonly number[]): ViewSpec {
  const selecting = selectedIds.length > 0;
  const selected = selectedIds.includes(c.id);
  const open = () => ctx.nav.start(QUICK_CONTACT, { id: c.id });
  return row(
    [avatar(c, selected), column([fill(), text(c.name, { id: 'cliv_name_textview', size: 16, pad: 0, lines: 1 }), fill()], { weight: 1 })],
    strip({
      id: 'contact_row', clickable: true, selected,
      onClick: selecting ? () => toggle(ctx, c.id) : open,
      onLongClick: () => toggle(ctx, c.id),
      pad: [8, 16, 8, 24], gap: 16, h: 56,
      style: selected ? { bg: 'primaryContainer' } : undefined,
    }),
  );
}

function sectionHeader(letter: string): ViewSpec {
  return text(letter, { id: 'section_header', size: 14, bold: true, fg: 'primary', pad: [16, 16, 4, 24] });
}

/** Rows with a letter header before each new section (the header sits left of the first row, as in Google Contacts). */
function sectioned(ctx: Ctx, items: readonly ContactSummary[], selectedIds: readonly number[]): ViewSpec[] {
  const out: ViewSpec[] = [];
  let last = '';
  for (const c of items) {
    const letter = sectionOf(c.name);
    if (letter !== last) out.push(sectionHeader(letter));
    last = letter;
    out.push(contactRow(ctx, c, selectedIds));
  }
  return out;
}

function emptyState(title: string, hint: string): ViewSpec {
  return column(
    [fill(), text(title, { align: 'center', size: 20, id: 'empty_title' }), caption(hint, { align: 'center', pad: [8, 32, 8, 32] }), fill()],
    { h: 'fill', id: 'empty_view' },
  );
}

function topBar(ctx: Ctx, selectedIds: readonly number[]): ViewSpec {
  const s = ctx.s;
  if (selectedIds.length > 0) {
    return appBar({
      title: `${selectedIds.length} selected`,
      onBack: () => { s.selected = []; },
      actions: [iconButton('delete', 'Delete', () => { s.dialog = 'delete'; }, { id: 'menu_delete' })],
      onOverflow: () => { s.menu = true; },
    });
  }
  if (s.searching) {
    return searchBar({
      field: 'query', hint: 'Search contacts', id: 'open_search_view_edit_text',
      onBack: () => closeSearch(ctx), onSubmit: () => ctx.nav.hideKeyboard(),
    });
  }
  const openSearch = () => {
    ctx.fields.query = '';
    s.searching = true;
    ctx.nav.focus('query');
  };
  return row([
    strip({
      cls: W.TextView, id: 'open_search_bar_text_view', text: 'Search contacts', clickable: true, onClick: openSearch, weight: 1, h: 48,
      pad: [12, 16, 12, 16], style: { icon: 'search', iconColor: 'onSurfaceVariant', fg: 'onSurfaceVariant', bg: 'surfaceVariant', radius: 24 },
    }),
  ], { h: 64, pad: [8, 16, 8, 16], style: { bg: 'background' } });
}

function closeSearch(ctx: Ctx): void {
  ctx.s.searching = false;
  ctx.fields.query = '';
  ctx.nav.hideKeyboard();
}

function body(ctx: Ctx, all: readonly ContactSummary[], selectedIds: readonly number[]): ViewSpec {
  const s = ctx.s;
  if (s.searching) {
    const q = (ctx.fields.query ?? '').trim();
    if (!q) return column([], { h: 'fill' });
    const hits = searchContacts(ctx.sys.db(CONTACTS_DB), q);
    if (hits.length === 0) return emptyState('No results', `No contacts match “${q}”`);
    return list('results', hits.map((c) => contactRow(ctx, c, selectedIds)), { id: 'search_result_list' });
  }
  if (s.tab === 'favourites') {
    const starred = all.filter((c) => c.starred);
    if (starred.length === 0) return emptyState('No favourites yet', 'Tap the star on a contact to add it to your favourites');
    return list('favourites', [text('Favourites', { id: 'favorites_header', size: 14, bold: true, fg: 'primary', pad: [16, 16, 8, 24] }),
      ...starred.map((c) => contactRow(ctx, c, selectedIds))], { id: 'favorites_list' });
  }
  if (all.length === 0) return emptyState('No contacts yet', 'Contacts you add will appear here');
  return list('contacts', sectioned(ctx, all, selectedIds), { id: 'android:id/list' });
}

function deleteDialog(ctx: Ctx, selectedIds: readonly number[]): DialogView {
  const close = () => { ctx.s.dialog = null; };
  const n = selectedIds.length;
  return {
    spec: dialog({
      title: n === 1 ? 'Delete this contact?' : `Delete ${n} contacts?`,
      message: n === 1 ? 'This contact will be permanently deleted from this device.' : 'These contacts will be permanently deleted from this device.',
      buttons: [
        { label: 'Cancel', onClick: close },
        { label: 'Delete', onClick: () => {
          deleteContacts(ctx.sys.db(CONTACTS_DB), selectedIds);
          ctx.s.selected = [];
          close();
          ctx.nav.toast(n === 1 ? 'Contact deleted' : `${n} contacts deleted`);
        } },
      ],
    }),
    onCancel: close,
  };
}

function selectionMenu(ctx: Ctx, all: readonly ContactSummary[]): MenuView {
  const close = () => { ctx.s.menu = false; };
  const shown = ctx.s.tab === 'favourites' ? all.filter((c) => c.starred) : all;
  return {
    items: [{ label: 'Select all', id: 'menu_select_all', onClick: () => { ctx.s.selected = shown.map((c) => c.id); close(); } }],
    onDismiss: close,
  };
}

export const people: ActivityDef<PeopleState> = {
  name: PEOPLE,
  create: () => ({ tab: 'contacts', searching: false, selected: [], dialog: null, menu: false }),
  onBack: (ctx) => {
    if (ctx.s.selected.length > 0) {
      ctx.s.selected = [];
      return true;
    }
    if (ctx.s.searching) {
      closeSearch(ctx);
      return true;
    }
    return false;
  },
  render: (ctx) => {
    const s = ctx.s;
    const all = contacts(ctx);
    const selectedIds = selection(ctx, all);
    const selecting = selectedIds.length > 0;
    const setTab = (tab: PeopleState['tab']) => () => {
      s.tab = tab;
      s.selected = [];
    };
    const bottom = selecting || s.searching ? undefined : tabs([
      { label: 'Contacts', id: 'nav_contacts', selected: s.tab === 'contacts', onClick: setTab('contacts') },
      { label: 'Favourites', id: 'nav_favorites', selected: s.tab === 'favourites', onClick: setTab('favourites') },
    ], { id: 'bottom_navigation' });
    const showFab = !selecting && !s.searching && s.tab === 'contacts';
    return {
      body: screen({
        appBar: topBar(ctx, selectedIds),
        // The FAB floats over the list, above the bottom navigation.
        body: [stack([body(ctx, all, selectedIds), ...(showFab ? [fab('add', 'Create contact', () => ctx.nav.start(EDITOR, {}), { id: 'floating_action_button' })] : [])], { h: 'fill' })],
        ...(bottom ? { bottom } : {}),
      }),
      ...(s.dialog === 'delete' && selecting ? { dialog: deleteDialog(ctx, selectedIds) } : {}),
      ...(s.menu && selecting ? { menu: selectionMenu(ctx, all) } : {}),
    };
  },
};
