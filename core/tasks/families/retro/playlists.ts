import { z } from 'zod';
import type { Rng } from '../../../util/rng.js';
import { OracleError, screenSummary } from '../../oracle.js';
import { defineTask, type TaskTemplate } from '../../task.js';
import { fileExists } from '../../validators/files.js';
import { condition, holds, listed, verdictOf } from '../../verdict.js';
import {
  addToPlaylist, DOWNLOAD_DIR, drawSongs, installSongs, newPlaylist, openRetroSongs, playlistName, playlistRows, queueTitles,
  readLibrary, retroOpen, SeedSong, SONG_TITLES, songMenu, songsOf,
} from './common.js';

/**
 * Retro Music's playlist and queue templates, as AndroidWorld's Retro* ask them: a playlist of
 * named songs in order, the same saved as an M3U file in Download, a playing queue of named songs
 * in order, and a playlist whose songs add up to 45–50 minutes (the lengths read in the Songs tab).
 * The library holds the songs named and others.
 */
const Ordered = z.object({ playlist: z.string().min(1), songs: z.array(SeedSong).min(1), others: z.array(SeedSong) });
type Ordered = z.infer<typeof Ordered>;

function ordered(rng: Rng, count: [number, number]): Ordered {
  const titles = rng.sample(SONG_TITLES, 15);
  const n = rng.int(count[0], count[1]);
  const all = drawSongs(rng, titles);
  return { playlist: playlistName(rng), songs: all.slice(0, n), others: all.slice(n) };
}

const names = (songs: readonly SeedSong[]) => songs.map((s) => s.title).join(', ');

async function playlistVerdict(device: Parameters<TaskTemplate['check']>[0], p: Ordered) {
  const rows = songsOf(await playlistRows(device), p.playlist);
  return condition(`playlist "${p.playlist}" holds ${names(p.songs)} in order`, listed(p.songs.map((s) => s.title)), listed(rows.map((r) => r.title), 'no such playlist'));
}

function* createWithSongs(p: { playlist: string; songs: readonly { title: string }[] }, ui: Parameters<TaskTemplate['oracle']>[1]) {
  yield* openRetroSongs(ui);
  yield* newPlaylist(ui, p.playlist);
  for (const s of p.songs) yield* addToPlaylist(ui, s.title, p.playlist);
}

export const CreatePlaylist = defineTask({
  id: 'RetroCreatePlaylist',
  maxSteps: 50,
  apps: ['Retro Music'],
  difficulty: 'medium',
  tags: ['data_entry', 'needs_scrolling', 'complex_ui'],
  kind: 'completion',
  template: 'Create a playlist in Retro Music titled "{playlist}" with the following songs, in order: {names}',
  instruction: (p) => `Create a playlist in Retro Music titled "${p.playlist}" with the following songs, in order: ${names(p.songs)}`,
  params: Ordered,
  generate: (rng) => ordered(rng, [2, 5]),
  initialize: async (device, p) => installSongs(device, [...p.songs, ...p.others]),
  check: async (device, p) => verdictOf([await playlistVerdict(device, p)]),
  subgoals: () => [retroOpen],
  *oracle(p, ui) {
    yield* createWithSongs(p, ui);
  },
});

export const SavePlaylist = defineTask({
  id: 'RetroSavePlaylist',
  maxSteps: 60,
  apps: ['Retro Music'],
  difficulty: 'hard',
  tags: ['data_entry', 'needs_scrolling', 'complex_ui', 'file_management'],
  kind: 'completion',
  template: 'Create a playlist in Retro Music titled "{playlist}" with the following songs, in order: {names}. Then export the playlist to the Downloads directory on the device.',
  instruction: (p) => `Create a playlist in Retro Music titled "${p.playlist}" with the following songs, in order: ${names(p.songs)}. Then export the playlist to the Downloads directory on the device.`,
  params: Ordered,
  generate: (rng) => ordered(rng, [2, 5]),
  initialize: async (device, p) => installSongs(device, [...p.songs, ...p.others]),
  check: async (device, p) => {
    const file = `${DOWNLOAD_DIR}/${p.playlist}.m3u`;
    return verdictOf([await playlistVerdict(device, p), holds(`${file} exists`, await fileExists(device, file))]);
  },
  subgoals: () => [retroOpen],
  *oracle(p, ui) {
    yield* createWithSongs(p, ui);
    yield ui.tap({ contentDesc: 'Playlists' });
    yield ui.tap({ text: p.playlist });
    yield ui.tap({ contentDesc: 'More options' });
    yield ui.tap({ text: 'Save as file' });
  },
});

