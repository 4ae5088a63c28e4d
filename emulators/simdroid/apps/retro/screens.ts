import type { DialogView, MenuView } from '../../runtime/app.js';
import { W, type ViewSpec } from '../../view/spec.js';
import {
  appBar, button, caption, column, dialog, iconButton, list, listItem, row, strip, text, textField,
} from '../../view/widgets.js';
import {
  addToPlaylist, allSongs, createPlaylist, deletePlaylist, duration, m3u, playlist, playlists, playlistSongs, songAt, type Song,
} from './library.js';
import {
  clearQueue, enqueue, isPlaying, page, playbackQueue, playFrom, playNext, position, push, removeFromQueue, setPlaying,
  PLAYLIST_NAME_FIELD, type Ctx, type Tab,
} from './state.js';

/**
 * Retro Music's screens: the Songs, Artists and Playlists tabs with the bottom navigation, a song
 * row's "More options" menu (Play next, Add to playing queue, Add to playlist…, Details), the
 * playlist's details (its songs, their count and total length, Save as file), the mini player,
 * the now-playing screen and the playing queue.
 */
const DOWNLOADS = '/storage/emulated/0/Download';

function songRow(ctx: Ctx, s: Song, onClick: () => void, source: 'library' | 'playlist' | 'queue', current = false): ViewSpec {
  return listItem({
    title: s.title, subtitle: s.artist, meta: duration(s.durationMs), leading: 'music', onClick, selected: current,
    trailing: iconButton('more_vert', 'More options', () => { ctx.s.menu = { kind: 'song', path: s.path, source }; }, { id: 'menu' }),
  });
}

const TABS: ReadonlyArray<{ tab: Tab; label: string; icon: string }> = [
  { tab: 'songs', label: 'Songs', icon: 'music' },
  { tab: 'artists', label: 'Artists', icon: 'person' },
  { tab: 'playlists', label: 'Playlists', icon: 'list' },
];

export function bottomNav(ctx: Ctx): ViewSpec {
  return row(TABS.map((t) => column([
    strip({ cls: W.ImageView, h: 28, style: { icon: t.icon, iconColor: ctx.s.tab === t.tab ? 'primary' : 'onSurfaceVariant' } }),
    text(t.label, { size: 12, align: 'center', pad: [2, 0, 0, 0], bold: ctx.s.tab === t.tab, id: 'navigation_bar_item_large_label_view' }),
  ], {
    id: `action_${t.tab === 'songs' ? 'song' : t.tab === 'artists' ? 'artist' : 'playlist'}`, desc: t.label, clickable: true,
    selected: ctx.s.tab === t.tab, pad: [10, 0, 10, 0], onClick: () => { ctx.s.tab = t.tab; ctx.s.menu = null; },
  })), { cls: W.FrameLayout, id: 'bottomNavigationView', h: 72, style: { bg: 'surface' } });
}

/** The mini player above the bottom navigation while a queue exists. */
export function miniPlayer(ctx: Ctx): ViewSpec | null {
  const q = playbackQueue(ctx);
  const song = q[Math.min(position(ctx), q.length - 1)];
  if (!song) return null;
  return row([
    strip({ cls: W.ImageView, w: 40, h: 40, style: { icon: 'music', iconColor: 'primary' } }),
    column([text(song.title, { id: 'miniPlayerTitle', size: 15, lines: 1, pad: 0 }), caption(song.artist, { pad: 0, lines: 1 })], { weight: 1 }),
    iconButton(isPlaying(ctx) ? 'pause' : 'play', isPlaying(ctx) ? 'Pause' : 'Play', () => setPlaying(ctx, !isPlaying(ctx)), { id: 'miniPlayerPlayPauseButton' }),
  ], { id: 'miniPlayerFragment', clickable: true, onClick: () => push(ctx, 'player'), h: 64, pad: [8, 16, 8, 16], gap: 12, style: { bg: 'surfaceVariant' } });
}

export function libraryScreen(ctx: Ctx): { appBar: ViewSpec; body: ViewSpec } {
  switch (ctx.s.tab) {
    case 'songs': {
      const songs = allSongs(ctx.sys.fs);
      return {
        appBar: appBar({ title: 'Songs' }),
        body: list('songs', songs.map((s, i) => songRow(ctx, s, () => playFrom(ctx, songs, i), 'library')), { id: 'recycler_view', empty: 'No songs' }),
      };
    }
    case 'artists': {
      const byArtist = new Map<string, number>();
      for (const s of allSongs(ctx.sys.fs)) byArtist.set(s.artist, (byArtist.get(s.artist) ?? 0) + 1);
      const rows = [...byArtist].sort((a, b) => a[0].localeCompare(b[0])).map(([name, n]) => listItem({ title: name, subtitle: `${n} ${n === 1 ? 'Song' : 'Songs'}`, leading: 'person' }));
      return { appBar: appBar({ title: 'Artists' }), body: list('artists', rows, { id: 'recycler_view', empty: 'No artists' }) };
    }
    case 'playlists': {
      const db = ctx.app.db;
      const rows = playlists(db).map((p) => {
        const n = playlistSongs(db, p.playlist_id).length;
        return listItem({
          title: p.playlist_name, subtitle: `${n} ${n === 1 ? 'Song' : 'Songs'}`, leading: 'list',
          onClick: () => { ctx.s.playlist = p.playlist_id; push(ctx, 'playlist'); },
        });
      });
      const add = iconButton('add', 'New playlist', () => { openNewPlaylist(ctx, []); }, { id: 'action_new_playlist' });
      return { appBar: appBar({ title: 'Playlists', actions: [add] }), body: list('playlists', rows, { id: 'recycler_view', empty: 'No playlists' }) };
    }
  }
}

