import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { device, find, get, longPress, scroll, sh, tap, texts, typeInto } from '../../helpers/simdroid.js';

/** VLC driven through its UI; playlists read back with sqlite3 as AndroidWorld's VLC templates query them. */
const d = device();
afterAll(() => d.close());

const PKG = 'org.videolan.vlc';
const DB = '/data/data/org.videolan.vlc/app_db/vlc_media.db';
// AndroidWorld's query (vlc.py _get_playlist_info_query), column for column.
const PLAYLIST_QUERY = `SELECT Playlist.name AS playlist_name, Media.filename AS media_file_name, PlaylistMediaRelation.position AS order_in_playlist
  FROM PlaylistMediaRelation INNER JOIN Playlist ON Playlist.id_playlist = PlaylistMediaRelation.playlist_id
  INNER JOIN Media ON Media.id_media = PlaylistMediaRelation.media_id ORDER BY Playlist.name, PlaylistMediaRelation.position;`;
const rows = () => sh(d, `sqlite3 ${DB} "${PLAYLIST_QUERY}"`).trim().split('\n').filter(Boolean);
const video = (name: string) => ({ text: name.replace(/\.mp4$/, ''), resourceId: 'title' });

beforeEach(() => {
  d.loadSnapshotSync(BOOT_SNAPSHOT);
  sh(d, 'sqlite3 /data/data/org.videolan.vlc/app_db/vlc_media.db "DELETE FROM Playlist; DELETE FROM Media; DELETE FROM PlaylistMediaRelation;"');
  for (const f of ['clip_3_HD.mp4', 'scene_12_raw.mp4', 'moment_7_.mp4']) sh(d, `echo -n 0000 > /sdcard/VLCVideos/${f}`);
  sh(d, 'echo -n 00 > /sdcard/Download/holiday.mkv');
  sh(d, `am start -n ${PKG}/.gui.MainActivity`);
});

describe('VLC', () => {
  it('lists every video in shared storage by title, under the Video tab', () => {
    expect(d.wm.foreground().activity).toBe('org.videolan.vlc.gui.MainActivity');
    for (const t of ['clip_3_HD', 'scene_12_raw', 'moment_7_', 'holiday']) expect(find(d, { text: t })).toBeDefined();
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('adds the selection to a new playlist in the order picked, as AndroidWorld reads it', () => {
    longPress(d, video('scene_12_raw.mp4'));
    tap(d, video('clip_3_HD.mp4'));
    expect(get(d, { resourceId: 'action_bar_title' }).node.text).toBe('2 selected');
    tap(d, { contentDesc: 'Add to playlist' });
    tap(d, { text: 'Save' });
    expect(find(d, { text: 'Enter a playlist name' })).toBeDefined();
    typeInto(d, { resourceId: 'dialog_playlist_name' }, 'Road Trips Marathon');
    tap(d, { text: 'Save' });
    expect(rows()).toEqual(['Road Trips Marathon|scene_12_raw.mp4|0', 'Road Trips Marathon|clip_3_HD.mp4|1']);
    tap(d, { contentDesc: 'Playlists' });
    tap(d, { text: 'Road Trips Marathon' });
    expect(texts(d)).toEqual(expect.arrayContaining(['1. scene_12_raw.mp4', '2. clip_3_HD.mp4']));
  });

  it('appends to an existing playlist chosen in the dialog, after its last item', () => {
    longPress(d, video('moment_7_.mp4'));
    tap(d, { contentDesc: 'Add to playlist' });
    typeInto(d, { resourceId: 'dialog_playlist_name' }, 'Comedy Specials');
    tap(d, { text: 'Save' });
    longPress(d, video('clip_3_HD.mp4'));
    tap(d, { contentDesc: 'Add to playlist' });
    tap(d, { text: 'Comedy Specials' });
    expect(rows()).toEqual(['Comedy Specials|moment_7_.mp4|0', 'Comedy Specials|clip_3_HD.mp4|1']);
  });

  it('browses Internal memory to VLCVideos, and plays a video on tap', () => {
    tap(d, { contentDesc: 'Browse' });
    tap(d, { text: 'Internal memory' });
    scroll(d, 'down');
    tap(d, { text: 'VLCVideos' });
    expect(find(d, { text: 'holiday' })).toBeUndefined();
    tap(d, video('clip_3_HD.mp4'));
    expect(get(d, { resourceId: 'player_overlay_title' }).node.text).toBe('clip_3_HD');
    d.inputSync({ kind: 'key', key: 'BACK' });
    expect(find(d, video('scene_12_raw.mp4'))).toBeDefined();
  });
});
