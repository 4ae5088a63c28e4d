import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { mp3File } from '../../../core/seed-data/mp3.js';
import { installSongs, PLAYBACK_DB, PLAYLIST_DB } from '../../../core/tasks/families/retro/common.js';
import { readAudioInfo } from '../../../emulators/simdroid/apps/retro/audio-file.js';
import { device, elements, find, get, sh, tap, typeInto } from '../../helpers/simdroid.js';

/** Retro Music in SimDroid: the song library from MP3 tags, the playing queue and playlists in the app's databases. */
const d = device();
afterAll(() => d.close());

const PKG = 'code.name.monkey.retromusic';
const open = () => sh(d, `am start -n ${PKG}/.activities.MainActivity`);
const sql = (db: string, q: string) => sh(d, `sqlite3 ${db} "${q}"`).trim();
const titles = () => elements(d).filter((e) => e.node.resourceId === `${PKG}:id/title`).map((e) => e.node.text);

/** Taps the "More options" button on the row of a song. */
function songMenu(title: string): void {
  const els = elements(d);
  const row = els.find((e) => e.node.resourceId === `${PKG}:id/title` && e.node.text === title)?.parent?.parent;
  const menu = els.find((e) => e.node.contentDesc === 'More options' && e.parent === row);
  if (!row || !menu) throw new Error(`no menu on ${title}`);
  const b = menu.node.bounds;
  d.inputSync({ kind: 'tap', x: (b.left + b.right) >> 1, y: (b.top + b.bottom) >> 1 });
}

const SONGS = [
  { title: 'Night Drive', artist: 'Maria', durationMs: 187_000 },
  { title: 'Moments', artist: 'Li', durationMs: 241_500 },
  { title: 'Afterglow', artist: 'Maria', durationMs: 3_725_000 },
];

beforeEach(async () => {
  await d.loadSnapshot(BOOT_SNAPSHOT);
  await installSongs(d, SONGS);
});

describe('MP3 files as a media scan reads them', () => {
  it('reads ID3v2.4 UTF-8 tags and the Info frame count', () => {
    expect(readAudioInfo(mp3File({ title: 'Zoë', artist: 'Ann', durationMs: 187_654 }))).toMatchObject({ title: 'Zoë', artist: 'Ann', durationMs: 187_664 });
  });

  it('reads ID3v2.3 UTF-16 tags, and a CBR stream without an Info header by its size', () => {
    const title = Buffer.concat([Buffer.from([1, 0xff, 0xfe]), Buffer.from('Tidewater', 'utf16le')]);
    const frame = Buffer.concat([Buffer.from('TIT2', 'latin1'), Buffer.from([0, 0, 0, title.length, 0, 0]), title]);
    const tag = Buffer.concat([Buffer.from('ID3', 'latin1'), Buffer.from([3, 0, 0, 0, 0, 0, frame.length]), frame]);
    // MPEG-2.5 Layer III, 16 kbit/s, 11025 Hz, mono: 2000 bytes of frames last one second.
    const audio = Buffer.alloc(2000);
    audio.set([0xff, 0xe3, 0x20, 0xc0], 0);
    expect(readAudioInfo(Buffer.concat([tag, audio]))).toMatchObject({ title: 'Tidewater', artist: null, durationMs: 1000 });
  });

  it('gives no tags and no length for a file that is not MP3', () => {
    expect(readAudioInfo(Buffer.from('not audio'))).toMatchObject({ title: null, durationMs: 0 });
  });
});

describe('Retro Music app', () => {
  it('lists the songs by title with artist and length', () => {
    open();
    expect(d.wm.foreground()).toEqual({ package: PKG, activity: `${PKG}.activities.MainActivity` });
    expect(titles()).toEqual(['Afterglow', 'Moments', 'Night Drive']);
    expect(find(d, { text: '3:07' })).toBeDefined();
    expect(find(d, { text: '1:02:05' })).toBeDefined();
    expect(d.wm.state.crashes).toEqual([]);
  });

  it('plays a song with the list as the queue; Add to playing queue and Play next place songs in it', () => {
    open();
    tap(d, { resourceId: 'title', text: 'Moments' });
    expect(sql(PLAYBACK_DB, 'select title from playing_queue')).toBe('Afterglow\nMoments\nNight Drive');
    expect(get(d, { resourceId: 'miniPlayerTitle' }).node.text).toBe('Moments');
    // Clear it from the now-playing screen, then build one song by song.
    tap(d, { resourceId: 'miniPlayerFragment' });
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Clear playing queue' });
    expect(sql(PLAYBACK_DB, 'select count(*) from playing_queue')).toBe('0');
    songMenu('Night Drive');
    tap(d, { text: 'Add to playing queue' });
    songMenu('Afterglow');
    tap(d, { text: 'Add to playing queue' });
    songMenu('Moments');
    tap(d, { text: 'Play next' });
    expect(sql(PLAYBACK_DB, 'select title from playing_queue')).toBe('Night Drive\nMoments\nAfterglow');
    expect(sql(PLAYBACK_DB, 'select title from original_playing_queue')).toBe('Night Drive\nMoments\nAfterglow');
  });

  it('makes a playlist, adds songs in order, shows its length, refuses a duplicate name and saves it as M3U', () => {
    open();
    tap(d, { contentDesc: 'Playlists' });
    tap(d, { contentDesc: 'New playlist' });
    typeInto(d, { resourceId: 'actionNewPlaylist' }, 'Road Trip 7');
    tap(d, { text: 'Create' });
    tap(d, { contentDesc: 'Songs' });
    for (const t of ['Night Drive', 'Moments', 'Night Drive']) {
      songMenu(t);
      tap(d, { text: 'Add to playlist…' });
      tap(d, { text: 'Road Trip 7' });
    }
    expect(sql(PLAYLIST_DB, "select se.title from SongEntity se join PlaylistEntity pe on pe.playlist_id = se.playlist_creator_id where pe.playlist_name = 'Road Trip 7' order by song_key")).toBe('Night Drive\nMoments');
    tap(d, { contentDesc: 'Playlists' });
    tap(d, { contentDesc: 'New playlist' });
    typeInto(d, { resourceId: 'actionNewPlaylist' }, 'Road Trip 7');
    tap(d, { text: 'Create' });
    expect(sql(PLAYLIST_DB, 'select count(*) from PlaylistEntity')).toBe('1');
    tap(d, { text: 'Cancel' });
    tap(d, { text: 'Road Trip 7' });
    expect(get(d, { resourceId: 'subtitle' }).node.text).toBe('2 Songs • 7:08');
    tap(d, { contentDesc: 'More options' });
    tap(d, { text: 'Save as file' });
    expect(sh(d, "cat '/sdcard/Download/Road Trip 7.m3u'")).toBe(
      '#EXTM3U\n#EXTINF:187,Maria - Night Drive\n/storage/emulated/0/Music/Night Drive.mp3\n#EXTINF:242,Li - Moments\n/storage/emulated/0/Music/Moments.mp3\n',
    );
  });

  it('re-creates its playback database when the databases folder was emptied', () => {
    sh(d, `rm ${PLAYBACK_DB}`);
    sh(d, 'am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file:///storage/emulated/0/Music');
    expect(sql(PLAYBACK_DB, "select name from sqlite_master where type = 'table' order by name")).toBe('original_playing_queue\nplaying_queue');
  });
});
