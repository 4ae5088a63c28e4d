import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { UiElement } from '../../../a11y/ui-tree.js';
import type { Device } from '../../../device/device.js';
import { isFileWritable, shellOk } from '../../../device/device.js';
import { shellCommand } from '../../../device/shell-quote.js';
import type { Rng } from '../../../util/rng.js';
import { mp3File } from '../../../seed-data/mp3.js';
import { FIRST_NAMES } from '../../../seed-data/people.js';
import { launch, OracleError, screenSummary, type OracleUi } from '../../oracle.js';
import type { Subgoal } from '../../task.js';
import { clearDir, SDCARD } from '../../validators/files.js';
import { inActivity } from '../../validators/ui.js';
import { sqlExec, sqlObjects } from '../../validators/sqlite.js';

/**
 * What the Retro Music templates share: songs seeded as tagged MP3 files in /sdcard/Music (as
 * AndroidWorld writes them), the app's playlist and playback databases read back through
 * `sqlite3`, and the oracle's moves through the Songs and Playlists tabs and a song's menu.
 */
export const RETRO_PKG = 'code.name.monkey.retromusic';
export const PLAYLIST_DB = '/data/data/code.name.monkey.retromusic/databases/playlist.db';
export const PLAYBACK_DB = '/data/data/code.name.monkey.retromusic/databases/music_playback_state.db';
export const MUSIC_DIR = `${SDCARD}/Music`;
export const DOWNLOAD_DIR = `${SDCARD}/Download`;

export const SONG_TITLES = [
  'Paper Lanterns', 'Harbour Lights', 'Slow River', 'Glass Mountains', 'Late Summer', 'Northern Line', 'Copper Sky',
  'Open Windows', 'Quiet Hours', 'Salt and Honey', 'Blue Hour', 'Weathervane', 'Saturday Static', 'Wild Orchard',
  'Neon Rain', 'Second Wind', 'Small Victories', 'Tidewater', 'Long Way Round', 'Morning Radio', 'Kite Strings',
  'Lemon Trees', 'Afterglow', 'Tin Roof Rain', 'Starling', 'Gold Coast', 'Fireflies', 'Parallel Streets',
] as const;

export const PLAYLIST_THEMES = [
  'Road Trip', 'Sunday Morning', 'Focus Mix', 'Evening Chill', 'Running Beats', 'Rainy Day', 'Kitchen Disco', 'Deep Work',
  'Summer Nights', 'Throwbacks',
] as const;

export const SeedSong = z.object({ title: z.string().min(1), artist: z.string().min(1), durationMs: z.int().min(1000) });
export type SeedSong = z.infer<typeof SeedSong>;

export function playlistName(rng: Rng): string {
  return `${rng.pick(PLAYLIST_THEMES)} ${rng.int(1, 999)}`;
}

export function drawSongs(rng: Rng, titles: readonly string[], minMs = 180_000, maxMs = 300_000): SeedSong[] {
  return titles.map((title) => ({ title, artist: rng.pick(FIRST_NAMES), durationMs: rng.int(minMs, maxMs) }));
}

/** Clears the music folder, the playlists and the playing queue, then writes one MP3 per song. */
export async function installSongs(device: Device, songs: readonly SeedSong[]): Promise<void> {
  await clearDir(device, MUSIC_DIR);
  await sqlExec(device, PLAYLIST_DB, 'DELETE FROM SongEntity; DELETE FROM PlaylistEntity;');
  await sqlExec(device, PLAYBACK_DB, 'DELETE FROM playing_queue; DELETE FROM original_playing_queue;');
  await shellOk(device, shellCommand('rm', '-f', ...songs.map((s) => `${DOWNLOAD_DIR}/${s.title}.m3u`)));
  for (const s of songs) {
    const data = mp3File(s);
    const path = `${MUSIC_DIR}/${s.title}.mp3`;
    if (isFileWritable(device)) await device.writeFile(path, data);
    else await shellOk(device, `echo ${data.toString('base64')} | base64 -d > ${shellCommand(path)}`);
  }
}

export interface PlaylistRow { name: string; title: string; duration: number }

