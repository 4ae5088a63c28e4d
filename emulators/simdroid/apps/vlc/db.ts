import type { Db } from '../../system/databases.js';
import type { FileSystem } from '../../system/fs.js';
import { basename, EXTERNAL_STORAGE } from '../../system/fs.js';

/**
 * VLC's media library (libvlc medialibrary), `app_db/vlc_media.db`, in the subset of its schema that
 * AndroidWorld reads: `Media` (one row per indexed file, `filename` its base name), `Playlist`
 * (`id_playlist`, `name`) and `PlaylistMediaRelation` (`media_id`, `playlist_id`, `position`).
 * AndroidWorld empties the three tables and pushes videos to /sdcard/VLCVideos; the app indexes a
 * file (a Media row) when it is first put in a playlist, as the real library indexes what it finds.
 */
export const VLC_PKG = 'org.videolan.vlc';
export const VLC_DB = '/data/data/org.videolan.vlc/app_db/vlc_media.db';
/** Where AndroidWorld's VLC templates put their videos (apps.VlcApp.videos_path). */
export const VLC_VIDEOS_DIR = `${EXTERNAL_STORAGE}/VLCVideos`;

export const VLC_SCHEMA = `
CREATE TABLE Media (id_media INTEGER PRIMARY KEY AUTOINCREMENT, type INTEGER, subtype INTEGER, duration INTEGER DEFAULT -1,
  last_position REAL DEFAULT -1, play_count UNSIGNED INTEGER, insertion_date UNSIGNED INT, title TEXT, filename TEXT, mrl TEXT,
  is_favorite BOOLEAN NOT NULL DEFAULT 0, is_present BOOLEAN NOT NULL DEFAULT 1, nb_playlists UNSIGNED INTEGER NOT NULL DEFAULT 0);
CREATE TABLE Playlist (id_playlist INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT COLLATE NOCASE, file_id UNSIGNED INT DEFAULT NULL,
  creation_date UNSIGNED INT NOT NULL, artwork_mrl TEXT, nb_video UNSIGNED INTEGER NOT NULL DEFAULT 0,
  nb_audio UNSIGNED INTEGER NOT NULL DEFAULT 0, nb_unknown UNSIGNED INTEGER NOT NULL DEFAULT 0);
CREATE TABLE PlaylistMediaRelation (media_id INTEGER, mrl STRING, playlist_id INTEGER, position INTEGER);
`;

const VIDEO_EXTENSIONS = ['.mp4', '.mkv', '.avi', '.webm', '.3gp', '.mov', '.m4v', '.mpg', '.mpeg', '.ts'];

export interface VideoFile {
  path: string;
  /** What VLC shows: the file name without its extension (these files carry no title tag). */
  title: string;
  size: number;
}

export function isVideo(name: string): boolean {
  const n = name.toLowerCase();
  return VIDEO_EXTENSIONS.some((e) => n.endsWith(e));
}

export function titleOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(0, dot) : name;
}

/** Every video in shared storage (apps' private Android/ folder aside), by title, as the Video tab lists them. */
export function scanVideos(fs: FileSystem): VideoFile[] {
  const skip = `${EXTERNAL_STORAGE}/Android/`;
  return fs.walk(EXTERNAL_STORAGE)
    .filter((p) => !p.startsWith(skip) && isVideo(basename(p)))
    .map((p) => ({ path: p, title: titleOf(basename(p)), size: fs.size(p) }))
    .sort((a, b) => a.title.localeCompare(b.title, 'en', { sensitivity: 'base' }) || a.path.localeCompare(b.path));
}

export interface PlaylistRow {
  id_playlist: number;
  name: string;
  count: number;
}

export function playlists(db: Db): PlaylistRow[] {
  return db.prepare(`SELECT p.id_playlist, p.name, (SELECT COUNT(*) FROM PlaylistMediaRelation r WHERE r.playlist_id = p.id_playlist) AS count
    FROM Playlist p ORDER BY p.name COLLATE NOCASE, p.id_playlist`).all() as PlaylistRow[];
}

export interface PlaylistItem {
  filename: string;
  title: string;
  position: number;
}

export function playlistItems(db: Db, id: number): PlaylistItem[] {
  return db.prepare(`SELECT m.filename, m.title, r.position FROM PlaylistMediaRelation r JOIN Media m ON m.id_media = r.media_id
    WHERE r.playlist_id = ? ORDER BY r.position`).all(id) as PlaylistItem[];
}

export function playlistName(db: Db, id: number): string | undefined {
  return (db.prepare('SELECT name FROM Playlist WHERE id_playlist = ?').get(id) as { name: string } | undefined)?.name;
}

/** The Media row of a file, indexing it first when the library has not yet. */
function mediaId(db: Db, v: VideoFile, now: number): number {
  const mrl = `file://${v.path}`;
  const row = db.prepare('SELECT id_media FROM Media WHERE mrl = ?').get(mrl) as { id_media: number } | undefined;
  if (row) return row.id_media;
  const r = db.prepare('INSERT INTO Media (type, subtype, play_count, insertion_date, title, filename, mrl) VALUES (1, 0, 0, ?, ?, ?, ?)')
    .run(Math.floor(now / 1000), v.title, basename(v.path), mrl);
  return Number(r.lastInsertRowid);
}

/** A new playlist by name (or the one of that name, case aside), returning its id. */
export function playlistNamed(db: Db, name: string, now: number): number {
  const row = db.prepare('SELECT id_playlist FROM Playlist WHERE name = ? COLLATE NOCASE').get(name) as { id_playlist: number } | undefined;
  if (row) return row.id_playlist;
  return Number(db.prepare('INSERT INTO Playlist (name, creation_date) VALUES (?, ?)').run(name, Math.floor(now / 1000)).lastInsertRowid);
}

/** Appends videos to a playlist in the order given (positions continue after its last item). */
export function appendToPlaylist(db: Db, id: number, videos: readonly VideoFile[], now: number): void {
  db.transaction(() => {
    const last = db.prepare('SELECT MAX(position) AS p FROM PlaylistMediaRelation WHERE playlist_id = ?').get(id) as { p: number | null };
    let pos = last.p === null ? 0 : last.p + 1;
    for (const v of videos) {
      const media = mediaId(db, v, now);
      db.prepare('INSERT INTO PlaylistMediaRelation (media_id, mrl, playlist_id, position) VALUES (?, ?, ?, ?)').run(media, `file://${v.path}`, id, pos++);
      db.prepare('UPDATE Media SET nb_playlists = nb_playlists + 1 WHERE id_media = ?').run(media);
    }
    db.prepare('UPDATE Playlist SET nb_video = (SELECT COUNT(*) FROM PlaylistMediaRelation WHERE playlist_id = ?) WHERE id_playlist = ?').run(id, id);
  })();
}

export function deletePlaylist(db: Db, id: number): void {
  db.transaction(() => {
    db.prepare('DELETE FROM PlaylistMediaRelation WHERE playlist_id = ?').run(id);
    db.prepare('DELETE FROM Playlist WHERE id_playlist = ?').run(id);
  })();
}
