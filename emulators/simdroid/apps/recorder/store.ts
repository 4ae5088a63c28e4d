import type { Db } from '../../system/databases.js';
import type { FileSystem } from '../../system/fs.js';
import { EXTERNAL_STORAGE } from '../../system/fs.js';
import { formatOf, readPrefs, writePrefs, RECORDER_PKG, type Format, type Prefs } from './prefs.js';

/**
 * Audio Recorder's records: a row per recording in record.db (table `records`) and the audio file
 * in the app's own external files folder, Android/data/com.dimowner.audiorecorder/files/Music/records
 * (where the APK AndroidWorld installs keeps them; AndroidWorld's checkers list that folder). Saving, renaming and deleting keep both in step, as the
 * app's LocalRepository and FileRepository do together.
 */
export const RECORD_DB = `/data/data/${RECORDER_PKG}/databases/record.db`;
export const RECORDS_DIR = `${EXTERNAL_STORAGE}/Android/data/${RECORDER_PKG}/files/Music/records`;

export const RECORD_SCHEMA = `
CREATE TABLE records (
  _id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  duration INTEGER NOT NULL,
  created INTEGER NOT NULL,
  added INTEGER NOT NULL,
  path TEXT NOT NULL,
  format TEXT NOT NULL,
  size INTEGER NOT NULL,
  sample_rate INTEGER NOT NULL,
  channel_count INTEGER NOT NULL,
  bitrate INTEGER NOT NULL,
  bookmark INTEGER NOT NULL DEFAULT 0
);
`;

export interface RecordRow {
  _id: number;
  name: string;
  /** Milliseconds. */
  duration: number;
  created: number;
  added: number;
  path: string;
  format: string;
  size: number;
  sample_rate: number;
  channel_count: number;
  bitrate: number;
  bookmark: number;
}

/** Records list orders (PrefsImpl's pref_records_order), with the sort menu's labels. */
export const ORDERS: ReadonlyArray<[number, string, string]> = [
  [1, 'By date (newest)', 'added DESC, _id DESC'],
  [2, 'By date (oldest)', 'added ASC, _id ASC'],
  [3, 'By name (A-Z)', 'name COLLATE NOCASE ASC, _id ASC'],
  [4, 'By name (Z-A)', 'name COLLATE NOCASE DESC, _id DESC'],
  [5, 'By duration (longest)', 'duration DESC, _id DESC'],
  [6, 'By duration (shortest)', 'duration ASC, _id ASC'],
];

export function orderLabel(order: number): string {
  return (ORDERS.find(([o]) => o === order) ?? ORDERS[0]!)[1];
}

export function listRecords(db: Db, order = 1, bookmarkedOnly = false): RecordRow[] {
  const sql = (ORDERS.find(([o]) => o === order) ?? ORDERS[0]!)[2];
  return db.prepare(`SELECT * FROM records ${bookmarkedOnly ? 'WHERE bookmark = 1' : ''} ORDER BY ${sql}`).all() as RecordRow[];
}

export function getRecord(db: Db, id: number): RecordRow | undefined {
  return db.prepare('SELECT * FROM records WHERE _id = ?').get(id) as RecordRow | undefined;
}

