import type { SystemServices } from '../../runtime/app.js';
import type { Db } from '../../system/databases.js';
import { basename, dirname, EXTERNAL_STORAGE, type FileSystem } from '../../system/fs.js';
import { readAudioInfo, type AudioInfo } from './audio-file.js';

/**
 * Retro Music's data. Songs are the audio files on shared storage with what a media scan reads from
 * them (title and artist tags, duration); Retro lists them sorted by title. Playlists live in the
 * app's Room database `playlist.db` (PlaylistEntity, SongEntity: a playlist's songs in `song_key`
 * order, each a copy of the song's fields), and the playing queue in `music_playback_state.db`
 * (tables `playing_queue` and `original_playing_queue`, one row per queued song in order), the
 * tables and columns AndroidWorld's checks read.
 */
export const RETRO_PKG = 'code.name.monkey.retromusic';
export const PLAYLIST_DB = '/data/data/code.name.monkey.retromusic/databases/playlist.db';
export const PLAYBACK_DB = '/data/data/code.name.monkey.retromusic/databases/music_playback_state.db';

export const PLAYLIST_SCHEMA = `
CREATE TABLE PlaylistEntity (playlist_id INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, playlist_name TEXT NOT NULL);
CREATE TABLE SongEntity (song_key INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, playlist_creator_id INTEGER NOT NULL,
  id INTEGER NOT NULL, title TEXT NOT NULL, track_number INTEGER NOT NULL, year INTEGER NOT NULL, duration INTEGER NOT NULL,
  data TEXT NOT NULL, date_modified INTEGER NOT NULL, album_id INTEGER NOT NULL, album_name TEXT NOT NULL,
  artist_id INTEGER NOT NULL, artist_name TEXT NOT NULL, composer TEXT, album_artist TEXT);
CREATE UNIQUE INDEX index_SongEntity_playlist_creator_id_id ON SongEntity (playlist_creator_id, id);
CREATE TABLE HistoryEntity (id INTEGER PRIMARY KEY NOT NULL, title TEXT NOT NULL, time_played INTEGER NOT NULL);
`;

const QUEUE_COLUMNS = `_id INT NOT NULL, title STRING NOT NULL, track INT NOT NULL, year INT NOT NULL, duration LONG NOT NULL,
  _data STRING NOT NULL, date_modified LONG NOT NULL, album_id INT NOT NULL, album STRING NOT NULL, artist_id INT NOT NULL,
  artist STRING NOT NULL, composer STRING, album_artist STRING`;
export const PLAYBACK_SCHEMA = `
CREATE TABLE IF NOT EXISTS playing_queue (${QUEUE_COLUMNS});
CREATE TABLE IF NOT EXISTS original_playing_queue (${QUEUE_COLUMNS});
`;

/**
 * The playback database, created when missing as MusicPlaybackQueueStore (an SQLiteOpenHelper)
 * does on first use: AndroidWorld's database pushes empty the whole databases folder.
 */
export function playbackDb(sys: SystemServices): Db {
  const db = sys.db(PLAYBACK_DB);
  db.exec(PLAYBACK_SCHEMA);
  return db;
}

export interface Song {
  /** The media id (stable per path). */
  id: number;
  path: string;
  title: string;
  artist: string;
  album: string;
  track: number;
  year: number;
  durationMs: number;
  dateModified: number;
}

const AUDIO = /\.(mp3|m4a|aac|ogg|opus|flac|wav)$/i;
/** Tag reads by file content (an fs entry's data never changes in place). */
const scanned = new WeakMap<Buffer, AudioInfo>();

function idOf(s: string): number {
  let h = 0x811c9dc5;
  for (const ch of s) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return (h & 0x7fffffff) || 1;
}

function toSong(path: string, data: Buffer, mtime: number): Song {
  let info = scanned.get(data);
  if (!info) {
    info = readAudioInfo(data);
    scanned.set(data, info);
  }
  const name = basename(path);
  return {
    id: idOf(path), path, title: info.title ?? name.replace(/\.[^.]+$/, ''), artist: info.artist ?? '<unknown>',
    album: info.album ?? basename(dirname(path)), track: info.track, year: info.year, durationMs: info.durationMs,
    dateModified: Math.floor(mtime / 1000),
  };
}

/** Every song on shared storage, sorted by title (Retro's default song order). */
export function allSongs(fs: FileSystem): Song[] {
  const songs: Song[] = [];
  for (const path of fs.walk(EXTERNAL_STORAGE)) {
    if (!AUDIO.test(path)) continue;
    const e = fs.stat(path);
    if (e?.type === 'file') songs.push(toSong(path, e.data, e.mtime));
  }
  return songs.sort((a, b) => a.title.localeCompare(b.title, 'en', { sensitivity: 'base' }) || a.path.localeCompare(b.path));
}

