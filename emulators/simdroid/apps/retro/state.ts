import type { ActivityContext } from '../../runtime/app.js';
import { playbackDb, queue, saveQueue, type Song } from './library.js';

/**
 * MainActivity's state: Retro Music shows its library tabs, a playlist's details, the now-playing
 * screen and the playing queue as fragments of one activity. The queue itself is in the playback
 * database; the position in it and whether it plays are the app's preferences.
 */
export type Tab = 'songs' | 'artists' | 'playlists';
export type Page = 'library' | 'playlist' | 'player' | 'queue';

export type RetroDialog =
  | { kind: 'add_to_playlist'; paths: string[] }
  | { kind: 'new_playlist'; paths: string[] }
  | { kind: 'details'; path: string }
  | { kind: 'delete_playlist'; id: number };

export interface RetroState {
  tab: Tab;
  stack: Page[];
  /** The playlist whose details are open. */
  playlist: number | null;
  /** The song whose "More options" menu is open (its path), or the playlist's overflow ('playlist'), the player's ('player'). */
  menu: { kind: 'song'; path: string; source: 'library' | 'playlist' | 'queue' } | { kind: 'playlist' } | { kind: 'player' } | null;
  dialog: RetroDialog | null;
}

export type Ctx = ActivityContext<RetroState>;

export const MAIN_ACTIVITY = 'code.name.monkey.retromusic.activities.MainActivity';
export const PLAYLIST_NAME_FIELD = 'playlist_name';
const PREF_POSITION = 'queue_position';
const PREF_PLAYING = 'playing';

export function page(s: RetroState): Page {
  return s.stack[s.stack.length - 1]!;
}

export function push(ctx: Ctx, p: Page): void {
  ctx.s.stack.push(p);
  ctx.s.menu = null;
  ctx.nav.scrollTo(p, 0);
}

export function playbackQueue(ctx: Ctx): Song[] {
  return queue(playbackDb(ctx.sys));
}

export function position(ctx: Ctx): number {
  const n = Number(ctx.app.prefs[PREF_POSITION] ?? '0');
  return Number.isInteger(n) && n >= 0 ? n : 0;
}

export function isPlaying(ctx: Ctx): boolean {
  return ctx.app.prefs[PREF_PLAYING] === 'true';
}

export function setPlaying(ctx: Ctx, on: boolean): void {
  ctx.app.prefs[PREF_PLAYING] = String(on);
}

function setQueue(ctx: Ctx, songs: readonly Song[], pos: number, play: boolean): void {
  saveQueue(playbackDb(ctx.sys), songs);
  ctx.app.prefs[PREF_POSITION] = String(pos);
  setPlaying(ctx, play && songs.length > 0);
}

/** Plays a list from one of its songs: the list becomes the queue (MusicPlayerRemote.openQueue). */
export function playFrom(ctx: Ctx, songs: readonly Song[], index: number): void {
  setQueue(ctx, songs, index, true);
  ctx.nav.toast(`Playing ${songs[index]?.title ?? ''}`);
}

/** "Add to playing queue": at the end; into an empty queue it starts a new one (MusicPlayerRemote.enqueue). */
export function enqueue(ctx: Ctx, song: Song): void {
  const q = playbackQueue(ctx);
  if (q.length === 0) setQueue(ctx, [song], 0, false);
  else setQueue(ctx, [...q, song], position(ctx), isPlaying(ctx));
  ctx.nav.toast('Added 1 title to the playing queue.');
}

/** "Play next": right after the current song. */
export function playNext(ctx: Ctx, song: Song): void {
  const q = playbackQueue(ctx);
  if (q.length === 0) {
    setQueue(ctx, [song], 0, false);
  } else {
    const at = Math.min(position(ctx) + 1, q.length);
    setQueue(ctx, [...q.slice(0, at), song, ...q.slice(at)], position(ctx), isPlaying(ctx));
  }
  ctx.nav.toast('Added 1 title to the playing queue.');
}

export function removeFromQueue(ctx: Ctx, index: number): void {
  const q = playbackQueue(ctx);
  const pos = position(ctx);
  setQueue(ctx, q.filter((_s, i) => i !== index), index < pos ? pos - 1 : Math.min(pos, Math.max(0, q.length - 2)), isPlaying(ctx));
}

export function clearQueue(ctx: Ctx): void {
  setQueue(ctx, [], 0, false);
}
