import type { Handler, ViewSpec } from '../../view/spec.js';
import { caption, column, fill, iconButton, listItem, row, tabs, text } from '../../view/widgets.js';
import { W } from '../../view/spec.js';
import { APP_BAR_DP } from '../../view/theme.js';
import type { VideoFile } from './db.js';

/** VLC's bottom navigation (BottomNavigationView ids as in the app). */
export type Tab = 'video' | 'audio' | 'browse' | 'playlists' | 'more';

const TABS: ReadonlyArray<[Tab, string, string]> = [
  ['video', 'Video', 'nav_video'],
  ['audio', 'Audio', 'nav_audio'],
  ['browse', 'Browse', 'nav_directories'],
  ['playlists', 'Playlists', 'nav_playlists'],
  ['more', 'More', 'nav_more'],
];

export function bottomNav(current: Tab, go: (t: Tab) => void): ViewSpec {
  return tabs(TABS.map(([tab, label, id]) => ({ label, id, selected: tab === current, onClick: () => go(tab) })), { id: 'navigation' });
}

/** "1.2 MB" as VLC's list rows give a file's size. */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** One video in a list: its title (ml_item_title), a size line; selected rows are checked. */
export function videoRow(v: VideoFile, selected: boolean, h: { onClick: Handler; onLongClick: Handler }): ViewSpec {
  return listItem({
    title: v.title, subtitle: sizeText(v.size), leading: selected ? 'checkbox_on' : 'movie', selected,
    onClick: h.onClick, onLongClick: h.onLongClick,
  });
}

/** The contextual action bar of a selection: count, Play, Add to playlist, Select all. */
export function actionModeBar(count: number, h: { onClose: Handler; onPlay: Handler; onAddToPlaylist: Handler; onSelectAll: Handler }): ViewSpec {
  return row([
    iconButton('close', 'Done', h.onClose, { id: 'action_mode_close_button' }),
    column([fill(), text(`${count} selected`, { size: 20, pad: [0, 8, 0, 8], id: 'action_bar_title' }), fill()], { weight: 1 }),
    iconButton('play', 'Play', h.onPlay, { id: 'action_video_play' }),
    iconButton('add', 'Add to playlist', h.onAddToPlaylist, { id: 'action_video_add_playlist' }),
    iconButton('checkbox_on', 'Select all', h.onSelectAll, { id: 'action_mode_select_all' }),
  ], { cls: W.ViewGroup, id: 'action_mode_bar', h: APP_BAR_DP, pad: [8, 4, 8, 4], style: { bg: 'primaryContainer' } });
}

/** The video player: a black surface with the title; the frames' pixels are not drawn (see docs/androidworld.md). */
export function playerView(title: string, playing: boolean, h: { onBack: Handler; onToggle: Handler }): ViewSpec {
  return column([
    row([iconButton('arrow_back', 'Navigate up', h.onBack), column([fill(), text(title, { size: 18, fg: '#FFFFFF', id: 'player_overlay_title', lines: 1 }), fill()], { weight: 1 })], { h: APP_BAR_DP }),
    { cls: W.View, id: 'player_surface', h: 'fill', desc: 'Video', style: { bg: '#000000' } },
    row([fill(), iconButton(playing ? 'pause' : 'play', playing ? 'Pause' : 'Play', h.onToggle, { id: 'player_overlay_play', color: '#FFFFFF' }), fill()], { h: 72 }),
  ], { h: 'fill', style: { bg: '#000000' } });
}

export function emptyText(message: string): ViewSpec {
  return column([fill(), caption(message, { align: 'center', id: 'empty' }), fill()], { h: 'fill' });
}
