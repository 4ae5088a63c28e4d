import type { ActivityContext, ActivityDef } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { button, iconButton, list, row, screen, text, column, fill } from '../../view/widgets.js';
import { APP_BAR_DP } from '../../view/theme.js';
import { W } from '../../view/spec.js';
import { dirname } from '../../system/fs.js';
import { nameDialog } from './dialogs.js';
import { PICK_ACTIVITY } from './browser.js';
import { STORAGE_ROOT, createFolderIn, isDir, isWithin, listEntries, sortEntries, transfer, type SortKey } from './storage.js';
import { breadcrumb, docRow, type Crumb } from './views.js';

/**
 * The destination picker DocumentsUI opens for "Copy to…" and "Move to…" (PickActivity with
 * ACTION_PICK_COPY_DESTINATION): browse folders (files are shown greyed out), make a new folder,
 * then Copy/Move into the folder on view, or Cancel.
 */
export interface PickerState {
  dir: string;
  menu: boolean;
  dialog: null | { kind: 'new_folder'; error: string | null };
}

type Ctx = ActivityContext<PickerState>;

function op(ctx: Ctx): 'move' | 'copy' {
  return ctx.intent.extras.op === 'move' ? 'move' : 'copy';
}

function sources(ctx: Ctx): string[] {
  const raw = ctx.intent.extras.sources;
  return Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : [];
}

function currentDir(ctx: Ctx): string {
  let d = ctx.s.dir;
  while (!isDir(ctx.sys.fs, d) && d.length > STORAGE_ROOT.length) d = dirname(d);
  return isDir(ctx.sys.fs, d) ? d : STORAGE_ROOT;
}

/** Why the folder on view cannot take the documents, or null when it can. */
function blocked(ctx: Ctx, dir: string): string | null {
  const src = sources(ctx).filter((p) => ctx.sys.fs.exists(p));
  if (src.length === 0) return 'nothing';
  if (src.some((p) => isWithin(dir, p))) return 'inside';
  if (op(ctx) === 'move' && src.every((p) => dirname(p) === dir)) return 'same';
  return null;
}

function open(ctx: Ctx, path: string): void {
  ctx.s.dir = path;
  ctx.nav.scrollTo('pick', 0);
}

function confirm(ctx: Ctx, dir: string): void {
  if (blocked(ctx, dir)) return;
  const n = transfer(ctx.sys.fs, sources(ctx), dir, op(ctx));
  const what = `${n} ${n === 1 ? 'file' : 'files'}`;
  ctx.nav.toast(op(ctx) === 'move' ? `Moving ${what}.` : `Copying ${what}.`);
  ctx.nav.finish();
}

function crumbs(ctx: Ctx, dir: string): Crumb[] {
  const out: Crumb[] = [{ label: 'Internal storage', onClick: () => open(ctx, STORAGE_ROOT) }];
  let path = STORAGE_ROOT;
  for (const seg of dir.slice(STORAGE_ROOT.length).split('/').filter(Boolean)) {
    path = `${path}/${seg}`;
    const target = path;
    out.push({ label: seg, onClick: () => open(ctx, target) });
  }
  return out;
}

function toolbar(ctx: Ctx): ViewSpec {
  return row([
    iconButton('close', 'Cancel', () => ctx.nav.finish(), { id: 'action_cancel' }),
    column([fill(), text(op(ctx) === 'move' ? 'Move to' : 'Copy to', { size: 22, pad: [0, 8, 0, 8], lines: 1, id: 'toolbar_title' }), fill()], { weight: 1 }),
    iconButton('more_vert', 'More options', () => { ctx.s.menu = true; }),
  ], { cls: W.ViewGroup, id: 'toolbar', h: APP_BAR_DP, pad: [8, 4, 8, 4], style: { bg: 'surface' } });
}

export const picker: ActivityDef<PickerState> = {
  name: PICK_ACTIVITY,
  create: (intent) => ({ dir: typeof intent.extras.dir === 'string' ? intent.extras.dir : STORAGE_ROOT, menu: false, dialog: null }),
  render: (ctx) => {
    const dir = currentDir(ctx);
    const now = ctx.sys.clock.now();
    const sort = (ctx.app.prefs.sort as SortKey | undefined) ?? 'name_asc';
    const rows = sortEntries(listEntries(ctx.sys.fs, dir), sort).map((e) => docRow(e, {
      now,
      // Only folders can be opened here; documents are greyed out as in the real picker.
      enabled: e.dir,
      ...(e.dir ? { onClick: () => open(ctx, e.path) } : {}),
    }));
    const verb = op(ctx) === 'move' ? 'Move' : 'Copy';
    const bottom = row([
      fill(),
      button('Cancel', () => ctx.nav.finish(), { variant: 'text', w: 'wrap', id: 'button2' }),
      button(verb, () => confirm(ctx, dir), { w: 'wrap', id: 'button1', enabled: blocked(ctx, dir) === null }),
    ], { id: 'container_save', h: 72, pad: [12, 16, 12, 16], gap: 8, style: { bg: 'surface' } });
    const body = screen({
      appBar: toolbar(ctx),
      body: [breadcrumb(crumbs(ctx, dir)), list('pick', rows, { id: 'dir_list', empty: 'No items' })],
      bottom,
    });
    const close = () => {
      ctx.s.dialog = null;
      ctx.nav.hideKeyboard();
    };
    const d = ctx.s.dialog;
    const dialog = d && nameDialog({
      title: 'New folder', field: 'folder_name', value: ctx.fields.folder_name ?? '', hint: 'Folder name', error: d.error,
      onCancel: close,
      onOk: () => {
        const made = createFolderIn(ctx.sys.fs, dir, ctx.fields.folder_name ?? '');
        if ('problem' in made) {
          if (made.problem === 'invalid') d.error = 'Failed to create folder';
          return;
        }
        close();
        open(ctx, made.path);
      },
    });
    const menu = ctx.s.menu
      ? {
          items: [{
            label: 'New folder', id: 'option_menu_create_dir',
            onClick: () => {
              ctx.s.menu = false;
              ctx.fields.folder_name = '';
              ctx.s.dialog = { kind: 'new_folder' as const, error: null };
              ctx.nav.focus('folder_name');
            },
          }],
          onDismiss: () => { ctx.s.menu = false; },
        }
      : undefined;
    return { body, ...(dialog ? { dialog } : {}), ...(menu ? { menu } : {}) };
  },
  onBack: (ctx) => {
    const dir = currentDir(ctx);
    if (dir === STORAGE_ROOT) return false;
    open(ctx, dirname(dir));
    return true;
  },
};
