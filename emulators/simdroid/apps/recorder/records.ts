import type { ActivityContext, ActivityDef, DialogView, MenuView } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { W } from '../../view/spec.js';
import { caption, column, fill, iconButton, list, row, strip, text } from '../../view/widgets.js';
import { deleteDialog, infoDialog, recordMenu, renameDialog, renameError, RENAME_FIELD } from './dialogs.js';
import { playbackPosition, togglePlay, RECORDS_ACTIVITY, type Playback } from './main.js';
import { readPrefs, themeOf, writePrefs, THEME_COLOR } from './prefs.js';
import {
  deleteRecord, downloadRecord, formatBytes, formatDuration, getRecord, listRecords, orderLabel, renameRecord, toggleBookmark, ORDERS,
  type RecordRow,
} from './store.js';

/**
 * RecordsActivity: every recording with its duration, format, size and date; a tap plays it (the
 * player panel at the bottom), the star bookmarks it, "More options" opens its menu (Share,
 * Information, Rename, Download, Delete); a long press starts multi-select; the sort and bookmark
 * filters sit in the toolbar.
 */
type Dialog =
  | { kind: 'rename'; id: number; error: string | null }
  | { kind: 'delete'; id: number }
  | { kind: 'delete_selected' }
  | { kind: 'info'; id: number };

export interface RecordsState {
  menuFor: number | null;
  sortMenu: boolean;
  bookmarks: boolean;
  selected: number[];
  play: Playback | null;
  dialog: Dialog | null;
}

type Ctx = ActivityContext<RecordsState>;

