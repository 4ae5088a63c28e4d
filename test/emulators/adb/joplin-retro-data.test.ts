import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmulatorHost } from '../../../emulators/simdroid/host.js';
import { mp3File } from '../../../core/seed-data/mp3.js';
import { connectedAdb, type AdbCli } from './helpers.js';

/**
 * Joplin's and Retro Music's data as AndroidWorld's task code reaches it, through Debian's real adb:
 * a database pulled, changed with SQLite and pushed back the way sqlite_utils does it (the pull takes
 * the databases folder, the push empties that folder first), songs pushed as MP3 files and a media
 * scan broadcast, then the screens read with `uiautomator dump` and the results pulled again.
 */
let host: EmulatorHost;
let adb: AdbCli;
let sh: (...args: string[]) => ReturnType<AdbCli['run']>;
let scratch: string;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ host, adb, sh, scratch, close } = await connectedAdb('awb-joplin-retro-'));
});
afterAll(() => close());

/** sqlite_utils' round trip: pull the file, run statements on it locally, empty the remote folder, push it back. */
async function editRemote(remote: string, sql: (db: Database.Database) => void): Promise<void> {
  const local = join(scratch, remote.split('/').pop()!);
  await adb.ok(['-s', host.address, 'pull', remote, local]);
  const db = new Database(local);
  sql(db);
  db.close();
  const dir = remote.slice(0, remote.lastIndexOf('/'));
  await adb.ok(['-s', host.address, 'shell', `rm -rf ${dir}/*`]);
  await adb.ok(['-s', host.address, 'push', local, remote]);
}