/** "00:05", or "1:02:03" past an hour, as the app's TimeUtils formats durations. */
export function formatDuration(ms: number): string {
  const total = Math.floor(Math.max(0, ms) / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const mmss = `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
  return h > 0 ? `${h}:${mmss}` : mmss;
}

export function formatBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(2)} kB`;
  return `${(n / 1_000_000).toFixed(2)} MB`;
}

const FORMAT_LABEL: Record<string, string> = { m4a: 'M4a', wav: 'Wav', '3gp': '3gp' };

/** "M4a, 44.1kHz, 128kbps, Stereo" (wav has no bitrate). */
export function recordInfo(format: string, sampleRate: number, bitrate: number, channels: number): string {
  const rate = sampleRate % 1000 === 0 ? `${sampleRate / 1000}kHz` : `${(sampleRate / 1000).toFixed(1)}kHz`;
  const parts = [FORMAT_LABEL[format] ?? format, rate];
  if (format !== 'wav') parts.push(`${bitrate / 1000}kbps`);
  parts.push(channels === 1 ? 'Mono' : 'Stereo');
  return parts.join(', ');
}

/**
 * Placeholder audio bytes: a container header and a body that grows with the duration (1/100 of
 * the real data rate, so files stay small but longer recordings are bigger).
 */
export function audioBytes(format: Format, durationMs: number, sampleRate: number, bitrate: number, channels: number): Buffer {
  const bytesPerSec = format === 'wav' ? sampleRate * channels * 2 : bitrate / 8;
  const body = Math.max(1, Math.round((bytesPerSec * durationMs) / 1000 / 100));
  const header = format === 'wav' ? 'RIFF\0\0\0\0WAVEfmt ' : format === '3gp' ? '\0\0\0\x18ftyp3gp4' : '\0\0\0\x18ftypM4A ';
  return Buffer.concat([Buffer.from(header, 'latin1'), Buffer.alloc(body, 0)]);
}

const FORMATS_ON_DISK = ['m4a', 'wav', '3gp'];

/** The next "Record-N": above the saved counter and above any name or file already taken. */
export function nextRecordName(db: Db, fs: FileSystem, prefs: Prefs): string {
  let n = Number(prefs.record_counter);
  for (const { name } of db.prepare('SELECT name FROM records').all() as Array<{ name: string }>) {
    const m = /^Record-(\d+)$/.exec(name);
    if (m) n = Math.max(n, Number(m[1]));
  }
  let name = `Record-${n + 1}`;
  while (FORMATS_ON_DISK.some((ext) => fs.exists(`${RECORDS_DIR}/${name}.${ext}`))) name = `Record-${++n + 1}`;
  return name;
}

/** Saves a finished recording (file and row) with the current settings; returns its id. */
export function saveRecording(db: Db, fs: FileSystem, durationMs: number, now: number): number {
  const prefs = readPrefs(fs);
  const format = formatOf(prefs);
  const name = nextRecordName(db, fs, prefs);
  const path = `${RECORDS_DIR}/${name}.${format}`;
  const rate = Number(prefs.setting_sample_rate);
  const bitrate = Number(prefs.setting_bitrate);
  const channels = Number(prefs.setting_channel_count);
  const data = audioBytes(format, durationMs, rate, bitrate, channels);
  fs.writeFile(path, data, { parents: true });
  const r = db.prepare(
    `INSERT INTO records (name, duration, created, added, path, format, size, sample_rate, channel_count, bitrate, bookmark)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)`,
  ).run(name, durationMs, now - durationMs, now, path, format, data.length, rate, channels, bitrate);
  const id = Number(r.lastInsertRowid);
  const counter = Number(/^Record-(\d+)$/.exec(name)![1]);
  writePrefs(fs, { record_counter: counter, active_record: id });
  return id;
}

/** Why a record cannot take a name, or null when the rename was done. */
export function renameRecord(db: Db, fs: FileSystem, id: number, newName: string): 'empty' | 'exists' | 'invalid' | null {
  const rec = getRecord(db, id);
  if (!rec) return null;
  const name = newName.trim();
  if (!name) return 'empty';
  if (/[/\\:*?"<>|]/.test(name)) return 'invalid';
  if (name === rec.name) return null;
  const dir = rec.path.slice(0, rec.path.lastIndexOf('/'));
  const path = `${dir}/${name}.${rec.format}`;
  const taken = db.prepare('SELECT 1 FROM records WHERE name = ? AND format = ? AND _id != ?').get(name, rec.format, id);
  if (taken || fs.exists(path)) return 'exists';
  if (fs.exists(rec.path)) fs.rename(rec.path, path);
  db.prepare('UPDATE records SET name = ?, path = ? WHERE _id = ?').run(name, path, id);
  return null;
}

export function deleteRecord(db: Db, fs: FileSystem, id: number): void {
  const rec = getRecord(db, id);
  if (!rec) return;
  if (fs.exists(rec.path)) fs.remove(rec.path);
  db.prepare('DELETE FROM records WHERE _id = ?').run(id);
  if (Number(readPrefs(fs).active_record) === id) writePrefs(fs, { active_record: -1 });
}

export function toggleBookmark(db: Db, id: number): void {
  db.prepare('UPDATE records SET bookmark = 1 - bookmark WHERE _id = ?').run(id);
}

/** The record the main screen shows: the active one, else the newest. */
export function activeRecord(db: Db, fs: FileSystem): RecordRow | undefined {
  const id = Number(readPrefs(fs).active_record);
  return (id >= 0 ? getRecord(db, id) : undefined) ?? listRecords(db, 1)[0];
}

/** "Download": copies the recording into the public Download folder; the toast text it leads to. */
export function downloadRecord(fs: FileSystem, rec: RecordRow): string {
  const file = rec.path.slice(rec.path.lastIndexOf('/') + 1);
  const target = `${EXTERNAL_STORAGE}/Download/${file}`;
  if (!fs.exists(rec.path)) return `Failed to download: ${rec.name}`;
  if (fs.exists(target)) return `Failed to download. File with name ${file} already exists`;
  fs.writeFile(target, fs.readFile(rec.path), { parents: true });
  return `${file} downloaded to the Download directory`;
}