const WHITE = '#FFFFFF';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The list's date column: "Today 3:34 PM", "Yesterday …", else "Oct 12, 2023 3:34 PM". */
function formatAdded(ms: number, now: number): string {
  const d = new Date(ms);
  const h = d.getUTCHours();
  const time = `${h % 12 === 0 ? 12 : h % 12}:${String(d.getUTCMinutes()).padStart(2, '0')} ${h < 12 ? 'AM' : 'PM'}`;
  const day = (t: number) => Math.floor(t / 86_400_000);
  if (day(ms) === day(now)) return `Today ${time}`;
  if (day(ms) === day(now) - 1) return `Yesterday ${time}`;
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()} ${time}`;
}

function openRename(ctx: Ctx, rec: RecordRow): void {
  ctx.fields[RENAME_FIELD] = rec.name;
  ctx.s.dialog = { kind: 'rename', id: rec._id, error: null };
  ctx.nav.focus(RENAME_FIELD);
}

function toggleSelected(ctx: Ctx, id: number): void {
  const i = ctx.s.selected.indexOf(id);
  if (i >= 0) ctx.s.selected.splice(i, 1);
  else ctx.s.selected.push(id);
}

function recordRow(ctx: Ctx, r: RecordRow, now: number): ViewSpec {
  const selected = ctx.s.selected.includes(r._id);
  const playing = ctx.s.play?.id === r._id;
  return row(
    [
      strip({ cls: W.ImageView, id: 'list_item_image', desc: playing ? 'Playing' : 'Play', w: 48, h: 48, style: { icon: selected ? 'check' : 'play_circle', iconSize: 40, iconColor: playing ? '#FFD54F' : WHITE } }),
      column([
        row([
          text(r.name, { id: 'list_item_name', size: 18, bold: true, fg: WHITE, pad: [0, 4, 0, 4], lines: 1 }),
          iconButton(r.bookmark ? 'bookmark' : 'bookmark_border', r.bookmark ? 'Remove bookmark' : 'Add bookmark', () => toggleBookmark(ctx.app.db, r._id), { id: 'bookmark', color: r.bookmark ? '#FFD54F' : WHITE }),
        ], { h: 48 }),
        row([
          caption(`${formatDuration(r.duration)}, ${r.format}, ${formatBytes(r.size)}`, { id: 'list_item_description', fg: '#ECEFF1', pad: [0, 4, 0, 4], lines: 1 }),
          caption(formatAdded(r.added, now), { id: 'list_item_date', fg: '#ECEFF1', pad: [0, 4, 0, 4], lines: 1, w: 'wrap' }),
        ]),
      ], { weight: 1 }),
      iconButton('more_vert', 'More options', () => { ctx.s.menuFor = r._id; }, { id: 'btn_more', color: WHITE }),
    ],
    {
      id: 'container', clickable: true, pad: [6, 8, 10, 8], gap: 8, selected,
      onClick: () => {
        if (ctx.s.selected.length > 0) toggleSelected(ctx, r._id);
        else ctx.s.play = togglePlay(ctx.s.play, r, ctx.sys.clock.now());
      },
      onLongClick: () => toggleSelected(ctx, r._id),
      style: selected ? { bg: '#FFFFFF33' } : { divider: true },
    },
  );
}

function toolbar(ctx: Ctx, order: number, count: number): ViewSpec {
  const { s } = ctx;
  if (s.selected.length > 0) {
    return row([
      iconButton('close', 'Close', () => { s.selected = []; }, { id: 'btn_close_multi_select', color: WHITE }),
      column([fill(), text(`${s.selected.length} selected`, { id: 'txt_selected_multi', size: 20, fg: WHITE, pad: [0, 8, 0, 8] }), fill()], { weight: 1 }),
      iconButton('download', 'Download', () => {
        const msgs = s.selected.map((id) => getRecord(ctx.app.db, id)).filter((r) => r !== undefined).map((r) => downloadRecord(ctx.sys.fs, r));
        ctx.nav.toast(msgs.length === 1 ? msgs[0]! : `${msgs.length} records downloaded successfully`);
        s.selected = [];
      }, { id: 'btn_download_multi', color: WHITE }),
      iconButton('delete', 'Delete', () => { s.dialog = { kind: 'delete_selected' }; }, { id: 'btn_delete_multi', color: WHITE }),
    ], { id: 'menu_multi_select', h: 64, pad: [8, 4, 8, 4], style: { bg: '#37474F' } });
  }
  return row([
    iconButton('arrow_back', 'Navigate up', () => ctx.nav.finish(), { id: 'btn_back', color: WHITE }),
    column([
      fill(),
      text(s.bookmarks ? 'Bookmarks' : 'Records', { id: 'txt_title', size: 20, fg: WHITE, pad: [0, 8, 0, 8], lines: 1 }),
      caption(`${count} ${count === 1 ? 'record' : 'records'} · ${orderLabel(order)}`, { id: 'txt_sub_title', fg: '#ECEFF1', pad: [0, 8, 0, 8], lines: 1 }),
      fill(),
    ], { weight: 1 }),
    iconButton('sort', 'Sort', () => { s.sortMenu = true; }, { id: 'btn_sort', color: WHITE }),
    iconButton(s.bookmarks ? 'bookmark' : 'bookmark_border', 'Bookmarks', () => { s.bookmarks = !s.bookmarks; ctx.nav.scrollTo('records', 0); }, { id: 'btn_bookmarks', color: WHITE }),
  ], { id: 'toolbar', h: 64, pad: [8, 4, 8, 4] });
}

function player(ctx: Ctx, now: number): ViewSpec | null {
  const p = ctx.s.play;
  const rec = p ? getRecord(ctx.app.db, p.id) : undefined;
  if (!p || !rec) return null;
  const pos = playbackPosition(p, rec, now);
  const isPlaying = p.pausedAt === null && pos < rec.duration;
  return column([
    row([
      text(rec.name, { id: 'txt_name', size: 18, bold: true, pad: [0, 12, 0, 12], lines: 1 }),
      text(`${formatDuration(pos)} / ${formatDuration(rec.duration)}`, { id: 'txt_progress', size: 16, w: 'wrap', pad: [0, 12, 0, 12] }),
    ], { h: 40 }),
    strip({ cls: W.SeekBar, id: 'play_progress', h: 24, pad: [0, 16, 0, 16], style: { variant: 'slider', progress: rec.duration ? pos / rec.duration : 0 } }),
    row([
      fill(),
      iconButton(isPlaying ? 'pause' : 'play', isPlaying ? 'Pause' : 'Play', () => { ctx.s.play = togglePlay(ctx.s.play, rec, now); }, { id: 'btn_play' }),
      iconButton('stop', 'Stop', () => { ctx.s.play = null; }, { id: 'btn_stop' }),
      fill(),
    ], { h: 56, gap: 24 }),
  ], { id: 'touch_layout', pad: [8, 0, 4, 0], style: { bg: '#FFE082', radius: 12 } });
}

function dialogView(ctx: Ctx): DialogView | undefined {
  const d = ctx.s.dialog;
  if (!d) return undefined;
  const { db } = ctx.app;
  const fs = ctx.sys.fs;
  const close = () => {
    ctx.s.dialog = null;
    ctx.nav.hideKeyboard();
  };
  const forget = (id: number) => {
    if (ctx.s.play?.id === id) ctx.s.play = null;
  };
  switch (d.kind) {
    case 'rename':
      return renameDialog({
        error: d.error,
        onCancel: close,
        onSave: () => {
          const problem = renameRecord(db, fs, d.id, ctx.fields[RENAME_FIELD] ?? '');
          if (problem) d.error = renameError(problem);
          else close();
        },
      });
    case 'delete': {
      const rec = getRecord(db, d.id);
      if (!rec) return undefined;
      return deleteDialog(`Delete record ${rec.name} forever?`, {
        onCancel: close,
        onDelete: () => {
          deleteRecord(db, fs, d.id);
          forget(d.id);
          ctx.nav.toast('The record deleted successfully');
          close();
        },
      });
    }
    case 'delete_selected': {
      const n = ctx.s.selected.length;
      return deleteDialog(`Delete ${n} selected ${n === 1 ? 'record' : 'records'} forever?`, {
        onCancel: close,
        onDelete: () => {
          for (const id of ctx.s.selected) {
            deleteRecord(db, fs, id);
            forget(id);
          }
          ctx.s.selected = [];
          close();
        },
      });
    }
    case 'info': {
      const rec = getRecord(db, d.id);
      return rec ? infoDialog(rec, close) : undefined;
    }
  }
}

function menuView(ctx: Ctx): MenuView | undefined {
  const { s } = ctx;
  if (s.sortMenu) {
    const close = () => { s.sortMenu = false; };
    return {
      items: ORDERS.map(([order, label]) => ({
        label, id: 'sort_order', onClick: () => {
          writePrefs(ctx.sys.fs, { pref_records_order: order });
          ctx.nav.scrollTo('records', 0);
          close();
        },
      })),
      onDismiss: close,
    };
  }
  const rec = s.menuFor === null ? undefined : getRecord(ctx.app.db, s.menuFor);
  if (!rec) return undefined;
  const close = () => { s.menuFor = null; };
  const then = (fn: () => void) => () => { close(); fn(); };
  return {
    items: recordMenu({
      share: then(() => ctx.nav.toast(`Share record: ${rec.name}`)),
      info: then(() => { s.dialog = { kind: 'info', id: rec._id }; }),
      rename: then(() => openRename(ctx, rec)),
      download: then(() => ctx.nav.toast(downloadRecord(ctx.sys.fs, rec))),
      remove: then(() => { s.dialog = { kind: 'delete', id: rec._id }; }),
    }),
    onDismiss: close,
  };
}

export const records: ActivityDef<RecordsState> = {
  name: RECORDS_ACTIVITY,
  create: () => ({ menuFor: null, sortMenu: false, bookmarks: false, selected: [], play: null, dialog: null }),
  render: (ctx) => {
    const now = ctx.sys.clock.now();
    const prefs = readPrefs(ctx.sys.fs);
    const order = Number(prefs.pref_records_order);
    const rows = listRecords(ctx.app.db, order, ctx.s.bookmarks);
    const panel = player(ctx, now);
    const empty = ctx.s.bookmarks ? 'Bookmarks is empty' : 'Records is empty';
    const body = column(
      [
        toolbar(ctx, order, rows.length),
        list('records', rows.map((r) => recordRow(ctx, r, now)), { id: 'recycler_view', empty }),
        ...(panel ? [panel] : []),
      ],
      { cls: W.FrameLayout, h: 'fill', style: { bg: THEME_COLOR[themeOf(prefs)] } },
    );
    const dialog = dialogView(ctx);
    const menu = menuView(ctx);
    return { body, ...(dialog ? { dialog } : {}), ...(menu ? { menu } : {}) };
  },
  onBack: (ctx) => {
    if (ctx.s.selected.length === 0) return false;
    ctx.s.selected = [];
    return true;
  },
};
