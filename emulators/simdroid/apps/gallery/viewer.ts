import type { ActivityContext, ActivityDef, DialogView, Json, MenuView } from '../../runtime/app.js';
import { basename, dirname } from '../../system/fs.js';
import { W, type ViewSpec } from '../../view/spec.js';
import { appBar, column, dialog, iconButton, row, screen, strip, text } from '../../view/widgets.js';
import { VIEWER_ACTIVITY } from './browse.js';
import { formatSize, mediaIn, pictureOf } from './media.js';
import { asJson, transferDialogView, type TransferDialog } from './transfer.js';

/**
 * Simple Gallery's ViewPagerActivity: one picture full screen, drawn from the file's pixels; a fling
 * sideways goes to the folder's next or previous picture. The overflow holds Copy to, Move to,
 * Delete and Properties (the real menu has more: rename, edit, set as, rotate…).
 */
type Dialog = TransferDialog | { kind: 'delete' } | { kind: 'properties' };

interface ViewerState {
  path: string;
  directory: string;
  menu: boolean;
  dialog: Json;
}

type Ctx = ActivityContext<ViewerState>;

function setDialog(ctx: Ctx, d: Dialog | null): void {
  ctx.s.dialog = d === null ? null : asJson(d as TransferDialog);
}

function step(ctx: Ctx, by: number): void {
  const media = mediaIn(ctx.sys.fs, ctx.s.directory);
  const i = media.findIndex((m) => m.path === ctx.s.path);
  const next = media[i + by];
  if (i >= 0 && next) ctx.s.path = next.path;
}

/** After the picture left this folder (moved, deleted): the next one, or back to the grid when none is left. */
function afterRemoval(ctx: Ctx, index: number): void {
  const rest = mediaIn(ctx.sys.fs, ctx.s.directory);
  if (rest.length === 0) ctx.nav.finish();
  else ctx.s.path = rest[Math.min(index, rest.length - 1)]!.path;
}

function properties(ctx: Ctx): ViewSpec[] {
  const st = ctx.sys.fs.stat(ctx.s.path);
  const size = st?.type === 'file' ? st.data.length : 0;
  const rows: Array<[string, string]> = [['Name', basename(ctx.s.path)], ['Path', dirname(ctx.s.path)], ['Size', formatSize(size)]];
  return rows.map(([k, v]) => column([
    text(k, { size: 12, fg: 'onSurfaceVariant', pad: [4, 24, 0, 24], id: 'property_label' }),
    text(v, { size: 16, pad: [0, 24, 6, 24], id: 'property_value' }),
  ]));
}

function dialogView(ctx: Ctx): DialogView | undefined {
  const d = ctx.s.dialog as Dialog | null;
  if (!d) return undefined;
  const close = () => setDialog(ctx, null);
  switch (d.kind) {
    case 'delete':
      return {
        spec: dialog({
          message: `Are you sure you want to delete ${basename(ctx.s.path)}?`,
          buttons: [{ label: 'Cancel', onClick: close }, {
            label: 'Delete', onClick: () => {
              const index = mediaIn(ctx.sys.fs, ctx.s.directory).findIndex((m) => m.path === ctx.s.path);
              if (ctx.sys.fs.exists(ctx.s.path)) ctx.sys.fs.remove(ctx.s.path);
              close();
              afterRemoval(ctx, Math.max(0, index));
            },
          }],
        }),
        onCancel: close,
      };
    case 'properties':
      return { spec: dialog({ title: 'Properties', body: properties(ctx), buttons: [{ label: 'OK', onClick: close }] }), onCancel: close };
    case 'pick_dir':
    case 'other_folder':
      return transferDialogView(ctx as ActivityContext<unknown>, d, {
        close,
        show: (next) => setDialog(ctx, next),
        done: (op) => {
          if (op === 'move') afterRemoval(ctx, 0);
        },
      });
  }
}

function menuView(ctx: Ctx): MenuView | undefined {
  if (!ctx.s.menu) return undefined;
  const close = () => { ctx.s.menu = false; };
  const pick = (op: 'copy' | 'move') => () => { close(); setDialog(ctx, { kind: 'pick_dir', op, sources: [ctx.s.path] }); };
  return {
    items: [
      { label: 'Copy to', id: 'menu_copy_to', onClick: pick('copy') },
      { label: 'Move to', id: 'menu_move_to', onClick: pick('move') },
      { label: 'Delete', id: 'menu_delete', onClick: () => { close(); setDialog(ctx, { kind: 'delete' }); } },
      { label: 'Properties', id: 'menu_properties', onClick: () => { close(); setDialog(ctx, { kind: 'properties' }); } },
    ],
    onDismiss: close,
  };
}

export const viewerActivity: ActivityDef<ViewerState> = {
  name: VIEWER_ACTIVITY,
  create: (intent) => {
    const path = String(intent.extras.path ?? '');
    return { path, directory: String(intent.extras.directory ?? dirname(path)), menu: false, dialog: null };
  },
  render: (ctx) => {
    if (!ctx.sys.fs.exists(ctx.s.path)) afterRemoval(ctx, 0);
    const picture = strip({
      cls: W.ImageView, id: 'gestures_view', h: 'fill', image: pictureOf(ctx.sys.fs, ctx.s.path),
      onSwipe: (dir) => step(ctx, dir === 'left' ? 1 : dir === 'right' ? -1 : 0),
    });
    const bottom = row([
      iconButton('share', 'Share', () => ctx.nav.toast('No app can share this'), { id: 'bottom_share', color: '#FFFFFF' }),
      iconButton('info', 'Properties', () => setDialog(ctx, { kind: 'properties' }), { id: 'bottom_properties', color: '#FFFFFF' }),
      iconButton('delete', 'Delete', () => setDialog(ctx, { kind: 'delete' }), { id: 'bottom_delete', color: '#FFFFFF' }),
    ], { id: 'bottom_actions', h: 56, pad: [0, 24, 0, 24], gap: 48, style: { bg: '#000000' } });
    const d = dialogView(ctx);
    const m = menuView(ctx);
    return {
      body: screen({
        appBar: appBar({ title: basename(ctx.s.path), onBack: () => ctx.nav.finish(), onOverflow: () => { ctx.s.menu = true; } }),
        body: [column([picture], { id: 'view_pager', h: 'fill', style: { bg: '#000000' } })],
        bottom,
      }),
      ...(d ? { dialog: d } : {}),
      ...(m ? { menu: m } : {}),
    };
  },
};
