import type { ActivityContext, ActivityDef, DialogView } from '../../runtime/app.js';
import type { ViewSpec } from '../../view/spec.js';
import { appBar, button, caption, column, dialog, list, listItem, screen, text, textField } from '../../view/widgets.js';
import { basename, dirname, EXTERNAL_STORAGE } from '../../system/fs.js';
import {
  appendToPlaylist, deletePlaylist, isVideo, playlistItems, playlistName, playlistNamed, playlists, scanVideos, titleOf, type VideoFile,
} from './db.js';
import { actionModeBar, bottomNav, emptyText, playerView, videoRow, type Tab } from './views.js';

/**
 * VLC's MainActivity: the Video, Audio, Browse, Playlists and More tabs; a long press on a video
 * starts a selection (taps then add to it, in order), whose bar adds it to a playlist through the
 * "Add to playlist" dialog (a new one by name, or an existing one); the Playlists tab lists
 * playlists and opens one in order. The player shows the title on a black surface.
 */
export const VLC_MAIN = 'org.videolan.vlc.gui.MainActivity';

type Dialog = { kind: 'add'; error: string | null } | { kind: 'delete'; id: number };

export interface VlcState {
  tab: Tab;
  /** Selected videos by path, in the order they were picked. */
  selected: string[];
  /** The playlist opened from the Playlists tab. */
  playlist: number | null;
  /** The folder open in Browse (null: the storage list). */
  dir: string | null;
  playing: { path: string; paused: boolean } | null;
  dialog: Dialog | null;
}

type Ctx = ActivityContext<VlcState>;
const NAME_FIELD = 'playlist_name';

function videoAt(ctx: Ctx, path: string): VideoFile | undefined {
  if (!ctx.sys.fs.exists(path)) return undefined;
  return { path, title: titleOf(basename(path)), size: ctx.sys.fs.size(path) };
}

function toggle(ctx: Ctx, path: string): void {
  const i = ctx.s.selected.indexOf(path);
  if (i >= 0) ctx.s.selected.splice(i, 1);
  else ctx.s.selected.push(path);
}

function rowFor(ctx: Ctx, v: VideoFile): ViewSpec {
  const selecting = ctx.s.selected.length > 0;
  return videoRow(v, ctx.s.selected.includes(v.path), {
    onClick: () => (selecting ? toggle(ctx, v.path) : void (ctx.s.playing = { path: v.path, paused: false })),
    onLongClick: () => toggle(ctx, v.path),
  });
}

function go(ctx: Ctx, tab: Tab): void {
  ctx.s.tab = tab;
  ctx.s.selected = [];
  ctx.s.playlist = null;
  ctx.nav.scrollTo(tab, 0);
}

function videoTab(ctx: Ctx): ViewSpec {
  const videos = scanVideos(ctx.sys.fs);
  if (!videos.length) return emptyText('No video found. Videos on your device show here.');
  return list('video', videos.map((v) => rowFor(ctx, v)), { id: 'video_grid' });
}

function browseTab(ctx: Ctx): ViewSpec {
  const fs = ctx.sys.fs;
  const dir = ctx.s.dir;
  if (dir === null || !fs.exists(dir)) {
    return list('browse', [listItem({ title: 'Internal memory', subtitle: EXTERNAL_STORAGE, leading: 'storage', id: 'storage_item', onClick: () => { ctx.s.dir = EXTERNAL_STORAGE; } })], { id: 'network_list' });
  }
  const rows: ViewSpec[] = [];
  for (const name of fs.list(dir)) {
    const path = `${dir}/${name}`;
    if (fs.stat(path)?.type === 'dir') {
      if (name !== 'Android') rows.push(listItem({ title: name, leading: 'folder', id: 'dir_item', onClick: () => { ctx.s.dir = path; ctx.nav.scrollTo('browse', 0); } }));
    } else if (isVideo(name)) {
      rows.push(rowFor(ctx, { path, title: titleOf(name), size: fs.size(path) }));
    }
  }
  return list('browse', rows, { id: 'network_list', empty: 'Empty folder' });
}

function playlistsTab(ctx: Ctx): ViewSpec {
  const all = playlists(ctx.app.db);
  if (!all.length) return emptyText('No playlist yet. Long press videos and choose Add to playlist.');
  return list('playlists', all.map((p) => listItem({
    title: p.name, subtitle: `${p.count} ${p.count === 1 ? 'video' : 'videos'}`, leading: 'list', id: 'playlist_item',
    onClick: () => { ctx.s.playlist = p.id_playlist; ctx.nav.scrollTo('playlist', 0); },
  })), { id: 'playlists_list' });
}

function playlistScreen(ctx: Ctx, id: number): ViewSpec {
  const name = playlistName(ctx.app.db, id) ?? '';
  const items = playlistItems(ctx.app.db, id);
  return screen({
    appBar: appBar({
      title: name, subtitle: `${items.length} ${items.length === 1 ? 'video' : 'videos'}`, onBack: () => { ctx.s.playlist = null; },
      actions: [button('Delete', () => { ctx.s.dialog = { kind: 'delete', id }; }, { variant: 'text', w: 'wrap', id: 'ml_menu_delete' })],
    }),
    body: [list('playlist', items.map((it, i) => listItem({ title: it.title || titleOf(it.filename), subtitle: `${i + 1}. ${it.filename}`, leading: 'movie', id: 'playlist_media' })), { id: 'playlist_items', empty: 'This playlist is empty' })],
  });
}

function tabBody(ctx: Ctx): ViewSpec {
  switch (ctx.s.tab) {
    case 'video': return videoTab(ctx);
    case 'audio': return emptyText('No audio found. Your music shows here.');
    case 'browse': return browseTab(ctx);
    case 'playlists': return playlistsTab(ctx);
    case 'more': return list('more', ['Settings', 'About', 'History', 'Streams'].map((t) => listItem({ title: t, leading: t === 'Settings' ? 'settings' : 'info' })), { id: 'more_list' });
  }
}

