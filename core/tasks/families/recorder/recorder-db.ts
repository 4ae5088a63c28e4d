import { z } from 'zod';
import type { Action } from '../../../actions/schema.js';
import type { Device } from '../../../device/device.js';
import { launch, type OracleUi } from '../../oracle.js';
import type { Rng } from '../../../util/rng.js';
import { DEVICE_NOW } from '../../../seed-data/dates.js';
import { RECORDING_NAMES } from '../../../seed-data/file-names.js';
import type { Subgoal } from '../../task.js';
import { clearDir, listDir, readText, SDCARD, writeText } from '../../validators/files.js';
import { sqlExec, sqlInsert, sqlObjects } from '../../validators/sqlite.js';
import { inActivity } from '../../validators/ui.js';
import { condition, countIs, eachHolds, holds, listed, type CheckCondition } from '../../verdict.js';

/**
 * Audio Recorder's state as checkers see it on a device: rows of `records` in record.db (through
 * sqlite3), the audio files in the app's Android/data/…/files/Music/records folder (through ls), and the app's SharedPreferences XML
 * (through cat). Seeding writes all three through the shell.
 */
export const RECORDER_PKG = 'com.dimowner.audiorecorder';
export const RECORDER_MAIN = 'com.dimowner.audiorecorder.app.main.MainActivity';
export const RECORDS_ACTIVITY = 'com.dimowner.audiorecorder.app.records.RecordsActivity';
export const SETTINGS_ACTIVITY = 'com.dimowner.audiorecorder.app.settings.SettingsActivity';
export const RECORD_DB = `/data/data/${RECORDER_PKG}/databases/record.db`;
export const RECORDS_DIR = `${SDCARD}/Android/data/${RECORDER_PKG}/files/Music/records`;
export const PREFS_FILE = `/data/data/${RECORDER_PKG}/shared_prefs/com.dimowner.audiorecorder.data.PrefsImpl.xml`;

export const FORMATS = ['m4a', 'wav', '3gp'] as const;
export type Format = (typeof FORMATS)[number];
export const FORMAT_LABEL: Record<Format, string> = { m4a: 'M4a', wav: 'Wav', '3gp': '3gp' };

export const SeedRecord = z.object({
  name: z.string().min(1),
  durationMs: z.int().positive(),
  format: z.enum(FORMATS),
  bookmark: z.boolean(),
  /** Minutes before the device's boot time it was recorded. */
  ageMin: z.int().nonnegative(),
});
export type SeedRecord = z.infer<typeof SeedRecord>;

export interface RecordRow {
  _id: number;
  name: string;
  duration: number;
  path: string;
  format: string;
  size: number;
  bookmark: number;
}

export const recordPath = (name: string, format: string) => `${RECORDS_DIR}/${name}.${format}`;

/** Placeholder audio of a size that grows with the duration, like the app writes. */
function placeholderAudio(r: SeedRecord): string {
  const perSec = r.format === 'wav' ? 44100 * 2 * 2 : 128000 / 8;
  return `${r.format.toUpperCase()} audio `.padEnd(16 + Math.min(20_000, Math.round((perSec * r.durationMs) / 1000 / 1000)), '.');
}

/** Distinct recordings with distinct durations (3 s to 10 min), newest first. */
export function drawRecords(rng: Rng, count: number, exclude: Iterable<string> = []): SeedRecord[] {
  const names = rng.sample(RECORDING_NAMES.filter((n) => ![...exclude].includes(n)), count);
  const durations = new Set<number>();
  while (durations.size < count) durations.add(rng.int(3, 600) * 1000 + rng.int(0, 999));
  const ds = [...durations];
  let age = rng.int(30, 300);
  return names.map((name, i) => {
    const r = { name, durationMs: ds[i]!, format: rng.pick(['m4a', 'm4a', 'm4a', 'wav', '3gp'] as const), bookmark: rng.chance(0.2), ageMin: age };
    age += rng.int(60, 3000);
    return r;
  });
}