/** Every playlist's songs in order (song_key), as AndroidWorld's join reads them. */
export async function playlistRows(device: Device): Promise<PlaylistRow[]> {
  const rows = await sqlObjects(device, PLAYLIST_DB, ['playlist_name', 'title', 'duration'] as const,
    'PlaylistEntity pe JOIN SongEntity se ON pe.playlist_id = se.playlist_creator_id ORDER BY pe.playlist_name, se.song_key');
  return rows.map((r) => ({ name: String(r.playlist_name), title: String(r.title), duration: Number(r.duration) }));
}

export async function queueTitles(device: Device): Promise<string[]> {
  return (await sqlObjects(device, PLAYBACK_DB, ['title'] as const, 'playing_queue ORDER BY rowid')).map((r) => String(r.title));
}

export function songsOf(rows: readonly PlaylistRow[], name: string): PlaylistRow[] {
  return rows.filter((r) => r.name.toLowerCase() === name.toLowerCase());
}

export const retroOpen: Subgoal = { name: 'Retro Music open', check: async ({ obs }) => inActivity(obs, RETRO_PKG) };

// ------------------------------------------------------------------ oracle moves

type Steps<T = void> = Generator<Action, T, void>;

function within(el: UiElement, box: UiElement): boolean {
  for (let e: UiElement | null = el; e; e = e.parent) if (e === box) return true;
  return false;
}

/** The Songs tab with the song's row on screen: scrolls up to the top, then down, until it shows. */
export function* findSong(ui: OracleUi, title: string): Steps<UiElement> {
  const sel = { resourceId: 'title', text: title };
  for (const direction of ['up', 'down'] as const) {
    for (let i = 0; i < 30 && !ui.exists(sel); i++) {
      const before = ui.fingerprint();
      yield ui.scroll(direction, { resourceId: 'recycler_view' });
      if (ui.fingerprint() === before) break;
    }
  }
  return ui.require(sel, `song "${title}"`);
}

/** Opens a song row's "More options" menu in the Songs tab. */
export function* songMenu(ui: OracleUi, title: string): Steps {
  const label = yield* findSong(ui, title);
  const rowEl = label.parent?.parent ?? label;
  const menu = ui.findAll({ contentDesc: 'More options' }).find((m) => within(m, rowEl));
  if (!menu) throw new OracleError(`Oracle found no menu on the row of "${title}"`, screenSummary(ui.obs));
  yield ui.tap(menu);
}

export function* openRetroSongs(ui: OracleUi): Steps {
  yield* launch(ui, 'Retro Music');
  if (ui.exists({ contentDesc: 'Navigate up' })) yield ui.back();
  if (ui.exists({ contentDesc: 'Navigate up' })) yield ui.back();
  yield ui.tap({ contentDesc: 'Songs' });
}

/** Playlists tab → New playlist → name → Create, then back to Songs. */
export function* newPlaylist(ui: OracleUi, name: string): Steps {
  yield ui.tap({ contentDesc: 'Playlists' });
  yield ui.tap({ contentDesc: 'New playlist' });
  yield ui.type({ resourceId: 'actionNewPlaylist' }, name);
  yield ui.tap({ text: 'Create' });
  yield ui.tap({ contentDesc: 'Songs' });
}

export function* addToPlaylist(ui: OracleUi, title: string, playlist: string): Steps {
  yield* songMenu(ui, title);
  yield ui.tap({ text: 'Add to playlist…' });
  yield ui.tap({ text: playlist });
}

/** Every song in the Songs tab with its length (ms, from the row's m:ss), scrolling down from the top. */
export function* readLibrary(ui: OracleUi): Steps<Array<{ title: string; ms: number }>> {
  const seen = new Map<string, number>();
  for (let i = 0; i < 30; i++) {
    for (const t of ui.findAll({ resourceId: 'title' })) {
      const row = t.parent?.parent;
      const meta = row ? ui.obs.elements.find((e) => within(e, row) && /^\d+:\d{2}(:\d{2})?$/.test(e.node.text)) : undefined;
      if (meta) seen.set(t.node.text, meta.node.text.split(':').reduce((acc, part) => acc * 60 + Number(part), 0) * 1000);
    }
    const before = ui.fingerprint();
    yield ui.scroll('down', { resourceId: 'recycler_view' });
    if (ui.fingerprint() === before) break;
  }
  return [...seen].map(([title, ms]) => ({ title, ms }));
}
