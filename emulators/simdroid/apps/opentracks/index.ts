import type { AppDef } from '../../runtime/app.js';
import { bootTracks } from './boot.js';
import { SCHEMA, TRACKS_DB } from './db.js';
import { trackRecorded } from './detail.js';
import { TRACK_LIST, trackList } from './list.js';

/**
 * OpenTracks (de.dennisguse.opentracks), the sport tracker AndroidWorld's SportsTracker* templates
 * ask about: the track list (TrackListActivity, its launcher activity) and a track's statistics
 * (TrackRecordedActivity), over the app's SQLite database where AndroidWorld seeds the tracks.
 * Recording is not simulated (no GPS): the record button is left out.
 */
export const openTracksApp: AppDef = {
  package: 'de.dennisguse.opentracks',
  label: 'OpenTracks',
  icon: { glyph: 'track', color: '#E65100' },
  accent: '#E65100',
  launchActivity: TRACK_LIST,
  activities: [trackList, trackRecorded],
  databases: [{ path: TRACKS_DB, schema: SCHEMA }],
  boot: bootTracks,
};