const TITLES: Record<Tab, string> = { video: 'Videos', audio: 'Audio', browse: 'Browse', playlists: 'Playlists', more: 'More' };

/** Adds the selection, in the order picked, to the playlist of that name (created when new). */
function addSelection(ctx: Ctx, name: string): void {
  const videos = ctx.s.selected.map((p) => videoAt(ctx, p)).filter((v): v is VideoFile => v !== undefined);
  const id = playlistNamed(ctx.app.db, name, ctx.sys.clock.now());
  appendToPlaylist(ctx.app.db, id, videos, ctx.sys.clock.now());
  ctx.s.selected = [];
  ctx.s.dialog = null;
  delete ctx.fields[NAME_FIELD];
  ctx.nav.hideKeyboard();
  ctx.nav.toast(`${videos.length} ${videos.length === 1 ? 'video' : 'videos'} added to ${name}`);
}

function dialogView(ctx: Ctx): DialogView | undefined {
  const d = ctx.s.dialog;
  if (!d) return undefined;
  const close = () => { ctx.s.dialog = null; ctx.nav.hideKeyboard(); };
  if (d.kind === 'delete') {
    return {
      spec: dialog({ title: 'Delete playlist?', message: playlistName(ctx.app.db, d.id) ?? '', buttons: [
        { label: 'Cancel', onClick: close },
        { label: 'Delete', onClick: () => { deletePlaylist(ctx.app.db, d.id); ctx.s.playlist = null; close(); } },
      ] }),
      onCancel: close,
    };
  }
  const existing = playlists(ctx.app.db);
  const save = () => {
    const name = (ctx.fields[NAME_FIELD] ?? '').trim();
    if (!name) {
      d.error = 'Enter a playlist name';
      return;
    }
    addSelection(ctx, name);
  };
  const body: ViewSpec[] = [textField({ field: NAME_FIELD, hint: 'Playlist name', id: 'dialog_playlist_name', onSubmit: save })];
  if (d.error) body.push(caption(d.error, { fg: 'error', pad: [0, 24, 4, 24], id: 'dialog_playlist_error' }));
  if (existing.length) {
    body.push(text('Existing playlists', { size: 14, bold: true, pad: [12, 24, 4, 24] }));
    body.push(column(existing.map((p) => listItem({ title: p.name, subtitle: `${p.count} ${p.count === 1 ? 'video' : 'videos'}`, leading: 'list', id: 'dialog_playlist_item', onClick: () => addSelection(ctx, p.name) })), { id: 'dialog_playlist_list' }));
  }
  return {
    spec: dialog({ title: 'Add to playlist', body, buttons: [{ label: 'Cancel', onClick: close }, { label: 'Save', onClick: save, id: 'dialog_playlist_save' }] }),
    onCancel: close,
  };
}

export const vlcMain: ActivityDef<VlcState> = {
  name: VLC_MAIN,
  create: () => ({ tab: 'video', selected: [], playlist: null, dir: null, playing: null, dialog: null }),
  render: (ctx) => {
    const p = ctx.s.playing;
    if (p) {
      const v = videoAt(ctx, p.path);
      return { body: playerView(v?.title ?? basename(p.path), !p.paused, { onBack: () => { ctx.s.playing = null; }, onToggle: () => { p.paused = !p.paused; } }) };
    }
    const dlg = dialogView(ctx);
    if (ctx.s.playlist !== null) return { body: playlistScreen(ctx, ctx.s.playlist), ...(dlg ? { dialog: dlg } : {}) };
    const n = ctx.s.selected.length;
    const bar = n > 0
      ? actionModeBar(n, {
        onClose: () => { ctx.s.selected = []; },
        onPlay: () => { ctx.s.playing = { path: ctx.s.selected[0]!, paused: false }; ctx.s.selected = []; },
        onAddToPlaylist: () => { ctx.s.dialog = { kind: 'add', error: null }; },
        onSelectAll: () => {
          const shown = ctx.s.tab === 'browse' && ctx.s.dir ? ctx.sys.fs.list(ctx.s.dir).filter(isVideo).map((f) => `${ctx.s.dir}/${f}`) : scanVideos(ctx.sys.fs).map((v) => v.path);
          for (const path of shown) if (!ctx.s.selected.includes(path)) ctx.s.selected.push(path);
        },
      })
      : appBar({
        title: ctx.s.tab === 'browse' && ctx.s.dir ? (ctx.s.dir === EXTERNAL_STORAGE ? 'Internal memory' : basename(ctx.s.dir)) : TITLES[ctx.s.tab],
        ...(ctx.s.tab === 'browse' && ctx.s.dir ? { onBack: () => { ctx.s.dir = ctx.s.dir === EXTERNAL_STORAGE ? null : dirname(ctx.s.dir!); } } : {}),
      });
    return { body: screen({ appBar: bar, body: [tabBody(ctx)], bottom: bottomNav(ctx.s.tab, (t) => go(ctx, t)), id: 'main_content' }), ...(dlg ? { dialog: dlg } : {}) };
  },
  onBack: (ctx) => {
    if (ctx.s.playing) { ctx.s.playing = null; return true; }
    if (ctx.s.selected.length) { ctx.s.selected = []; return true; }
    if (ctx.s.playlist !== null) { ctx.s.playlist = null; return true; }
    if (ctx.s.tab === 'browse' && ctx.s.dir) { ctx.s.dir = ctx.s.dir === EXTERNAL_STORAGE ? null : dirname(ctx.s.dir); return true; }
    return false;
  },
};