export function playlistScreen(ctx: Ctx): { appBar: ViewSpec; body: ViewSpec } {
  const p = ctx.s.playlist === null ? undefined : playlist(ctx.app.db, ctx.s.playlist);
  const back = () => { ctx.s.stack.pop(); };
  if (!p) return { appBar: appBar({ title: 'Playlist', onBack: back }), body: column([]) };
  const songs = playlistSongs(ctx.app.db, p.playlist_id);
  const total = songs.reduce((sum, s) => sum + s.durationMs, 0);
  const header = column([
    text(p.playlist_name, { id: 'title', size: 24, bold: true, pad: [12, 16, 2, 16] }),
    caption(`${songs.length} ${songs.length === 1 ? 'Song' : 'Songs'} • ${duration(total)}`, { id: 'subtitle', pad: [0, 16, 8, 16] }),
  ]);
  const rows = songs.map((s, i) => songRow(ctx, s, () => playFrom(ctx, songs, i), 'playlist'));
  return {
    appBar: appBar({ title: p.playlist_name, onBack: back, onOverflow: () => { ctx.s.menu = { kind: 'playlist' }; } }),
    body: column([header, list('playlist', rows, { id: 'recyclerView', empty: 'No songs' })], { h: 'fill' }),
  };
}

export function playerScreen(ctx: Ctx): { appBar: ViewSpec; body: ViewSpec } {
  const q = playbackQueue(ctx);
  const song = q[Math.min(position(ctx), q.length - 1)];
  const back = () => { ctx.s.stack.pop(); };
  const body = song ? column([
    strip({ cls: W.ImageView, h: 220, style: { icon: 'music', iconColor: 'primary' } }),
    text(song.title, { id: 'title', size: 22, bold: true, align: 'center' }),
    caption(song.artist, { id: 'text', align: 'center' }),
    caption(`0:00 / ${duration(song.durationMs)}`, { id: 'songTotalTime', align: 'center' }),
    row([iconButton(isPlaying(ctx) ? 'pause' : 'play', isPlaying(ctx) ? 'Pause' : 'Play', () => setPlaying(ctx, !isPlaying(ctx)), { id: 'playPauseButton' })], { pad: [8, 150, 8, 150] }),
    button('Playing queue', () => push(ctx, 'queue'), { variant: 'tonal', id: 'playerQueueSheet', icon: 'list' }),
  ], { gap: 8, pad: [16, 16, 16, 16] }) : column([caption('Nothing is playing', { align: 'center' })]);
  return { appBar: appBar({ title: 'Now playing', onBack: back, onOverflow: () => { ctx.s.menu = { kind: 'player' }; } }), body };
}

export function queueScreen(ctx: Ctx): { appBar: ViewSpec; body: ViewSpec } {
  const q = playbackQueue(ctx);
  const pos = position(ctx);
  const rows = q.map((s, i) => songRow(ctx, s, () => playFrom(ctx, q, i), 'queue', i === pos));
  return {
    appBar: appBar({ title: 'Playing queue', subtitle: `${q.length} ${q.length === 1 ? 'Song' : 'Songs'}`, onBack: () => { ctx.s.stack.pop(); }, onOverflow: () => { ctx.s.menu = { kind: 'player' }; } }),
    body: list('queue', rows, { id: 'recyclerView', empty: 'The playing queue is empty' }),
  };
}

function openNewPlaylist(ctx: Ctx, paths: string[]): void {
  ctx.s.menu = null;
  ctx.s.dialog = { kind: 'new_playlist', paths };
  ctx.fields[PLAYLIST_NAME_FIELD] = '';
  ctx.nav.focus(PLAYLIST_NAME_FIELD);
}

function songsAt(ctx: Ctx, paths: readonly string[]): Song[] {
  return paths.flatMap((p) => songAt(ctx.sys.fs, p) ?? []);
}

