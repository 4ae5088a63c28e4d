import type { DialogView } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { caption, column, dialog, list, radio, text, textField } from '../../view/widgets.js';
import { basename, dirname } from '../../system/fs.js';
import {
  DOCUMENT_ACTIVITY, FILE_TYPES, NOTEBOOK, displayPath, existingFolder, fileNameFor, isDir, join, listEntries,
  nameProblem, transfer,
} from './files.js';
import { FIELD, type BrowserDialog, type MainCtx } from './state.js';
import { fileRow } from './widgets.js';

/**
 * The file browser's dialogs, modelled on Markor's: NewFileDialog (name, type, OK / Folder), the
 * delete confirmation, Rename, and the folder picker Move and Copy use.
 */
function close(ctx: MainCtx): void {
  ctx.s.dialog = null;
  ctx.nav.hideKeyboard();
}

/** The folder the browser shows, as it is on disk now. */
export function currentFolder(ctx: MainCtx): string {
  return existingFolder(ctx.sys.fs, ctx.s.dir);
}

export function openNewFileDialog(ctx: MainCtx): void {
  ctx.fields[FIELD.newName] = '';
  ctx.fields[FIELD.newExt] = FILE_TYPES[0]!.ext;
  ctx.s.dialog = { kind: 'new', type: 'md' };
  ctx.nav.focus(FIELD.newName);
}

function newFileDialog(ctx: MainCtx, d: Extract<BrowserDialog, { kind: 'new' }>): DialogView {
  const fs = ctx.sys.fs;
  const typed = (ctx.fields[FIELD.newName] ?? '').trim();
  const ext = ctx.fields[FIELD.newExt] ?? '';
  const create = (folder: boolean) => {
    const dir = currentFolder(ctx);
    const name = folder ? typed : typed && fileNameFor(typed, ext);
    const problem = nameProblem(fs, dir, name);
    if (problem) {
      ctx.nav.toast(problem);
      return;
    }
    fs.mkdirp(dir);
    close(ctx);
    if (folder) {
      fs.mkdir(join(dir, name));
      return;
    }
    // Markor creates the file at once and opens it in the editor.
    fs.writeFile(join(dir, name), '');
    ctx.nav.start(DOCUMENT_ACTIVITY, { path: join(dir, name) });
  };
  const body: ViewSpec[] = [
    // Enter in the name field acts as OK.
    textField({ field: FIELD.newName, hint: 'Name', id: 'new_file_dialog__name', pad: [0, 24, 4, 24], onSubmit: () => create(false) }),
    // The extension is a field of its own, as in Markor: the type fills it, a person may change or clear it.
    textField({ field: FIELD.newExt, hint: 'Extension', id: 'new_file_dialog__ext', pad: [0, 24, 4, 24], onSubmit: () => create(false) }),
    caption(typed ? `File: ${fileNameFor(typed, ext)}` : 'Type a name for the new file or folder', { pad: [0, 24, 8, 24], id: 'new_file_dialog__preview', lines: 1 }),
    text('Type', { size: 14, bold: true, pad: [4, 24, 0, 24] }),
    column(FILE_TYPES.map((t) => radio({
      label: `${t.label} (${t.ext})`, checked: d.type === t.type, id: 'new_file_dialog__type',
      onSelect: () => { d.type = t.type; ctx.fields[FIELD.newExt] = t.ext; },
    })), { pad: [0, 8, 0, 8] }),
  ];
  return {
    spec: dialog({
      title: 'Create a new file or folder',
      body,
      buttons: [
        { label: 'Folder', onClick: () => create(true) },
        { label: 'Cancel', onClick: () => close(ctx) },
        { label: 'OK', onClick: () => create(false) },
      ],
    }),
    onCancel: () => close(ctx),
  };
}

function deleteDialog(ctx: MainCtx): DialogView {
  const dir = currentFolder(ctx);
  const names = ctx.s.selected;
  const what = names.length === 1 ? `"${names[0]}"` : `these ${names.length} items`;
  return {
    spec: dialog({
      title: 'Delete',
      message: `Do you really want to delete ${what}?${names.some((n) => isDir(ctx.sys.fs, join(dir, n))) ? ' Folders are deleted with everything in them.' : ''}`,
      buttons: [
        { label: 'Cancel', onClick: () => close(ctx) },
        {
          label: 'OK',
          onClick: () => {
            for (const n of names) if (ctx.sys.fs.exists(join(dir, n))) ctx.sys.fs.remove(join(dir, n), true);
            ctx.s.selected = [];
            close(ctx);
          },
        },
      ],
    }),
    onCancel: () => close(ctx),
  };
}

