import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHost } from '../../../emulators/simdroid/host.js';
import { connectedAdb, type AdbCli } from './helpers.js';

/**
 * VLC's playlists and OsmAnd's favourites and markers through Debian's real adb, read the way
 * AndroidWorld's vlc.py and osmand.py read them: the database pulled and queried with SQLite, the
 * GPX file tested with `[ -f … ]` under /data/media/0, pulled, rewritten and pushed back.
 */
let host: EmulatorHost;
let adb: AdbCli;
let sh: (...args: string[]) => ReturnType<AdbCli['run']>;
let scratch: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ host, adb, sh, scratch, close } = await connectedAdb('awb-aw-vlc-osmand-'));
});
afterAll(() => close());

async function pull(remote: string): Promise<string> {
  const local = join(scratch, remote.split('/').pop()!);
  await adb.ok(['-s', host.address, 'pull', remote, local]);
  return local;
}

async function centreOf(attr: string): Promise<string[]> {
  const xml = (await sh('uiautomator dump /dev/tty')).out;
  const node = xml.split('<node ').find((n) => n.includes(attr));
  const m = node && /bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(node);
  if (!m) throw new Error(`no node with ${attr} on screen`);
  return [String((Number(m[1]) + Number(m[3])) >> 1), String((Number(m[2]) + Number(m[4])) >> 1)];
}

const tap = async (attr: string) => sh('input tap', ...(await centreOf(attr)));

describe('VLC as AndroidWorld reads it', () => {
  it('a playlist made on screen joins Playlist, Media and PlaylistMediaRelation in order', async () => {
    const db = '/data/data/org.videolan.vlc/app_db/vlc_media.db';
    for (const f of ['clip_1_HD.mp4', 'scene_2_raw.mp4']) {
      writeFileSync(join(scratch, f), 'not really a video');
      await adb.ok(['-s', host.address, 'push', join(scratch, f), `/storage/emulated/0/VLCVideos/${f}`]);
    }
    expect((await sh('am start -n org.videolan.vlc/.gui.MainActivity')).code).toBe(0);
    const [x, y] = await centreOf('text="scene_2_raw"');
    await sh('input swipe', x!, y!, x!, y!, '1000');
    await tap('text="clip_1_HD"');
    await tap('content-desc="Add to playlist"');
    await tap('resource-id="org.videolan.vlc:id/dialog_playlist_name"');
    await sh('input text', 'Epic%sMoments%sMarathon');
    await tap('resource-id="org.videolan.vlc:id/dialog_playlist_save"');
    const local = new Database(await pull(db), { readonly: true });
    try {
      const rows = local.prepare(`SELECT Playlist.name AS playlist_name, Media.filename AS media_file_name, PlaylistMediaRelation.position AS order_in_playlist
        FROM PlaylistMediaRelation INNER JOIN Playlist ON Playlist.id_playlist = PlaylistMediaRelation.playlist_id
        INNER JOIN Media ON Media.id_media = PlaylistMediaRelation.media_id ORDER BY Playlist.name, PlaylistMediaRelation.position`).all();
      expect(rows).toEqual([
        { playlist_name: 'Epic Moments Marathon', media_file_name: 'scene_2_raw.mp4', order_in_playlist: 0 },
        { playlist_name: 'Epic Moments Marathon', media_file_name: 'clip_1_HD.mp4', order_in_playlist: 1 },
      ]);
    } finally {
      local.close();
    }
  });
});

describe('OsmAnd as AndroidWorld reads it', () => {
  const favorites = '/data/media/0/Android/data/net.osmand/files/favorites/favorites.gpx';

  it('a favourite saved on screen is in favorites.gpx under /data/media/0, and survives ElementTree\'s rewrite', async () => {
    expect((await sh('am start -n net.osmand/net.osmand.plus.activities.MapActivity')).code).toBe(0);
    const exists = async () => (await sh(`if [ -f "${favorites}" ]; then echo Exists; else echo "Does not exist"; fi`)).out.trim();
    await tap('content-desc="Search"');
    await sh('input text', 'Nendeln');
    await tap('text="Nendeln" resource-id="net.osmand:id/title"');
    await tap('resource-id="net.osmand:id/context_menu_fav_button"');
    await tap('resource-id="net.osmand:id/btn_save"');
    expect(await exists()).toBe('Exists');
    const gpx = (await sh(`cat ${favorites}`)).out;
    expect(gpx).toContain('<wpt lat="47.1973857" lon="9.5430636">');
    expect(gpx).toContain('<name>Nendeln</name>');
    // _clear_favorites: ElementTree drops the waypoints and writes ns0: prefixes; the app reads that back.
    const cleared = join(scratch, 'favorites.gpx');
    writeFileSync(cleared, '<ns0:gpx xmlns:ns0="http://www.topografix.com/GPX/1/1" version="1.1"><ns0:metadata><ns0:name>favorites</ns0:name></ns0:metadata></ns0:gpx>');
    await adb.ok(['-s', host.address, 'push', cleared, favorites]);
    await tap('content-desc="Search"');
    await sh('input text', 'Ruggell');
    await tap('text="Ruggell" resource-id="net.osmand:id/title"');
    await tap('resource-id="net.osmand:id/context_menu_fav_button"');
    await tap('resource-id="net.osmand:id/btn_save"');
    const after = (await sh(`cat ${favorites}`)).out;
    expect(after.match(/<wpt /g)).toHaveLength(1);
    expect(after).toContain('<name>Ruggell</name>');
  });

  it('a marker is a map_markers row with the columns of AndroidWorld\'s OsmAndMapMarker', async () => {
    await tap('content-desc="Search"');
    await sh('input text', '47.1275785,9.5387131');
    await tap('resource-id="net.osmand:id/title"');
    await tap('resource-id="net.osmand:id/context_menu_marker_button"');
    const local = new Database(await pull('/data/data/net.osmand/databases/map_markers_db'), { readonly: true });
    try {
      const rows = local.prepare('SELECT * FROM map_markers').all() as Array<Record<string, unknown>>;
      expect(rows).toHaveLength(1);
      expect(Object.keys(rows[0]!)).toEqual(['marker_id', 'marker_lat', 'marker_lon', 'marker_description', 'marker_active', 'marker_added',
        'marker_visited', 'group_name', 'group_key', 'marker_color', 'marker_next_key', 'marker_disabled', 'marker_selected',
        'marker_map_object_name', 'title']);
      expect(rows[0]).toMatchObject({ marker_lat: 47.1275785, marker_lon: 9.5387131, marker_active: 1 });
    } finally {
      local.close();
    }
  });
});
