import type { DialogView } from '../../runtime/app.js';
import { W, type Handler, type ViewSpec } from '../../view/spec.js';
import { caption, column, dialog, row, strip, text } from '../../view/widgets.js';
import { basename, dirname, EXTERNAL_STORAGE, type FileSystem } from '../../system/fs.js';

/**
 * Simple Mobile Tools' FilePickerDialog in its folder mode (Simple Gallery's "Other folder", Simple
 * Draw's save path): breadcrumbs from "Internal" down to the folder on view, its sub-folders as rows
 * (tap one to go in), OK picks the folder on view. Back goes up a folder, and at the top cancels.
 * Resource ids as in simple-commons' dialog_filepicker.xml and filepicker_list_item.xml.
 */
export const INTERNAL_LABEL = 'Internal';

/** "Internal/Pictures" for /storage/emulated/0/Pictures, as simple-commons' humanizePath writes it. */
export function humanizePath(path: string): string {
  return path === EXTERNAL_STORAGE ? INTERNAL_LABEL : `${INTERNAL_LABEL}${path.slice(EXTERNAL_STORAGE.length)}`;
}

/** The visible sub-folders of a folder, by name (hidden ones, starting with a dot, left out as the picker's default). */
export function subfolders(fs: FileSystem, dir: string): string[] {
  if (!fs.exists(dir)) return [];
  return fs.list(dir)
    .filter((n) => !n.startsWith('.') && fs.stat(`${dir}/${n}`)?.type === 'dir')
    .sort((a, b) => a.localeCompare(b, 'en', { sensitivity: 'base' }));
}

function crumbs(path: string, go: (p: string) => void): ViewSpec {
  const parts: ViewSpec[] = [];
  let at = EXTERNAL_STORAGE;
  const segments = path.slice(EXTERNAL_STORAGE.length).split('/').filter(Boolean);
  const items: Array<[string, string]> = [[INTERNAL_LABEL, at]];
  for (const s of segments) {
    at = `${at}/${s}`;
    items.push([s, at]);
  }
  items.forEach(([label, p], i) => {
    if (i > 0) parts.push(caption('/', { w: 'wrap', pad: [0, 2, 0, 2] }));
    const last = i === items.length - 1;
    parts.push(text(label, { id: 'breadcrumb_item', w: 'wrap', size: 15, pad: [8, 6, 8, 6], lines: 1, bold: last, fg: last ? 'primary' : 'onSurfaceVariant', onClick: () => go(p) }));
  });
  return row(parts, { id: 'filepicker_breadcrumbs', h: 44, pad: [0, 16, 0, 16] });
}

export interface FolderPickerOpts {
  /** The folder on view. */
  path: string;
  fs: FileSystem;
  /** Open another folder (a row or a crumb). */
  go: (path: string) => void;
  onPick: (path: string) => void;
  onCancel: Handler;
}

export function folderPickerDialog(o: FolderPickerOpts): DialogView {
  const dir = o.fs.exists(o.path) ? o.path : EXTERNAL_STORAGE;
  const rows = subfolders(o.fs, dir).map((name) => row(
    [
      strip({ cls: W.ImageView, id: 'list_item_icon', w: 40, h: 40, style: { icon: 'folder', iconColor: 'primary' } }),
      text(name, { id: 'list_item_name', size: 16, pad: [0, 0, 0, 12], lines: 1 }),
    ],
    { id: 'filepicker_item', clickable: true, onClick: () => o.go(`${dir}/${name}`), h: 56, pad: [0, 20, 0, 20] },
  ));
  const listSpec: ViewSpec = rows.length
    ? strip({ cls: W.RecyclerView, id: 'filepicker_list', scrollKey: 'filepicker_list', layout: 'column', children: rows, h: Math.min(360, rows.length * 56) })
    : text('This folder is empty', { id: 'filepicker_placeholder', fg: 'onSurfaceVariant', pad: [16, 24, 16, 24] });
  return {
    spec: dialog({
      title: 'Select a folder',
      body: [column([crumbs(dir, o.go), listSpec])],
      buttons: [{ label: 'Cancel', onClick: o.onCancel }, { label: 'OK', onClick: () => o.onPick(dir) }],
    }),
    // Back goes up a folder, as the picker's onBackPressed does; at the top it closes the picker.
    onCancel: () => (dir === EXTERNAL_STORAGE ? o.onCancel() : o.go(dirname(dir))),
  };
}

/** The name a copy takes in its new folder: the same, as Simple Gallery keeps it. */
export const copyTarget = (source: string, folder: string) => `${folder}/${basename(source)}`;