async function query<T>(remote: string, sql: string): Promise<T[]> {
  const local = join(scratch, `q-${remote.split('/').pop()!}`);
  await adb.ok(['-s', host.address, 'pull', remote, local]);
  const db = new Database(local, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

async function screen(): Promise<string> {
  return (await sh('uiautomator dump /dev/tty')).out;
}

/** Taps the centre of the n-th node whose attributes contain `attr`. */
async function tap(attr: string, nth = 0): Promise<void> {
  const node = (await screen()).split('<node ').filter((n) => n.includes(attr))[nth];
  const m = node && /bounds="\[(\d+),(\d+)\]\[(\d+),(\d+)\]"/.exec(node);
  if (!m) throw new Error(`no node with ${attr} on screen`);
  await sh('input tap', String((Number(m[1]) + Number(m[3])) >> 1), String((Number(m[2]) + Number(m[4])) >> 1));
}

const JOPLIN_DB = '/data/data/net.cozic.joplin/databases/joplin.sqlite';

describe('Joplin', () => {
  it('takes notes inserted with the columns of AndroidWorld\'s JoplinNote and shows a to-do with its check box', async () => {
    const folderId = 'f'.repeat(32);
    await editRemote(JOPLIN_DB, (db) => {
      db.exec('DELETE FROM folders; DELETE FROM notes; DELETE FROM notes_normalized;');
      db.prepare('INSERT INTO folders ("title", "id", "created_time", "updated_time", "user_created_time", "user_updated_time", "encryption_cipher_text", "encryption_applied", "parent_id", "is_shared", "share_id", "master_key_id", "icon", "user_data") VALUES (?, ?, 1, 1, 1, 1, \'\', 0, \'\', 0, \'\', \'\', \'\', \'\')')
        .run('Meeting Notes', folderId);
      const note = db.prepare(`INSERT INTO notes ("parent_id", "title", "body", "created_time", "updated_time", "is_conflict", "latitude",
        "longitude", "altitude", "author", "source_url", "is_todo", "todo_due", "todo_completed", "source", "source_application",
        "application_data", "order", "user_created_time", "user_updated_time", "encryption_cipher_text", "encryption_applied",
        "markup_language", "is_shared", "share_id", "conflict_original_id", "master_key_id", "user_data", "id")
        VALUES (?, ?, ?, 1, 1, 0, 0, 0, 0, '', '', ?, 0, 0, '', '', '', 0, 1, 1, '', 0, 1, 0, '', '', '', '', ?)`);
      note.run(folderId, 'Budget Session', 'Recap:\n- 35 people attended', 0, 'a'.repeat(32));
      note.run(folderId, 'Book the venue', '', 1, 'b'.repeat(32));
    });
    // select * from folders reads back into JoplinFolder(**row): its columns are that dataclass's fields.
    const folders = await query<Record<string, unknown>>(JOPLIN_DB, 'SELECT * FROM folders');
    expect(Object.keys(folders[0]!).sort()).toEqual(['created_time', 'deleted_time', 'encryption_applied', 'encryption_cipher_text', 'icon', 'id',
      'is_shared', 'master_key_id', 'parent_id', 'share_id', 'title', 'updated_time', 'user_created_time', 'user_data', 'user_updated_time']);
    await sh('am force-stop net.cozic.joplin');
    expect((await sh('am start -n net.cozic.joplin/.MainActivity')).code).toBe(0);
    const list = await screen();
    expect(list).toContain('text="Budget Session"');
    expect(list).toContain('content-desc="To-do: Book the venue"');
    await tap('text="Budget Session"');
    expect(await screen()).toContain('text="35 people attended"');
  });
});

const MUSIC = '/storage/emulated/0/Music';
const PLAYBACK_DB = '/data/data/code.name.monkey.retromusic/databases/music_playback_state.db';
const PLAYLIST_DB = '/data/data/code.name.monkey.retromusic/databases/playlist.db';

describe('Retro Music', () => {
  it('lists pushed MP3s by their tags and length, queues them and keeps a playlist where AndroidWorld reads it', async () => {
    for (const [title, ms] of [['Night Drive', 187_000], ['Moments', 241_500]] as const) {
      const local = join(scratch, `${title}.mp3`);
      writeFileSync(local, mp3File({ title, artist: 'Maria', durationMs: ms }));
      await adb.ok(['-s', host.address, 'push', local, `${MUSIC}/${title}.mp3`]);
    }
    // AndroidWorld's playlist clearing empties the databases folder (push_file), then it broadcasts a media scan.
    await editRemote(PLAYLIST_DB, (db) => db.exec('DELETE FROM PlaylistEntity; DELETE FROM SongEntity;'));
    expect((await sh('am broadcast -a android.intent.action.MEDIA_SCANNER_SCAN_FILE -d file:///storage/emulated/0/Music')).code).toBe(0);
    expect(await query(PLAYBACK_DB, 'SELECT title FROM playing_queue')).toEqual([]);

    expect((await sh('am start -n code.name.monkey.retromusic/.activities.MainActivity')).code).toBe(0);
    const songs = await screen();
    expect(songs).toContain('text="Night Drive"');
    expect(songs).toContain('text="3:07"');
    expect(songs).toContain('text="4:01"');
    // "Moments" sorts first: its menu, then Night Drive's, each "Add to playing queue".
    await tap('content-desc="More options"', 1);
    await tap('text="Add to playing queue"');
    await tap('content-desc="More options"', 0);
    await tap('text="Add to playing queue"');
    expect(await query<{ title: string }>(PLAYBACK_DB, 'SELECT title from playing_queue;')).toEqual([{ title: 'Night Drive' }, { title: 'Moments' }]);

    await tap('content-desc="Playlists"');
    await tap('content-desc="New playlist"');
    await sh('input text', 'Road%sTrip%s7');
    await tap('text="Create"');
    await tap('content-desc="Songs"');
    await tap('content-desc="More options"', 0);
    await tap('text="Add to playlist…"');
    await tap('text="Road Trip 7"');
    // AndroidWorld's join (a window function: SQLite 3.25+), on the pulled file.
    const rows = await query(PLAYLIST_DB, `SELECT pe.playlist_name AS playlist_name, se.title AS media_file_name, se.duration AS duration_ms,
      ROW_NUMBER() OVER (PARTITION BY pe.playlist_name ORDER BY se.song_key) - 1 AS order_in_playlist
      FROM PlaylistEntity pe JOIN SongEntity se ON pe.playlist_id = se.playlist_creator_id ORDER BY pe.playlist_name, order_in_playlist`);
    expect(rows).toEqual([{ playlist_name: 'Road Trip 7', media_file_name: 'Moments', duration_ms: expect.closeTo(241_500, -2), order_in_playlist: 0 }]);
  });
});
