import { afterAll, describe, expect, it } from 'vitest';
import { resetForTask } from '../../core/episode/runner.js';
import { instantiate } from '../../core/tasks/instance.js';
import type { TaskTemplate } from '../../core/tasks/task.js';
import { sqlLiteral } from '../../core/tasks/validators/sqlite.js';
import {
  attendeesIn, IsTodoQuestion, MeetingAttendeesQuestion, quantityOf, RecipeQuantityQuestion, TodoCountQuestion,
} from '../../core/tasks/families/joplin/questions.js';
import { JOPLIN_DB } from '../../core/tasks/families/joplin/common.js';
import { CreatePlaylist, pickDuration, PlayingQueue, PlaylistDuration, SavePlaylist } from '../../core/tasks/families/retro/playlists.js';
import { PLAYBACK_DB, PLAYLIST_DB } from '../../core/tasks/families/retro/common.js';
import { device, sh } from '../helpers/simdroid.js';

/** The Joplin and Retro Music checkers accept the right answer or end state and reject near misses; seeding is as AndroidWorld's. */
const d = device();
afterAll(() => d.close());

const answer = (text: string) => ({ actions: [], answer: text });
const none = { actions: [] };

async function start<P>(t: TaskTemplate<P>, seed = 0): Promise<P> {
  const inst = instantiate(t, seed);
  await resetForTask(d, inst);
  return inst.params;
}

function seedWhere<P>(t: TaskTemplate<P>, pred: (p: P) => boolean): number {
  for (let s = 0; s < 200; s++) if (pred(instantiate(t, s).params)) return s;
  throw new Error(`no seed of ${t.id} fits`);
}

describe('Joplin questions', () => {
  it('seed one note of the asked title among distractors whose titles do not contain it', async () => {
    for (const t of [IsTodoQuestion, MeetingAttendeesQuestion, RecipeQuantityQuestion] as TaskTemplate[]) {
      for (let seed = 0; seed < 10; seed++) {
        const p = instantiate(t, seed).params as { title: string; notes: Array<{ title: string }> };
        expect(p.notes.filter((n) => n.title.toLowerCase().includes(p.title.toLowerCase())).map((n) => n.title)).toEqual([p.title]);
      }
    }
    const p = await start(IsTodoQuestion, 3);
    expect(Number(sh(d, `sqlite3 ${JOPLIN_DB} "select count(*) from notes where title = ${sqlLiteral(p.title)}"`))).toBe(1);
    expect(Number(sh(d, `sqlite3 ${JOPLIN_DB} "select count(*) from notes_normalized"`))).toBe(p.notes.length);
  });

  it('IsTodo wants True or False as the note is', async () => {
    const todo = await start(IsTodoQuestion, seedWhere(IsTodoQuestion, (p) => p.isTodo));
    expect((await IsTodoQuestion.check(d, todo, answer('True'))).ok).toBe(true);
    expect((await IsTodoQuestion.check(d, todo, answer('False'))).ok).toBe(false);
    const plain = instantiate(IsTodoQuestion, seedWhere(IsTodoQuestion, (p) => !p.isTodo)).params;
    expect((await IsTodoQuestion.check(d, plain, answer('false'))).ok).toBe(true);
    expect((await IsTodoQuestion.check(d, plain, none)).ok).toBe(false);
  });

  it('reads attendee counts and ingredient quantities off note lines', () => {
    expect(attendeesIn(['Recap:', 'Settled the budget split', '35 individuals joined'])).toBe(35);
    expect(attendeesIn(['Attended by 40 participants'])).toBe(40);
    expect(attendeesIn(['Nobody came'])).toBeNull();
    expect(quantityOf(['1 cup plain flour', '1/2 cup tahini', '3/4 cup tahini'], 'tahini')).toBe('3/4 cup');
    expect(quantityOf(['Stir in the tahini'], 'tahini')).toBeNull();
  });

  it('the count, attendee and quantity questions compare the answer with what was seeded', async () => {
    const count = await start(TodoCountQuestion, 1);
    expect((await TodoCountQuestion.check(d, count, answer(String(count.count)))).ok).toBe(true);
    expect((await TodoCountQuestion.check(d, count, answer(String(count.count + 1)))).ok).toBe(false);
    // Only the asked notebook's to-dos are the answer; other notebooks hold to-dos too.
    expect(count.notes.filter((n) => n.isTodo && n.folder === count.folder)).toHaveLength(count.count);
    expect(count.notes.some((n) => n.isTodo && n.folder !== count.folder)).toBe(true);
    const meeting = instantiate(MeetingAttendeesQuestion, 2).params;
    expect((await MeetingAttendeesQuestion.check(d, meeting, answer(String(meeting.attendees)))).ok).toBe(true);
    expect((await MeetingAttendeesQuestion.check(d, meeting, answer('3'))).ok).toBe(false);
    const recipe = instantiate(RecipeQuantityQuestion, 2).params;
    expect((await RecipeQuantityQuestion.check(d, recipe, answer(recipe.quantity))).ok).toBe(true);
    expect((await RecipeQuantityQuestion.check(d, recipe, answer(`${recipe.quantity} ${recipe.ingredient}x`))).ok).toBe(false);
  });
});