/** Empties the records table and folder, then writes each recording's file and row. */
export async function seedRecords(device: Device, records: readonly SeedRecord[]): Promise<void> {
  await sqlExec(device, RECORD_DB, "DELETE FROM records; DELETE FROM sqlite_sequence WHERE name = 'records';");
  await clearDir(device, RECORDS_DIR);
  const inserts: string[] = [];
  // Oldest first, so ids grow with time as in the app.
  for (const r of [...records].sort((a, b) => b.ageMin - a.ageMin)) {
    const data = placeholderAudio(r);
    await writeText(device, recordPath(r.name, r.format), data);
    const added = DEVICE_NOW - r.ageMin * 60_000;
    inserts.push(sqlInsert('records', {
      name: r.name, duration: r.durationMs, created: added - r.durationMs, added, path: recordPath(r.name, r.format), format: r.format,
      size: data.length, sample_rate: 44100, channel_count: 2, bitrate: 128000, bookmark: r.bookmark ? 1 : 0,
    }));
  }
  if (inserts.length) await sqlExec(device, RECORD_DB, inserts.join(' '));
}

export async function readRecords(device: Device): Promise<RecordRow[]> {
  const rows = await sqlObjects(device, RECORD_DB, ['_id', 'name', 'duration', 'path', 'format', 'size', 'bookmark'] as const, 'records ORDER BY _id');
  return rows.map((r) => ({
    _id: Number(r._id), name: String(r.name), duration: Number(r.duration), path: String(r.path), format: String(r.format),
    size: Number(r.size), bookmark: Number(r.bookmark),
  }));
}

/** Files in the records folder (empty when it is missing). */
export async function recordingFiles(device: Device): Promise<string[]> {
  return (await listDir(device, RECORDS_DIR)) ?? [];
}

/** A seeded recording still there, unchanged (row and file). */
function seedIntact(rows: readonly RecordRow[], files: readonly string[], s: SeedRecord): boolean {
  const row = rows.find((r) => r.name === s.name);
  return row !== undefined && row.duration === s.durationMs && row.format === s.format && row.bookmark === (s.bookmark ? 1 : 0)
    && row.path === recordPath(s.name, s.format) && files.includes(`${s.name}.${s.format}`);
}

/** The rows that are not seeded recordings. */
export function newRows(rows: readonly RecordRow[], seeded: readonly SeedRecord[]): RecordRow[] {
  return rows.filter((r) => !seeded.some((s) => s.name === r.name && s.durationMs === r.duration));
}

/** The seeded recordings (but those named in `except`) all still there, unchanged: found names the ones changed or gone. */
export function seededIntactCondition(rows: readonly RecordRow[], files: readonly string[], seeded: readonly SeedRecord[], except: readonly string[] = []): CheckCondition {
  const kept = seeded.filter((s) => !except.includes(s.name));
  return eachHolds(`the ${kept.length} ${except.length ? 'other ' : ''}recordings unchanged`, kept, (s) => seedIntact(rows, files, s), (s) => s.name);
}

/**
 * What is wrong with a saved recording, in words, or "saved" when nothing is (a row with a positive
 * duration and size, its path, and its file in place).
 */
function savedWords(r: RecordRow, files: readonly string[]): string {
  const wrong = [
    r.duration > 0 ? '' : `duration ${r.duration}`, r.size > 0 ? '' : 'size 0',
    r.path === recordPath(r.name, r.format) ? '' : `path ${r.path}`, files.includes(`${r.name}.${r.format}`) ? '' : 'no file',
  ].filter(Boolean);
  return wrong.length ? wrong.join(', ') : 'saved';
}

/**
 * The reasons of a new recording: the seeded ones intact, exactly one new row, saved with its file,
 * nothing else in the folder; `added` is the new row when there is exactly one.
 */
