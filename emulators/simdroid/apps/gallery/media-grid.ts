import type { ActivityContext, ActivityDef, DialogView, Json, MenuView } from '../../runtime/app.js';
import { basename } from '../../system/fs.js';
import type { ViewSpec } from '../../view/spec.js';
import { appBar, dialog, iconButton, list, row, screen, text } from '../../view/widgets.js';
import { APP_BAR_DP } from '../../view/theme.js';
import { MEDIA_ACTIVITY, VIEWER_ACTIVITY } from './browse.js';
import { mediaIn, pictureOf } from './media.js';
import { asJson, transferDialogView, type TransferDialog } from './transfer.js';
import { grid, MEDIUM_IDS } from './views.js';

/**
 * Simple Gallery's MediaActivity: one folder's pictures, newest first. A tap opens a picture full
 * screen; a long press starts selecting (the action bar then counts them and offers Delete, and Copy
 * to, Move to and Select all in its overflow), as the real app's action mode does.
 */
type Dialog = TransferDialog | { kind: 'delete' };

interface MediaState {
  directory: string;
  selected: string[];
  menu: boolean;
  dialog: Json;
}

type Ctx = ActivityContext<MediaState>;

const setDialog = (ctx: Ctx, d: Dialog | null) => { ctx.s.dialog = d === null ? null : asJson(d as TransferDialog); };

function toggle(ctx: Ctx, path: string): void {
  const i = ctx.s.selected.indexOf(path);
  if (i >= 0) ctx.s.selected.splice(i, 1);
  else ctx.s.selected.push(path);
}

function dialogView(ctx: Ctx): DialogView | undefined {
  const d = ctx.s.dialog as Dialog | null;
  if (!d) return undefined;
  const close = () => setDialog(ctx, null);
  if (d.kind === 'delete') {
    const chosen = ctx.s.selected.filter((p) => ctx.sys.fs.exists(p));
    const n = chosen.length;
    return {
      spec: dialog({
        message: n === 1 ? `Are you sure you want to delete ${basename(chosen[0]!)}?` : `Are you sure you want to delete ${n} items?`,
        buttons: [{ label: 'Cancel', onClick: close }, {
          label: 'Delete', onClick: () => {
            for (const p of chosen) ctx.sys.fs.remove(p);
            ctx.s.selected = [];
            close();
          },
        }],
      }),
      onCancel: close,
    };
  }
  return transferDialogView(ctx as ActivityContext<unknown>, d, {
    close,
    show: (next) => setDialog(ctx, next),
    done: () => { ctx.s.selected = []; },
  });
}

function menuView(ctx: Ctx, all: readonly string[]): MenuView | undefined {
  if (!ctx.s.menu) return undefined;
  const close = () => { ctx.s.menu = false; };
  const pick = (op: 'copy' | 'move') => () => { close(); setDialog(ctx, { kind: 'pick_dir', op, sources: [...ctx.s.selected] }); };
  return {
    items: [
      { label: 'Copy to', id: 'cab_copy_to', onClick: pick('copy') },
      { label: 'Move to', id: 'cab_move_to', onClick: pick('move') },
      { label: 'Select all', id: 'cab_select_all', onClick: () => { close(); ctx.s.selected = [...all]; } },
    ],
    onDismiss: close,
  };
}

/** The action mode's bar: close, "N selected", Delete, More options. */
function selectionBar(ctx: Ctx, count: number): ViewSpec {
  return row([
    iconButton('close', 'Done', () => { ctx.s.selected = []; }, { id: 'action_mode_close_button' }),
    text(`${count} selected`, { size: 20, lines: 1, id: 'action_mode_title' }),
    iconButton('delete', 'Delete', () => setDialog(ctx, { kind: 'delete' }), { id: 'cab_delete' }),
    iconButton('more_vert', 'More options', () => { ctx.s.menu = true; }),
  ], { id: 'action_mode_bar', h: APP_BAR_DP, pad: [8, 4, 8, 4], style: { bg: 'primaryContainer' } });
}

export const mediaActivity: ActivityDef<MediaState> = {
  name: MEDIA_ACTIVITY,
  create: (intent) => ({ directory: String(intent.extras.directory ?? ''), selected: [], menu: false, dialog: null }),
  render: (ctx) => {
    const media = mediaIn(ctx.sys.fs, ctx.s.directory);
    // Pictures removed meanwhile (from the shell, by a move) no longer count as selected.
    const selected = ctx.s.selected.filter((p) => media.some((x) => x.path === p));
    const selecting = selected.length > 0;
    const cells = media.map((m) => ({
      key: m.path, picture: pictureOf(ctx.sys.fs, m.path, 'cover'), title: m.name, selected: selected.includes(m.path),
      onClick: () => (selecting ? toggle(ctx, m.path) : ctx.nav.start(VIEWER_ACTIVITY, { path: m.path, directory: ctx.s.directory })),
      onLongClick: () => toggle(ctx, m.path),
    }));
    const d = dialogView(ctx);
    const m = selecting ? menuView(ctx, media.map((x) => x.path)) : undefined;
    return {
      body: screen({
        appBar: selecting ? selectionBar(ctx, selected.length) : appBar({ title: basename(ctx.s.directory), onBack: () => ctx.nav.finish() }),
        body: [list('media', grid(cells, MEDIUM_IDS, 3, 116), { id: 'media_grid', empty: 'No media files have been found' })],
      }),
      ...(d ? { dialog: d } : {}),
      ...(m ? { menu: m } : {}),
    };
  },
  onBack: (ctx) => {
    if (!ctx.s.selected.some((p) => ctx.sys.fs.exists(p))) return false;
    ctx.s.selected = [];
    return true;
  },
};
