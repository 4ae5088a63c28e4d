import { W, type Handler, type ViewSpec } from '../../view/spec.js';
import { APP_BAR_DP } from '../../view/theme.js';
import { caption, column, iconButton, row, scroll, strip, text } from '../../view/widgets.js';
import type { Navigator } from '../../runtime/app.js';
import type { Tab } from './state.js';

/** Markor's own building blocks: file rows, the bottom navigation, the plain-text editor. */
export const ID = {
  list: 'ui__filesystem_dialog__list',
  itemTitle: 'ui__filesystem_item__title',
  itemDescription: 'ui__filesystem_item__description',
  itemImage: 'ui__filesystem_item__image',
  editor: 'document__fragment__edit__highlighting_editor',
  viewer: 'document__fragment_view_webview',
  fab: 'fab_add_new_item',
} as const;

/** A file browser row: icon, name, description; a selected row shows a check instead of the icon. */
export function fileRow(o: {
  name: string;
  icon: string;
  description?: string;
  selected?: boolean;
  onClick: Handler;
  onLongClick?: Handler;
}): ViewSpec {
  const icon = o.selected ? 'checkbox_on' : o.icon;
  const texts: ViewSpec[] = [text(o.name, { id: ID.itemTitle, size: 16, pad: 0, lines: 1 })];
  if (o.description) texts.push(caption(o.description, { id: ID.itemDescription, pad: 0, lines: 1 }));
  return row(
    [
      strip({ cls: W.ImageView, id: ID.itemImage, w: 40, h: 40, style: { icon, iconColor: o.selected || o.icon === 'folder' ? 'primary' : 'onSurfaceVariant' } }),
      column([{ cls: W.View, h: 'fill' }, ...texts, { cls: W.View, h: 'fill' }], { weight: 1 }),
    ],
    strip({
      clickable: true, onClick: o.onClick, onLongClick: o.onLongClick, selected: o.selected, pad: [12, 16, 12, 16], gap: 16, h: 68,
      style: o.selected ? { bg: 'primaryContainer' } : undefined,
    }),
  );
}

const TABS: ReadonlyArray<{ tab: Tab; label: string; icon: string; id: string }> = [
  { tab: 'notebook', label: 'Notebook', icon: 'book', id: 'nav_notebook' },
  { tab: 'todo', label: 'To-Do', icon: 'checkbox_on', id: 'nav_todo' },
  { tab: 'quicknote', label: 'QuickNote', icon: 'edit', id: 'nav_quicknote' },
  { tab: 'more', label: 'More', icon: 'more_horiz', id: 'nav_more' },
];

/** The BottomNavigationView: icon over label, the current tab highlighted. */
export function bottomNav(current: Tab, select: (t: Tab) => void): ViewSpec {
  return row(
    TABS.map((t) => {
      const on = t.tab === current;
      const pill = strip({
        cls: W.ImageView, w: 64, h: 32,
        style: { icon: t.icon, iconColor: on ? 'onPrimaryContainer' : 'onSurfaceVariant', radius: 16, ...(on ? { bg: 'primaryContainer' as const } : {}) },
      });
      return column(
        [
          row([{ cls: W.View, weight: 1 }, pill, { cls: W.View, weight: 1 }], { h: 32 }),
          text(t.label, { size: 12, bold: on, align: 'center', pad: [4, 0, 0, 0], lines: 1 }),
        ],
        strip({ cls: W.FrameLayout, id: t.id, desc: t.label, clickable: true, selected: on, onClick: () => select(t.tab), pad: [10, 0, 10, 0] }),
      );
    }),
    { id: 'bottom_navigation_bar', h: 80, style: { bg: 'surface' } },
  );
}

/**
 * The document editor: a borderless multi-line EditText in a ScrollView. A tap on the blank part
 * below the text focuses it too, and focusing scrolls to the caret (always at the end here).
 */
export function editorPane(nav: Navigator, field: string, key: string, hint?: string): ViewSpec {
  const toCaret = () => nav.scrollTo(key, 1e9);
  const edit: ViewSpec = strip({
    cls: W.EditText, field, id: ID.editor, multiline: true, hint, pad: [12, 16, 12, 16],
    style: { bg: 'background', size: 16 }, onClick: toCaret,
  });
  return { ...scroll(key, [edit]), onClick: () => { nav.focus(field); toCaret(); } };
}

/** A toolbar like appBar's, for the selection mode: "Done" (close) instead of "Navigate up". */
export function selectionBar(count: number, onDone: Handler, actions: ViewSpec[], onOverflow: Handler): ViewSpec {
  return row(
    [
      iconButton('close', 'Done', onDone, { id: 'action_mode_close_button' }),
      column([{ cls: W.View, h: 'fill' }, text(`${count} selected`, { size: 22, pad: [0, 8, 0, 8], lines: 1, id: 'toolbar_title' }), { cls: W.View, h: 'fill' }], { weight: 1 }),
      ...actions,
      iconButton('more_vert', 'More options', onOverflow),
    ],
    { cls: W.ViewGroup, id: 'toolbar', h: APP_BAR_DP, pad: [8, 4, 8, 4], style: { bg: 'primaryContainer' } },
  );
}