export function openRenameDialog(ctx: MainCtx): void {
  const name = ctx.s.selected[0];
  if (name === undefined) return;
  ctx.fields[FIELD.rename] = name;
  ctx.s.dialog = { kind: 'rename', name };
  ctx.nav.focus(FIELD.rename);
}

function renameDialog(ctx: MainCtx, d: Extract<BrowserDialog, { kind: 'rename' }>): DialogView {
  const rename = () => {
    const dir = currentFolder(ctx);
    const to = (ctx.fields[FIELD.rename] ?? '').trim();
    if (to === d.name) {
      close(ctx);
      return;
    }
    const problem = nameProblem(ctx.sys.fs, dir, to);
    if (problem) {
      ctx.nav.toast(problem);
      return;
    }
    ctx.sys.fs.rename(join(dir, d.name), join(dir, to));
    ctx.s.selected = [];
    close(ctx);
  };
  return {
    spec: dialog({
      title: 'Rename',
      body: [textField({ field: FIELD.rename, hint: 'Name', id: 'new_name', pad: [0, 24, 8, 24], onSubmit: rename })],
      buttons: [{ label: 'Cancel', onClick: () => close(ctx) }, { label: 'OK', onClick: rename }],
    }),
    onCancel: () => close(ctx),
  };
}

export function openPicker(ctx: MainCtx, kind: 'move' | 'copy'): void {
  ctx.s.menu = null;
  ctx.s.dialog = { kind, dir: currentFolder(ctx) };
  ctx.nav.scrollTo('picker', 0);
}

/** Markor's folder picker: browse folders inside the notebook, then move or copy the selection there. */
function pickerDialog(ctx: MainCtx, d: Extract<BrowserDialog, { kind: 'move' | 'copy' }>): DialogView {
  const fs = ctx.sys.fs;
  const from = currentFolder(ctx);
  const here = existingFolder(fs, d.dir);
  const moving = new Set(ctx.s.selected.map((n) => join(from, n)));
  const go = (dir: string) => {
    d.dir = dir;
    ctx.nav.scrollTo('picker', 0);
  };
  const rows: ViewSpec[] = [];
  if (here !== NOTEBOOK) rows.push(fileRow({ name: '..', icon: 'folder_up', onClick: () => go(dirname(here)) }));
  for (const e of listEntries(fs, here, 'name')) {
    if (e.dir && !moving.has(e.path)) rows.push(fileRow({ name: e.name, icon: 'folder', onClick: () => go(e.path) }));
  }
  const done = () => {
    const refused = transfer(fs, [...moving], here, d.kind === 'copy');
    if (refused.length) ctx.nav.toast(`Already exists in ${basename(here)}: ${refused.join(', ')}`);
    ctx.s.selected = [];
    close(ctx);
  };
  return {
    spec: dialog({
      title: d.kind === 'move' ? 'Move to' : 'Copy to',
      body: [
        caption(displayPath(here), { pad: [0, 24, 8, 24], lines: 2, id: 'ui__filesystem_dialog__current_folder' }),
        list('picker', rows, { id: 'ui__filesystem_dialog__folder_list', empty: 'No folders here' }),
      ],
      buttons: [{ label: 'Cancel', onClick: () => close(ctx) }, { label: d.kind === 'move' ? 'Move here' : 'Copy here', onClick: done }],
    }),
    onCancel: () => close(ctx),
  };
}

export function browserDialog(ctx: MainCtx): DialogView | undefined {
  const d = ctx.s.dialog;
  if (!d) return undefined;
  switch (d.kind) {
    case 'new':
      return newFileDialog(ctx, d);
    case 'delete':
      return deleteDialog(ctx);
    case 'rename':
      return renameDialog(ctx, d);
    case 'move':
    case 'copy':
      return pickerDialog(ctx, d);
  }
}
