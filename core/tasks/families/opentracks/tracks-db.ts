import type { Device } from '../../../device/device.js';
import { sqlExec, sqlInsert, sqlObjects } from '../../validators/sqlite.js';

/**
 * OpenTracks' `tracks` table as our templates seed and read it, through `sqlite3` on the device (the
 * same commands work on an emulator). A track is stored as AndroidWorld's activity_app_utils stores
 * one: `category` and `activity_type` alike, stop = start + duration, total and moving time the
 * duration in ms, distance in metres, speeds in m/s.
 */
export const OPENTRACKS_PKG = 'de.dennisguse.opentracks';
export const TRACKS_DB = '/data/data/de.dennisguse.opentracks/databases/database.db';

export interface NewTrack {
  name: string;
  description: string;
  category: string;
  /** Epoch ms. */
  start: number;
  /** Whole minutes. */
  duration: number;
  /** Metres. */
  distance: number;
  elevationGain: number;
  elevationLoss: number;
}

/** A 16-byte uuid literal, distinct per index (the column has a unique index). */
function uuidLiteral(i: number): string {
  return `X'${'0'.repeat(24)}${(i + 1).toString(16).padStart(8, '0')}'`;
}

function insertStatement(t: NewTrack, i: number): string {
  const ms = t.duration * 60_000;
  const speed = ms > 0 ? t.distance / (ms / 1000) : 0;
  const row = {
    name: t.name, description: t.description, category: t.category, activity_type: t.category, starttime: t.start, stoptime: t.start + ms,
    numpoints: 0, totaldistance: t.distance, totaltime: ms, movingtime: ms, avgspeed: speed, avgmovingspeed: speed, maxspeed: 0,
    minelevation: 0, maxelevation: 0, elevationgain: t.elevationGain, elevationloss: t.elevationLoss, starttime_offset: 0,
  };
  return sqlInsert('tracks', row).replace(/\);$/, `, ${uuidLiteral(i)});`).replace(') VALUES', ', uuid) VALUES');
}

export async function clearTracks(device: Device): Promise<void> {
  await sqlExec(device, TRACKS_DB, 'DELETE FROM tracks;');
}

export async function addTracks(device: Device, tracks: readonly NewTrack[]): Promise<void> {
  if (tracks.length === 0) return;
  await sqlExec(device, TRACKS_DB, tracks.map(insertStatement).join('\n'));
}

export interface TrackRecord {
  name: string;
  category: string;
  starttime: number;
  totaltime: number;
  totaldistance: number;
}

export async function listTracks(device: Device): Promise<TrackRecord[]> {
  const rows = await sqlObjects(device, TRACKS_DB, ['name', 'category', 'starttime', 'totaltime', 'totaldistance'] as const, 'tracks ORDER BY _id');
  return rows.map((r) => ({
    name: String(r.name ?? ''), category: String(r.category ?? ''), starttime: Number(r.starttime), totaltime: Number(r.totaltime),
    totaldistance: Number(r.totaldistance),
  }));
}