export function songAt(fs: FileSystem, path: string): Song | undefined {
  const e = fs.stat(path);
  return e?.type === 'file' ? toSong(path, e.data, e.mtime) : undefined;
}

/** "3:07", or "1:02:03" past an hour, as MusicUtil.getReadableDurationString writes it. */
export function duration(ms: number): string {
  const total = Math.floor(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

// ------------------------------------------------------------------ playlists

export interface Playlist {
  playlist_id: number;
  playlist_name: string;
}

export function playlists(db: Db): Playlist[] {
  return db.prepare('SELECT playlist_id, playlist_name FROM PlaylistEntity ORDER BY playlist_name COLLATE NOCASE, playlist_id').all() as Playlist[];
}

export function playlist(db: Db, id: number): Playlist | undefined {
  return db.prepare('SELECT playlist_id, playlist_name FROM PlaylistEntity WHERE playlist_id = ?').get(id) as Playlist | undefined;
}

export function createPlaylist(db: Db, name: string): number {
  return Number(db.prepare('INSERT INTO PlaylistEntity (playlist_name) VALUES (?)').run(name).lastInsertRowid);
}

export function deletePlaylist(db: Db, id: number): void {
  db.prepare('DELETE FROM SongEntity WHERE playlist_creator_id = ?').run(id);
  db.prepare('DELETE FROM PlaylistEntity WHERE playlist_id = ?').run(id);
}

/** A playlist's songs in order, as stored (their copy of each song's fields). */
export function playlistSongs(db: Db, id: number): Song[] {
  const rows = db.prepare(`SELECT id, data, title, artist_name, album_name, track_number, year, duration, date_modified
    FROM SongEntity WHERE playlist_creator_id = ? ORDER BY song_key`).all(id) as Array<Record<string, string | number>>;
  return rows.map((r) => ({
    id: Number(r.id), path: String(r.data), title: String(r.title), artist: String(r.artist_name), album: String(r.album_name),
    track: Number(r.track_number), year: Number(r.year), durationMs: Number(r.duration), dateModified: Number(r.date_modified),
  }));
}

/** Adds songs at the playlist's end; a song already in it is skipped (the unique index), as Retro does. Returns how many were added. */
export function addToPlaylist(db: Db, id: number, songs: readonly Song[]): number {
  const ins = db.prepare(`INSERT OR IGNORE INTO SongEntity (playlist_creator_id, id, title, track_number, year, duration, data,
    date_modified, album_id, album_name, artist_id, artist_name, composer, album_artist) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  let added = 0;
  db.transaction(() => {
    for (const s of songs) {
      added += ins.run(id, s.id, s.title, s.track, s.year, s.durationMs, s.path, s.dateModified, idOf(s.album), s.album, idOf(s.artist), s.artist, null, null).changes;
    }
  })();
  return added;
}

/** The playlist as an M3U file (#EXTINF with seconds and "artist - title", then the path). */
export function m3u(songs: readonly Song[]): string {
  return `#EXTM3U\n${songs.map((s) => `#EXTINF:${Math.round(s.durationMs / 1000)},${s.artist} - ${s.title}\n${s.path}\n`).join('')}`;
}

// ------------------------------------------------------------------ playing queue

export function queue(db: Db): Song[] {
  const rows = db.prepare('SELECT _id, _data, title, artist, album, track, year, duration, date_modified FROM playing_queue ORDER BY rowid')
    .all() as Array<Record<string, string | number>>;
  return rows.map((r) => ({
    id: Number(r._id), path: String(r._data), title: String(r.title), artist: String(r.artist), album: String(r.album),
    track: Number(r.track), year: Number(r.year), durationMs: Number(r.duration), dateModified: Number(r.date_modified),
  }));
}

/** Saves the queue (both tables, as MusicPlaybackQueueStore.saveQueues does with shuffle off). */
export function saveQueue(db: Db, songs: readonly Song[]): void {
  db.transaction(() => {
    for (const table of ['playing_queue', 'original_playing_queue']) {
      db.prepare(`DELETE FROM ${table}`).run();
      const ins = db.prepare(`INSERT INTO ${table} (_id, title, track, year, duration, _data, date_modified, album_id, album, artist_id,
        artist, composer, album_artist) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
      for (const s of songs) ins.run(s.id, s.title, s.track, s.year, s.durationMs, s.path, s.dateModified, idOf(s.album), s.album, idOf(s.artist), s.artist, null, null);
    }
  })();
}