export function newRecordingConditions(rows: readonly RecordRow[], files: readonly string[], seeded: readonly SeedRecord[]): { conditions: CheckCondition[]; added: RecordRow | undefined } {
  const fresh = newRows(rows, seeded);
  const added = fresh.length === 1 ? fresh[0] : undefined;
  const conditions = [
    seededIntactCondition(rows, files, seeded),
    holds('one new recording', added !== undefined, { expected: '1', found: fresh.length ? `${fresh.length} (${listed(fresh.map((r) => r.name))})` : 'none' }),
    ...(added ? [condition(`recording ${added.name} saved`, 'saved', savedWords(added, files))] : []),
    countIs('files in the recordings folder', seeded.length + 1, files.length),
  ];
  return { conditions, added };
}

// ------------------------------------------------------------------ preferences file

export type PrefValue = string | number | boolean;

export function parsePrefs(xml: string): Record<string, PrefValue> {
  const out: Record<string, PrefValue> = {};
  for (const m of xml.matchAll(/<string name="([^"]+)">([\s\S]*?)<\/string>/g)) out[m[1]!] = m[2]!;
  for (const m of xml.matchAll(/<(int|long|float|boolean) name="([^"]+)" value="([^"]*)"\s*\/>/g)) {
    out[m[2]!] = m[1] === 'boolean' ? m[3] === 'true' : Number(m[3]);
  }
  return out;
}

function prefsXml(values: Record<string, PrefValue>): string {
  const longs = new Set(['record_counter', 'active_record']);
  const lines = Object.keys(values).sort().map((k) => {
    const v = values[k]!;
    if (typeof v === 'string') return `    <string name="${k}">${v}</string>`;
    if (typeof v === 'boolean') return `    <boolean name="${k}" value="${v}" />`;
    return `    <${longs.has(k) ? 'long' : 'int'} name="${k}" value="${v}" />`;
  });
  return `<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>\n${lines.join('\n')}\n</map>\n`;
}

export async function readPrefs(device: Device): Promise<Record<string, PrefValue>> {
  const xml = await readText(device, PREFS_FILE);
  return xml === null ? {} : parsePrefs(xml);
}

/** Changes some preferences in the app's shared_prefs file (the app reads it on its next screen). */
export async function setPrefs(device: Device, patch: Record<string, PrefValue>): Promise<void> {
  await writeText(device, PREFS_FILE, prefsXml({ ...(await readPrefs(device)), ...patch }));
}

/** The recording format in effect (m4a when never set, as the app defaults). */
export async function recordingFormat(device: Device): Promise<string> {
  const v = (await readPrefs(device)).setting_recording_format;
  return typeof v === 'string' ? v : 'm4a';
}

// ------------------------------------------------------------------ oracle moves and subgoals

/** Records for a while and stops; then names the recording (or keeps the default name) in the dialog. */
export function* recordClip(ui: OracleUi, seconds: number, name?: string): Generator<Action, void, void> {
  yield ui.tap({ contentDesc: 'Record' });
  yield { action_type: 'wait', seconds };
  yield ui.tap({ contentDesc: 'Stop recording' });
  if (!ui.exists({ text: 'New name', resourceId: 'android:id/alertTitle' })) {
    if (name === undefined) return;
    // No rename prompt after recording: rename from the record's name on the main screen.
    yield ui.tap({ resourceId: 'txt_name' });
  }
  if (name !== undefined) yield ui.type({ resourceId: 'input_name' }, name, { clear: true });
  yield ui.tap({ text: 'Save' });
}

export function* openRecorder(ui: OracleUi): Generator<Action, void, void> {
  yield* launch(ui, 'Audio Recorder');
}

export const recorderOpen: Subgoal = { name: 'Audio Recorder open', check: async ({ obs }) => inActivity(obs, RECORDER_PKG) };
export const recordsListOpen: Subgoal = { name: 'records list open', check: async ({ obs }) => inActivity(obs, RECORDER_PKG, RECORDS_ACTIVITY) };
