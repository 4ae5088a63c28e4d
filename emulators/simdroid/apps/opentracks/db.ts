import type { Db } from '../../system/databases.js';

/**
 * OpenTracks' own SQLite database (CustomSQLiteOpenHelper, `database.db`): the `tracks` table with
 * TracksColumns' columns in their CREATE TABLE order, plus `activity_type` (added to the real table
 * later; AndroidWorld's SportsActivity row writes it), so AndroidWorld's `sqlite_utils` pulls the
 * file, inserts rows by column name and pushes it back as on an emulator. Times are epoch ms,
 * distances metres, speeds m/s. The trackpoints and markers tables exist (empty) so the file looks
 * like the real one to a `.tables`.
 */
export const TRACKS_DB = '/data/data/de.dennisguse.opentracks/databases/database.db';

export const SCHEMA = `
CREATE TABLE tracks (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, description TEXT, category TEXT, starttime INTEGER, stoptime INTEGER,
  numpoints INTEGER, totaldistance FLOAT, totaltime INTEGER, movingtime INTEGER, avgspeed FLOAT, avgmovingspeed FLOAT,
  maxspeed FLOAT, minelevation FLOAT, maxelevation FLOAT, elevationgain FLOAT, icon TEXT, uuid BLOB, elevationloss FLOAT,
  starttime_offset INTEGER, activity_type TEXT
);
CREATE UNIQUE INDEX tracks_uuid_index ON tracks(uuid);
CREATE TABLE trackpoints (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, trackid INTEGER NOT NULL, time INTEGER, longitude INTEGER, latitude INTEGER,
  elevation FLOAT, accuracy FLOAT, speed FLOAT, bearing FLOAT, sensor_heartrate FLOAT, sensor_cadence FLOAT,
  sensor_power FLOAT, elevation_gain FLOAT, elevation_loss FLOAT, type TEXT, sensor_distance FLOAT,
  FOREIGN KEY (trackid) REFERENCES tracks(_id) ON UPDATE CASCADE ON DELETE CASCADE
);
CREATE TABLE markers (
  _id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, description TEXT, category TEXT, icon TEXT, trackid INTEGER NOT NULL,
  time INTEGER, longitude INTEGER, latitude INTEGER, elevation FLOAT, accuracy FLOAT, bearing FLOAT, photoUrl TEXT,
  FOREIGN KEY (trackid) REFERENCES tracks(_id) ON UPDATE CASCADE ON DELETE CASCADE
);
`;

export interface TrackRow {
  _id: number;
  name: string | null;
  description: string | null;
  category: string | null;
  starttime: number;
  stoptime: number;
  totaldistance: number;
  totaltime: number;
  movingtime: number;
  avgspeed: number;
  avgmovingspeed: number;
  maxspeed: number;
  elevationgain: number;
  elevationloss: number;
}

const COLUMNS = `_id, name, description, category, COALESCE(starttime, 0) AS starttime, COALESCE(stoptime, 0) AS stoptime,
  COALESCE(totaldistance, 0) AS totaldistance, COALESCE(totaltime, 0) AS totaltime, COALESCE(movingtime, 0) AS movingtime,
  COALESCE(avgspeed, 0) AS avgspeed, COALESCE(avgmovingspeed, 0) AS avgmovingspeed, COALESCE(maxspeed, 0) AS maxspeed,
  COALESCE(elevationgain, 0) AS elevationgain, COALESCE(elevationloss, 0) AS elevationloss`;

/** The track list's order: newest start first (TrackListActivity sorts by start time, descending). */
export function listTracks(db: Db): TrackRow[] {
  return db.prepare(`SELECT ${COLUMNS} FROM tracks ORDER BY starttime DESC, _id DESC`).all() as TrackRow[];
}

export function getTrack(db: Db, id: number): TrackRow | undefined {
  return db.prepare(`SELECT ${COLUMNS} FROM tracks WHERE _id = ?`).get(id) as TrackRow | undefined;
}

export interface NewTrack {
  name: string;
  description: string;
  category: string;
  starttime: number;
  /** Minutes. */
  duration: number;
  /** Metres. */
  distance: number;
  elevationGain: number;
  elevationLoss: number;
}

/** Inserts a finished track the way a recording ends: stop = start + duration, speeds from distance over time. */
export function insertTrack(db: Db, t: NewTrack, uuid: Buffer): number {
  const ms = t.duration * 60_000;
  const speed = ms > 0 ? t.distance / (ms / 1000) : 0;
  const r = db.prepare(`INSERT INTO tracks (name, description, category, activity_type, starttime, stoptime, numpoints, totaldistance,
      totaltime, movingtime, avgspeed, avgmovingspeed, maxspeed, minelevation, maxelevation, elevationgain, icon, uuid, elevationloss,
      starttime_offset)
    VALUES (@name, @description, @category, @category, @start, @stop, 0, @distance, @ms, @ms, @speed, @speed, @speed, 0, 0, @gain, NULL,
      @uuid, @loss, 0)`)
    .run({ name: t.name, description: t.description, category: t.category, start: t.starttime, stop: t.starttime + ms, distance: t.distance,
      ms, speed, gain: t.elevationGain, uuid, loss: t.elevationLoss });
  return Number(r.lastInsertRowid);
}

export function deleteTrack(db: Db, id: number): void {
  db.prepare('DELETE FROM tracks WHERE _id = ?').run(id);
}