export const PlayingQueue = defineTask({
  id: 'RetroPlayingQueue',
  maxSteps: 50,
  apps: ['Retro Music'],
  difficulty: 'medium',
  tags: ['data_entry', 'needs_scrolling', 'complex_ui'],
  kind: 'completion',
  template: 'Add the following songs, in order, {names} to my playing queue in Retro music.',
  instruction: (p) => `Add the following songs, in order, ${names(p.songs)} to my playing queue in Retro music.`,
  params: Ordered,
  generate: (rng) => ordered(rng, [2, 5]),
  initialize: async (device, p) => installSongs(device, [...p.songs, ...p.others]),
  check: async (device, p) => {
    const q = await queueTitles(device);
    return verdictOf([condition('the playing queue holds the songs in order', listed(p.songs.map((s) => s.title)), listed(q, 'an empty queue'))]);
  },
  subgoals: () => [retroOpen],
  *oracle(p, ui) {
    yield* openRetroSongs(ui);
    // A queue left from before is cleared first (Now playing › More options › Clear playing queue).
    if (ui.exists({ resourceId: 'miniPlayerFragment' })) {
      yield ui.tap({ resourceId: 'miniPlayerFragment' });
      yield ui.tap({ contentDesc: 'More options' });
      yield ui.tap({ text: 'Clear playing queue' });
    }
    for (const s of p.songs) {
      yield* songMenu(ui, s.title);
      yield ui.tap({ text: 'Add to playing queue' });
    }
  },
});

const MIN_MS = 45 * 60_000;
const MAX_MS = 50 * 60_000;

/** Lengths (ms, each at least 30 s) of `n` songs that add up to `total`. */
function splitInto(rng: Rng, total: number, n: number): number[] {
  const floor = 30_000;
  const cuts = Array.from({ length: n - 1 }, () => rng.int(0, total - n * floor)).sort((a, b) => a - b);
  const edges = [0, ...cuts, total - n * floor];
  return edges.slice(1).map((e, i) => e - edges[i]! + floor);
}

/** Songs whose lengths add up closest to 47.5 minutes within 45.5–49.5 (a margin for lengths read to the second). */
export function pickDuration(songs: ReadonlyArray<{ title: string; ms: number }>): string[] | null {
  let best: { mask: number; miss: number } | null = null;
  for (let mask = 1; mask < 1 << songs.length; mask++) {
    let sum = 0;
    for (let i = 0; i < songs.length; i++) if (mask & (1 << i)) sum += songs[i]!.ms;
    const miss = Math.abs(sum - 47.5 * 60_000);
    if (sum >= MIN_MS + 30_000 && sum <= MAX_MS - 30_000 && (!best || miss < best.miss)) best = { mask, miss };
  }
  return best ? songs.filter((_s, i) => best!.mask & (1 << i)).map((s) => s.title) : null;
}

const Duration = z.object({ playlist: z.string().min(1), songs: z.array(SeedSong).min(1) });

export const PlaylistDuration = defineTask({
  id: 'RetroPlaylistDuration',
  maxSteps: 90,
  apps: ['Retro Music'],
  difficulty: 'hard',
  tags: ['data_entry', 'math_counting', 'needs_scrolling', 'screen_reading', 'complex_ui'],
  kind: 'completion',
  template: 'Create a playlist in Retro Music titled "{playlist}" with a duration between 45 and 50 minutes using the provided songs.',
  params: Duration,
  generate: (rng) => {
    const titles = rng.sample(SONG_TITLES, 15);
    const n = rng.int(9, 11);
    const lengths = splitInto(rng, 47.5 * 60_000, n);
    const fitting = drawSongs(rng, titles.slice(0, n)).map((s, i) => ({ ...s, durationMs: lengths[i]! }));
    return { playlist: playlistName(rng), songs: rng.shuffle([...fitting, ...drawSongs(rng, titles.slice(n))]) };
  },
  initialize: async (device, p) => installSongs(device, p.songs),
  check: async (device, p) => {
    const rows = await playlistRows(device);
    const mine = songsOf(rows, p.playlist);
    const total = mine.reduce((sum, r) => sum + r.duration, 0);
    const others = [...new Set(rows.filter((r) => !mine.includes(r)).map((r) => r.name))];
    return verdictOf([
      condition(`playlist "${p.playlist}" lasts 45–50 minutes`, '45:00–50:00', mine.length ? `${Math.floor(total / 60_000)}:${String(Math.floor((total % 60_000) / 1000)).padStart(2, '0')}` : 'no such playlist', mine.length > 0 && total >= MIN_MS && total <= MAX_MS),
      condition('no other playlist has songs', 'none', listed(others)),
    ]);
  },
  subgoals: () => [retroOpen],
  *oracle(p, ui) {
    yield* openRetroSongs(ui);
    const library = yield* readLibrary(ui);
    const pick = pickDuration(library);
    if (!pick) throw new OracleError('Oracle found no songs adding up to 45–50 minutes', screenSummary(ui.obs));
    yield* createWithSongs({ playlist: p.playlist, songs: pick.map((title) => ({ title })) }, ui);
  },
});

export const RETRO_TASKS: readonly TaskTemplate[] = [CreatePlaylist, SavePlaylist, PlayingQueue, PlaylistDuration];