export function retroDialog(ctx: Ctx): DialogView | undefined {
  const d = ctx.s.dialog;
  if (!d) return undefined;
  const close = () => { ctx.s.dialog = null; ctx.nav.hideKeyboard(); };
  switch (d.kind) {
    case 'add_to_playlist': {
      const items = playlists(ctx.app.db).map((p) => listItem({
        id: 'playlist_item', title: p.playlist_name, leading: 'list',
        onClick: () => {
          const n = addToPlaylist(ctx.app.db, p.playlist_id, songsAt(ctx, d.paths));
          ctx.nav.toast(`Added ${n} song(s) to ${p.playlist_name}`);
          close();
        },
      }));
      const create = listItem({ id: 'new_playlist', title: 'New playlist', leading: 'add', onClick: () => openNewPlaylist(ctx, d.paths) });
      return { spec: dialog({ title: 'Add to playlist', body: [create, ...items], buttons: [{ label: 'Cancel', onClick: close }] }), onCancel: close };
    }
    case 'new_playlist': {
      const create = () => {
        const name = (ctx.fields[PLAYLIST_NAME_FIELD] ?? '').trim();
        if (!name) return;
        if (playlists(ctx.app.db).some((p) => p.playlist_name === name)) {
          ctx.nav.toast('Playlist exists');
          return;
        }
        const id = createPlaylist(ctx.app.db, name);
        if (d.paths.length) addToPlaylist(ctx.app.db, id, songsAt(ctx, d.paths));
        ctx.nav.toast(`Created playlist ${name}`);
        close();
      };
      return {
        spec: dialog({
          title: 'New playlist',
          body: [textField({ field: PLAYLIST_NAME_FIELD, hint: 'Playlist name', id: 'actionNewPlaylist', onSubmit: create })],
          buttons: [{ label: 'Cancel', onClick: close }, { label: 'Create', onClick: create }],
        }),
        onCancel: close,
      };
    }
    case 'details': {
      const s = songAt(ctx.sys.fs, d.path);
      const lines = s ? [['Title', s.title], ['Artist', s.artist], ['Album', s.album], ['Length', duration(s.durationMs)], ['File path', s.path]] : [];
      return { spec: dialog({ title: 'Details', body: lines.map(([k, v]) => text(`${k}: ${v}`, { size: 14, pad: [4, 24, 4, 24] })), buttons: [{ label: 'OK', onClick: close }] }), onCancel: close };
    }
    case 'delete_playlist': {
      const del = () => {
        deletePlaylist(ctx.app.db, d.id);
        close();
        ctx.s.stack.pop();
      };
      return { spec: dialog({ title: 'Delete playlist', message: 'Delete this playlist?', buttons: [{ label: 'Cancel', onClick: close }, { label: 'Delete', onClick: del }] }), onCancel: close };
    }
  }
}

export function retroMenu(ctx: Ctx): MenuView | undefined {
  const m = ctx.s.menu;
  if (!m) return undefined;
  const close = () => { ctx.s.menu = null; };
  const item = (label: string, f: () => void) => ({ label, onClick: () => { close(); f(); } });
  switch (m.kind) {
    case 'song': {
      const song = songAt(ctx.sys.fs, m.path);
      if (!song) return undefined;
      const items = [
        item('Play next', () => playNext(ctx, song)),
        item('Add to playing queue', () => enqueue(ctx, song)),
        item('Add to playlist…', () => { ctx.s.dialog = { kind: 'add_to_playlist', paths: [song.path] }; }),
      ];
      if (m.source === 'queue') {
        const index = playbackQueue(ctx).findIndex((s) => s.path === song.path);
        items.push(item('Remove from playing queue', () => removeFromQueue(ctx, index)));
      }
      items.push(item('Details', () => { ctx.s.dialog = { kind: 'details', path: song.path }; }));
      return { items, onDismiss: close };
    }
    case 'playlist': {
      const id = ctx.s.playlist;
      if (id === null || !playlist(ctx.app.db, id)) return undefined;
      const p = playlist(ctx.app.db, id)!;
      return {
        onDismiss: close,
        items: [
          item('Play', () => { const songs = playlistSongs(ctx.app.db, id); if (songs.length) playFrom(ctx, songs, 0); }),
          item('Add to playing queue', () => playlistSongs(ctx.app.db, id).forEach((s) => enqueue(ctx, s))),
          item('Save as file', () => {
            ctx.sys.fs.writeFile(`${DOWNLOADS}/${p.playlist_name}.m3u`, m3u(playlistSongs(ctx.app.db, id)), { parents: true });
            ctx.nav.toast(`Saved playlist to ${DOWNLOADS}/${p.playlist_name}.m3u`);
          }),
          item('Delete', () => { ctx.s.dialog = { kind: 'delete_playlist', id }; }),
        ],
      };
    }
    case 'player':
      return { onDismiss: close, items: [item('Clear playing queue', () => { clearQueue(ctx); if (page(ctx.s) === 'player') ctx.s.stack.pop(); })] };
  }
}
