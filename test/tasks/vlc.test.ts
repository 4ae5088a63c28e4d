import { afterAll, describe, expect, it } from 'vitest';
import { resetForTask } from '../../core/episode/runner.js';
import { CreatePlaylist, CreateTwoPlaylists } from '../../core/tasks/families/vlc/playlists.js';
import { VLC_DB_PATH, videoFileName } from '../../core/tasks/families/vlc/vlc-db.js';
import { instantiate } from '../../core/tasks/instance.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { sqlExec, sqlLiteral } from '../../core/tasks/validators/sqlite.js';
import { createRng } from '../../core/util/rng.js';
import { device, sh } from '../helpers/simdroid.js';

/** The VLC checkers accept the playlist in order and reject near misses; the seeding is AndroidWorld's. */
const d = device();
afterAll(() => d.close());
const none = { actions: [] };

async function start<P>(t: TaskTemplate<P>, seed = 0): Promise<P> {
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return inst.params;
}

/** Writes a playlist straight into the library, files indexed in the order given. */
async function playlist(name: string, files: readonly string[]): Promise<void> {
  const stmts = [`INSERT INTO Playlist (name, creation_date) VALUES (${sqlLiteral(name)}, 0);`];
  files.forEach((f, i) => {
    stmts.push(`INSERT INTO Media (title, filename, mrl) VALUES (${sqlLiteral(f)}, ${sqlLiteral(f)}, ${sqlLiteral(`file:///sdcard/VLCVideos/${f}`)});`);
    stmts.push(`INSERT INTO PlaylistMediaRelation (media_id, playlist_id, position) VALUES ((SELECT MAX(id_media) FROM Media), (SELECT MAX(id_playlist) FROM Playlist), ${i});`);
  });
  await sqlExec(d, VLC_DB_PATH, stmts.join('\n'));
}

describe('VlcCreatePlaylist', () => {
  it('seeds the files and as many noise videos into VLCVideos, with empty playlist tables', async () => {
    const p = await start(CreatePlaylist, 3);
    const listed = sh(d, 'ls /sdcard/VLCVideos').trim().split('\n').sort();
    expect(listed).toEqual([...p.files, ...p.noise_files].sort());
    expect(p.noise_files).toHaveLength(p.files.length);
    expect(sh(d, `sqlite3 ${VLC_DB_PATH} "SELECT COUNT(*) FROM Playlist"`).trim()).toBe('0');
  });

  it('accepts the playlist in order, whatever the case of its name', async () => {
    const p = await start(CreatePlaylist, 1);
    expect((await CreatePlaylist.check(d, p, none)).ok).toBe(false);
    await playlist(p.playlist_name.toUpperCase(), p.files);
    expect((await CreatePlaylist.check(d, p, none)).ok).toBe(true);
  });

  it.each([
    ['the files out of order', (f: string[]) => [...f].reverse()],
    ['a file missing', (f: string[]) => f.slice(1)],
    ['a noise file added', (f: string[]) => [...f, 'extra_1_HD.mp4']],
  ])('rejects %s', async (_what, change) => {
    const p = await start(CreatePlaylist, 2);
    await playlist(p.playlist_name, change(p.files));
    expect((await CreatePlaylist.check(d, p, none)).ok).toBe(false);
  });

  it('rejects the right files under another name', async () => {
    const p = await start(CreatePlaylist, 4);
    await playlist(`${p.playlist_name} 2`, p.files);
    expect((await CreatePlaylist.check(d, p, none)).ok).toBe(false);
  });

  it('draws names in AndroidWorld\'s pattern', () => {
    const rng = createRng(7);
    for (let i = 0; i < 50; i++) expect(videoFileName(rng)).toMatch(/^(?:\w+_)?(clip|footage|scene|recording|highlight|moment|episode)_\d{1,2}_(|HD|4K|raw|export)(?:_\w+)?\.mp4$/);
  });
});

describe('VlcCreateTwoPlaylists', () => {
  it('needs both playlists', async () => {
    const p = await start(CreateTwoPlaylists, 0);
    await playlist(p.playlist_name1, p.files1);
    expect((await CreateTwoPlaylists.check(d, p, none)).ok).toBe(false);
    await playlist(p.playlist_name2, p.files2);
    expect((await CreateTwoPlaylists.check(d, p, none)).ok).toBe(true);
  });
});
