import type { Handler, ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { caption, column, fill, iconButton, listItem, row, stack, strip, text } from '../../view/widgets.js';
import { APP_BAR_DP } from '../../view/theme.js';
import { formatDate, formatSize, iconOf, type DocEntry } from './storage.js';

/**
 * DocumentsUI's building blocks: the document row (item_root with icon_mime, title, date and
 * size), the grid card, the horizontal breadcrumb, the toolbar in its browse and selection modes,
 * and the roots drawer. Resource ids follow DocumentsUI's layouts so selectors read the same.
 */
export interface RowOpts {
  now: number;
  selected?: boolean;
  /** Selection mode: rows are checkable. */
  selecting?: boolean;
  enabled?: boolean;
  onClick?: Handler;
  onLongClick?: Handler;
}

function details(e: DocEntry, now: number): ViewSpec[] {
  const parts: ViewSpec[] = [caption(formatDate(e.mtime, now), { id: 'date', w: 'wrap', pad: 0, lines: 1 })];
  if (!e.dir) parts.push(caption(formatSize(e.size), { id: 'size', w: 'wrap', pad: [0, 0, 0, 16], lines: 1 }));
  return parts;
}

/** A list-mode document row. */
export function docRow(e: DocEntry, o: RowOpts): ViewSpec {
  const icon = strip({
    cls: W.ImageView, id: o.selected ? 'icon_check' : 'icon_mime', w: 40, h: 40,
    style: { icon: o.selected ? 'check' : iconOf(e), iconColor: o.selected ? 'primary' : e.dir ? '#5F6368' : 'onSurfaceVariant' },
  });
  return row(
    [
      icon,
      column([fill(), text(e.name, { id: 'android:id/title', size: 16, pad: 0, lines: 1 }), row(details(e, o.now)), fill()], { weight: 1 }),
    ],
    strip({
      id: 'item_root', clickable: o.onClick !== undefined, onClick: o.onClick, onLongClick: o.onLongClick, enabled: o.enabled,
      selected: o.selected, checkable: o.selecting ? true : undefined, checked: o.selecting ? o.selected === true : undefined,
      pad: [12, 16, 12, 16], gap: 16, h: 72,
      style: o.selected ? { bg: 'primaryContainer' } : undefined,
    }),
  );
}

/** A grid-mode card: big icon, name, and size (files) under it. */
function docCard(e: DocEntry, o: RowOpts): ViewSpec {
  return column(
    [
      strip({ cls: W.ImageView, id: o.selected ? 'icon_check' : 'icon_mime', h: 72, style: { icon: o.selected ? 'check' : iconOf(e), iconSize: 40, iconColor: o.selected ? 'primary' : 'onSurfaceVariant' } }),
      text(e.name, { id: 'android:id/title', size: 14, pad: [4, 8, 0, 8], lines: 1, align: 'center' }),
      caption(e.dir ? formatDate(e.mtime, o.now) : formatSize(e.size), { id: e.dir ? 'date' : 'size', size: 12, pad: [0, 8, 8, 8], lines: 1, align: 'center' }),
    ],
    strip({
      id: 'item_root', clickable: o.onClick !== undefined, onClick: o.onClick, onLongClick: o.onLongClick, enabled: o.enabled,
      selected: o.selected, checkable: o.selecting ? true : undefined, checked: o.selecting ? o.selected === true : undefined,
      h: 128, style: { variant: 'card', radius: 12, ...(o.selected ? { bg: 'primaryContainer' as const } : {}) },
    }),
  );
}

/** Cards two per row, as the phone grid lays them out. */
export function docGrid(entries: readonly DocEntry[], opts: (e: DocEntry) => RowOpts): ViewSpec[] {
  const rows: ViewSpec[] = [];
  for (let i = 0; i < entries.length; i += 2) {
    const cells = entries.slice(i, i + 2).map((e) => docCard(e, opts(e)));
    if (cells.length < 2) cells.push({ cls: W.View });
    rows.push(row(cells, { gap: 12, pad: [6, 12, 6, 12] }));
  }
  return rows;
}

export interface Crumb {
  label: string;
  onClick: Handler;
}

/** The path under the toolbar ("Internal storage › Documents › Work"); each crumb opens its folder. */
export function breadcrumb(crumbs: readonly Crumb[]): ViewSpec {
  // Long paths keep their last crumbs visible, as the real breadcrumb scrolls to its end.
  const shown = crumbs.length > 4 ? crumbs.slice(-3) : crumbs;
  const parts: ViewSpec[] = [];
  if (shown !== crumbs) parts.push(caption('…', { w: 'wrap', pad: [0, 4, 0, 4] }));
  shown.forEach((c, i) => {
    if (i > 0 || shown !== crumbs) parts.push(strip({ cls: W.ImageView, w: 20, h: 20, style: { icon: 'chevron_right', iconSize: 18, iconColor: 'onSurfaceVariant' } }));
    const last = i === shown.length - 1;
    parts.push(text(c.label, {
      id: 'breadcrumb_text', w: 'wrap', size: 14, pad: [10, 6, 10, 6], lines: 1, onClick: c.onClick,
      fg: last ? 'primary' : 'onSurfaceVariant', bold: last,
    }));
  });
  return column([row([...parts, fill()], { gap: 0 })], { id: 'horizontal_breadcrumb', h: 44, pad: [2, 8, 2, 8] });
}

function bar(children: ViewSpec[], o: { selection?: boolean } = {}): ViewSpec {
  return row(children, { cls: W.ViewGroup, id: 'toolbar', h: APP_BAR_DP, pad: [8, 4, 8, 4], style: { bg: o.selection ? 'primaryContainer' : 'surface' } });
}

function title(value: string): ViewSpec {
  return column([fill(), text(value, { size: 22, pad: [0, 8, 0, 8], lines: 1, id: 'toolbar_title' }), fill()], { weight: 1 });
}

/** The browsing toolbar: "Show roots", the root's title, Search and "More options". */
export function browseToolbar(t: string, h: { onRoots: Handler; onSearch?: Handler; onOverflow: Handler }): ViewSpec {
  const parts: ViewSpec[] = [iconButton('menu', 'Show roots', h.onRoots), title(t)];
  if (h.onSearch) parts.push(iconButton('search', 'Search', h.onSearch, { id: 'option_menu_search' }));
  parts.push(iconButton('more_vert', 'More options', h.onOverflow));
  return bar(parts);
}

/** The action mode toolbar while documents are selected ("2 selected", Share, Delete, overflow). */
export function selectionToolbar(count: number, h: { onClose: Handler; onShare: Handler; onDelete: Handler; onOverflow: Handler }): ViewSpec {
  return bar([
    iconButton('close', 'Done', h.onClose, { id: 'action_mode_close_button' }),
    title(`${count} selected`),
    iconButton('share', 'Share', h.onShare, { id: 'action_menu_share' }),
    iconButton('delete', 'Delete', h.onDelete, { id: 'action_menu_delete' }),
    iconButton('more_vert', 'More options', h.onOverflow),
  ], { selection: true });
}

export interface RootItem {
  label: string;
  icon: string;
  subtitle?: string;
  selected: boolean;
  onClick: Handler;
}

/** The navigation drawer of roots over a scrim; a tap on the scrim closes it. */
export function withRootsDrawer(screenSpec: ViewSpec, roots: readonly RootItem[], onClose: Handler): ViewSpec {
  const panel = column(
    [
      text('Files', { size: 22, pad: [24, 24, 12, 24], id: 'drawer_title' }),
      column(roots.map((r) => listItem({ title: r.label, subtitle: r.subtitle, leading: r.icon, selected: r.selected, onClick: r.onClick })), { id: 'roots_list' }),
      fill(),
    ],
    { id: 'drawer_roots', style: { bg: 'surface', elevation: true }, place: { h: 'left', v: 'top', margin: 0, w: 304, hgt: 4000 } },
  );
  const scrim: ViewSpec = { cls: W.View, onClick: onClose, desc: 'Hide roots', style: { bg: '#00000066' } };
  return stack([screenSpec, scrim, panel], { id: 'drawer_layout' });
}