const playlistSql = (q: string) => sh(d, `sqlite3 ${PLAYLIST_DB} "${q}"`);

/** A playlist written as Retro Music stores one (songs in song_key order). */
function writePlaylist(name: string, songs: ReadonlyArray<{ title: string; durationMs: number }>): void {
  playlistSql(`INSERT INTO PlaylistEntity (playlist_name) VALUES (${sqlLiteral(name)})`);
  songs.forEach((s, i) => playlistSql(`INSERT INTO SongEntity (playlist_creator_id, id, title, track_number, year, duration, data, date_modified, album_id, album_name, artist_id, artist_name) VALUES ((SELECT max(playlist_id) FROM PlaylistEntity), ${i + 1}, ${sqlLiteral(s.title)}, 0, 0, ${s.durationMs}, '/x', 0, 1, 'Music', 1, 'A')`));
}

describe('Retro Music templates', () => {
  it('a playlist counts only with the songs in the goal\'s order', async () => {
    const p = await start(CreatePlaylist, seedWhere(CreatePlaylist, (x) => x.songs.length >= 2));
    expect((await CreatePlaylist.check(d, p, none)).ok).toBe(false);
    writePlaylist(p.playlist, [...p.songs].reverse());
    expect((await CreatePlaylist.check(d, p, none)).ok).toBe(false);
    playlistSql('DELETE FROM SongEntity; DELETE FROM PlaylistEntity;');
    writePlaylist(p.playlist.toUpperCase(), p.songs);
    expect((await CreatePlaylist.check(d, p, none)).ok).toBe(true);
    // Saved: the M3U file in Download is wanted as well.
    expect((await SavePlaylist.check(d, p, none)).ok).toBe(false);
    sh(d, `echo '#EXTM3U' > ${sqlLiteral(`/sdcard/Download/${p.playlist}.m3u`)}`);
    expect((await SavePlaylist.check(d, p, none)).ok).toBe(true);
  });

  it('the playing queue must hold exactly the songs, in order', async () => {
    const p = await start(PlayingQueue, 4);
    const queue = (titles: string[]) => {
      sh(d, `sqlite3 ${PLAYBACK_DB} "DELETE FROM playing_queue"`);
      for (const t of titles) sh(d, `sqlite3 ${PLAYBACK_DB} "INSERT INTO playing_queue VALUES (1, ${sqlLiteral(t)}, 0, 0, 1000, '/x', 0, 1, 'Music', 1, 'A', NULL, NULL)"`);
    };
    queue(p.songs.map((s) => s.title));
    expect((await PlayingQueue.check(d, p, none)).ok).toBe(true);
    queue([...p.songs.map((s) => s.title), p.others[0]!.title]);
    expect((await PlayingQueue.check(d, p, none)).ok).toBe(false);
  });

  it('the 45–50 minute playlist: its songs add up in range and it is the only playlist with songs', async () => {
    for (let seed = 0; seed < 8; seed++) {
      const p = instantiate(PlaylistDuration, seed).params;
      const picked = pickDuration(p.songs.map((s) => ({ title: s.title, ms: Math.floor(s.durationMs / 1000) * 1000 })));
      const total = p.songs.filter((s) => picked?.includes(s.title)).reduce((sum, s) => sum + s.durationMs, 0);
      expect(total).toBeGreaterThanOrEqual(45 * 60_000);
      expect(total).toBeLessThanOrEqual(50 * 60_000);
    }
    const p = await start(PlaylistDuration, 2);
    writePlaylist(p.playlist, [{ title: 'A', durationMs: 20 * 60_000 }, { title: 'B', durationMs: 27 * 60_000 }]);
    expect((await PlaylistDuration.check(d, p, none)).ok).toBe(true);
    writePlaylist('Another', [{ title: 'C', durationMs: 60_000 }]);
    expect((await PlaylistDuration.check(d, p, none)).ok).toBe(false);
    playlistSql('DELETE FROM SongEntity; DELETE FROM PlaylistEntity;');
    writePlaylist(p.playlist, [{ title: 'A', durationMs: 44 * 60_000 }]);
    expect((await PlaylistDuration.check(d, p, none)).ok).toBe(false);
  });
});
