import type { ActivityContext, DialogView, Json } from '../../runtime/app.js';
import { basename, dirname, type FileSystem } from '../../system/fs.js';
import { W } from '../../view/spec.js';
import { dialog, strip } from '../../view/widgets.js';
import { EXTERNAL_STORAGE } from '../../system/fs.js';
import { folderPickerDialog } from '../simple-commons/folder-picker.js';
import { directories, pictureOf } from './media.js';
import { FOLDER_IDS, grid } from './views.js';

/**
 * Copy to / Move to: Simple Gallery's PickDirectoryDialog (the folders holding media, as a grid, with
 * "Other folder" opening simple-commons' folder picker for any other folder, e.g. an empty Download),
 * then the files copied or moved there, keeping their names.
 */
export type TransferOp = 'copy' | 'move';

export type TransferDialog =
  | { kind: 'pick_dir'; op: TransferOp; sources: string[] }
  | { kind: 'other_folder'; op: TransferOp; sources: string[]; path: string };

/** A dialog as activity state (plain data). */
export const asJson = (d: TransferDialog): Json => d as unknown as Json;

export type TransferResult = { ok: true; done: number } | { ok: false; message: string };

/** Copies or moves the files into a folder; a file already there under the same name is overwritten, as "Overwrite" in the real app's conflict dialog. */
export function transfer(fs: FileSystem, op: TransferOp, sources: readonly string[], folder: string): TransferResult {
  const present = sources.filter((s) => fs.stat(s)?.type === 'file');
  if (present.length === 0) return { ok: false, message: 'Nothing to copy' };
  if (present.every((s) => dirname(s) === folder)) return { ok: false, message: 'Source and destination cannot be the same' };
  if (!fs.exists(folder)) fs.mkdirp(folder);
  for (const s of present) {
    const target = `${folder}/${basename(s)}`;
    if (target === s) continue;
    if (op === 'copy') fs.writeFile(target, fs.readFile(s));
    else fs.rename(s, target);
  }
  return { ok: true, done: present.length };
}

export interface TransferHost {
  /** Closes the dialog. */
  close: () => void;
  /** Shows another step of it. */
  show: (d: TransferDialog) => void;
  /** After the files went: the toast is shown already. */
  done: (op: TransferOp, folder: string) => void;
}

function run(ctx: ActivityContext<unknown>, d: TransferDialog, folder: string, host: TransferHost): void {
  const r = transfer(ctx.sys.fs, d.op, d.sources, folder);
  host.close();
  if (!r.ok) {
    ctx.nav.toast(r.message);
    return;
  }
  ctx.nav.toast(d.op === 'copy' ? 'Files copied successfully' : 'Files moved successfully');
  host.done(d.op, folder);
}

export function transferDialogView(ctx: ActivityContext<unknown>, d: TransferDialog, host: TransferHost): DialogView {
  if (d.kind === 'other_folder') {
    return folderPickerDialog({
      path: d.path, fs: ctx.sys.fs, onCancel: host.close,
      go: (path) => host.show({ ...d, path }),
      onPick: (folder) => run(ctx, d, folder, host),
    });
  }
  const cells = directories(ctx.sys.fs).map((dir) => ({
    key: dir.path, picture: pictureOf(ctx.sys.fs, dir.media[0]!.path, 'cover'), title: dir.name, subtitle: String(dir.media.length),
    onClick: () => run(ctx, d, dir.path, host),
  }));
  const rows = grid(cells, FOLDER_IDS, 3, 84);
  return {
    spec: dialog({
      title: 'Select a folder',
      body: [strip({ cls: W.RecyclerView, id: 'directories_grid', scrollKey: 'pick_dir', layout: 'column', children: rows, h: Math.min(420, Math.max(1, rows.length) * 136), pad: [0, 12, 0, 12] })],
      buttons: [
        { label: 'Other folder', id: 'android:id/button3', onClick: () => host.show({ kind: 'other_folder', op: d.op, sources: d.sources, path: EXTERNAL_STORAGE }) },
        { label: 'Cancel', id: 'android:id/button2', onClick: host.close },
      ],
    }),
    onCancel: host.close,
  };
}
