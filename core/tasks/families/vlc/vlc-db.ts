import type { Device } from '../../../device/device.js';
import type { Rng } from '../../../util/rng.js';
import { clearDir, SDCARD, writeText } from '../../validators/files.js';
import { sqlExec, sqlObjects, sqlNumber, sqlText } from '../../validators/sqlite.js';
import { condition, countIs, type CheckCondition } from '../../verdict.js';

/**
 * VLC's state as checkers read it through `sqlite3` on the device: the media library's
 * app_db/vlc_media.db, joined as AndroidWorld's VLC templates join it (vlc.py's playlist query).
 */
export const VLC_PKG = 'org.videolan.vlc';
export const VLC_DB_PATH = '/data/data/org.videolan.vlc/app_db/vlc_media.db';
export const VLC_VIDEOS = `${SDCARD}/VLCVideos`;

export interface PlaylistEntry {
  playlist: string;
  file: string;
  position: number;
}

const JOIN = `PlaylistMediaRelation INNER JOIN Playlist ON Playlist.id_playlist = PlaylistMediaRelation.playlist_id
  INNER JOIN Media ON Media.id_media = PlaylistMediaRelation.media_id ORDER BY Playlist.name, PlaylistMediaRelation.position`;

export async function playlistEntries(device: Device): Promise<PlaylistEntry[]> {
  const rows = await sqlObjects(device, VLC_DB_PATH, ['Playlist.name', 'Media.filename', 'PlaylistMediaRelation.position'] as const, JOIN);
  return rows.map((r) => ({ playlist: sqlText(r, 'Playlist.name') ?? '', file: sqlText(r, 'Media.filename') ?? '', position: sqlNumber(r, 'PlaylistMediaRelation.position') }));
}

/** Empties the three tables AndroidWorld clears (Playlist, Media, PlaylistMediaRelation). */
export async function clearPlaylists(device: Device): Promise<void> {
  await sqlExec(device, VLC_DB_PATH, 'DELETE FROM Playlist; DELETE FROM Media; DELETE FROM PlaylistMediaRelation;');
}

/** Empties VLCVideos and writes the videos there (short placeholder bytes: nothing here decodes them). */
export async function resetVideos(device: Device, files: readonly string[]): Promise<void> {
  await clearDir(device, VLC_VIDEOS);
  for (const f of files) await writeText(device, `${VLC_VIDEOS}/${f}`, `video ${f}`);
}

/**
 * The playlist named `name` (case aside) holds exactly `files`, in that order — AndroidWorld's
 * verify_playlist, without its fuzzy name match.
 */
export function playlistConditions(entries: readonly PlaylistEntry[], name: string, files: readonly string[]): CheckCondition[] {
  const mine = entries.filter((e) => e.playlist.trim().toLowerCase() === name.trim().toLowerCase()).sort((a, b) => a.position - b.position);
  return [
    countIs(`playlist "${name}" has ${files.length} videos`, files.length, mine.length),
    condition(`playlist "${name}" holds the videos in order`, files.join(', '), mine.map((e) => e.file).join(', ') || 'none'),
  ];
}

// Names in AndroidWorld's pattern (vlc.py generate_file_name, user_data_generation.generate_modified_file_name).
const PREFIXES = ['clip', 'footage', 'scene', 'recording', 'highlight', 'moment', 'episode'];
const SUFFIXES = ['', 'HD', '4K', 'raw', 'export'];
const MODS = ['backup', 'copy', 'final', 'edited'];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789';

export function videoFileName(rng: Rng): string {
  const base = `${rng.pick(PREFIXES)}_${rng.int(1, 99)}_${rng.pick(SUFFIXES)}`;
  const kind = rng.int(0, 2);
  const mod = kind === 0
    ? `${rng.int(2020, 2023)}_${String(rng.int(1, 12)).padStart(2, '0')}_${String(rng.int(1, 28)).padStart(2, '0')}`
    : kind === 1 ? Array.from({ length: 4 }, () => rng.pick([...LETTERS])).join('') : rng.pick(MODS);
  return rng.chance(0.5) ? `${mod}_${base}.mp4` : `${base}_${mod}.mp4`;
}

/** Distinct video names, none of them in `avoid`. */
export function videoFileNames(rng: Rng, n: number, avoid: readonly string[] = []): string[] {
  const out: string[] = [];
  while (out.length < n) {
    const f = videoFileName(rng);
    if (!out.includes(f) && !avoid.includes(f)) out.push(f);
  }
  return out;
}

const THEMES = ['Adventure', 'Comedy', 'Daily Routines', 'Documentary Insights', 'Epic Moments', 'Family Gatherings', 'Fitness Challenges',
  'Gaming Sessions', 'How To', 'Mystery and Thrills', 'Recipe Collection', 'Road Trips', 'Summer Highlights', 'Tech Reviews', 'Travel Guide', 'Ultimate Fails'];
const QUALIFIERS = ['Essentials', 'Favorites', 'Marathon', 'Playlist', 'Series', 'Specials', 'Ultimate Collection'];

export function playlistTitle(rng: Rng): string {
  return `${rng.pick(THEMES)} ${rng.pick(QUALIFIERS)}`;
}
