import { W, type Handler, type ImageSource, type ViewSpec } from '../../view/spec.js';
import { column, row, strip, text } from '../../view/widgets.js';

/**
 * Simple Gallery's grid cells: a folder (thumbnail, dir_name, photo_cnt) and a medium (thumbnail,
 * medium_name), laid out `columns` to a row. Ids as in directory_item_grid_square.xml and
 * photo_item_grid.xml; file names shown under each picture (the app's "Show file names" setting on).
 */
export interface Cell {
  key: string;
  picture: ImageSource;
  title: string;
  subtitle?: string;
  onClick: Handler;
  onLongClick?: Handler;
  selected?: boolean;
}

export interface CellIds {
  holder: string;
  thumbnail: string;
  title: string;
  subtitle?: string;
}

export const FOLDER_IDS: CellIds = { holder: 'dir_holder', thumbnail: 'dir_thumbnail', title: 'dir_name', subtitle: 'photo_cnt' };
export const MEDIUM_IDS: CellIds = { holder: 'media_item_holder', thumbnail: 'medium_thumbnail', title: 'medium_name' };

function cell(c: Cell, ids: CellIds, thumbH: number): ViewSpec {
  const parts: ViewSpec[] = [
    strip({ cls: W.ImageView, id: ids.thumbnail, h: thumbH, image: c.picture, style: { bg: 'surfaceVariant' } }),
    text(c.title, { id: ids.title, size: 14, pad: [4, 6, 0, 6], lines: 1, bold: ids.subtitle !== undefined }),
  ];
  if (c.subtitle !== undefined && ids.subtitle) parts.push(text(c.subtitle, { id: ids.subtitle, size: 12, pad: [0, 6, 4, 6], fg: 'onSurfaceVariant', lines: 1 }));
  return column(parts, strip({
    id: ids.holder, clickable: true, onClick: c.onClick, onLongClick: c.onLongClick, selected: c.selected, pad: 3,
    style: c.selected ? { bg: 'primaryContainer' } : undefined,
  }));
}

/** Cells `columns` to a row; an incomplete last row keeps its cells' width. */
export function grid(cells: readonly Cell[], ids: CellIds, columns: number, thumbH: number): ViewSpec[] {
  const rows: ViewSpec[] = [];
  for (let i = 0; i < cells.length; i += columns) {
    const parts = cells.slice(i, i + columns).map((c) => cell(c, ids, thumbH));
    while (parts.length < columns) parts.push({ cls: W.View });
    rows.push(row(parts, { gap: 2, pad: [1, 2, 1, 2] }));
  }
  return rows;
}
