import { z } from 'zod';
import { launch } from '../../oracle.js';
import { defineTask, type Subgoal, type TaskTemplate } from '../../task.js';
import { met, verdictOf } from '../../verdict.js';
import { addDialogOpen, APP, createPlaylist, selecting, vlcOpen } from './common.js';
import { clearPlaylists, playlistConditions, playlistEntries, playlistTitle, resetVideos, videoFileNames } from './vlc-db.js';

/**
 * Playlists in VLC (AndroidWorld's VlcCreatePlaylist and VlcCreateTwoPlaylists): videos are in
 * VLCVideos with as many noise videos; the media library must end with a playlist of that name
 * holding the named files, in order. The check reads the library's tables as AndroidWorld joins them.
 */
const FileName = z.string().regex(/^[^/]+\.mp4$/, 'a video file name');
const Playlist = z.object({ playlist_name: z.string().min(1), files: z.array(FileName).min(1).max(6), noise_files: z.array(FileName) });
type PlaylistParams = z.infer<typeof Playlist>;

function drawPlaylist(rng: Parameters<TaskTemplate['generate']>[0], avoid: readonly string[] = []): PlaylistParams {
  const n = rng.int(2, 5);
  const files = videoFileNames(rng, n, avoid);
  return { playlist_name: playlistTitle(rng), files, noise_files: videoFileNames(rng, n, [...avoid, ...files]) };
}

const goal = (p: PlaylistParams, where = ' (located in Internal Memory/VLCVideos)') =>
  `Create a playlist titled "${p.playlist_name}" with the following files in VLC${where}, in order: ${p.files.join(', ')}`;

/** The playlist is in the library with its files in order (the check's own conditions). */
const saved = (p: PlaylistParams): Subgoal => ({
  name: `playlist "${p.playlist_name}" saved`,
  check: async ({ device }) => met(playlistConditions(await playlistEntries(device), p.playlist_name, p.files)),
});

export const CreatePlaylist: TaskTemplate<PlaylistParams> = defineTask({
  id: 'VlcCreatePlaylist',
  apps: ['VLC'],
  difficulty: 'medium',
  tags: ['data_entry', 'needs_scrolling', 'long_press', 'dialog'],
  kind: 'completion',
  template: 'Create a playlist titled "{playlist_name}" with the following files in VLC (located in Internal Memory/VLCVideos), in order: {files}',
  params: Playlist,
  maxSteps: 25,
  generate: (rng) => drawPlaylist(rng),
  instruction: (p) => goal(p),
  initialize: async (device, p) => {
    await clearPlaylists(device);
    await resetVideos(device, [...p.files, ...p.noise_files]);
  },
  check: async (device, p) => verdictOf(playlistConditions(await playlistEntries(device), p.playlist_name, p.files)),
  subgoals: (p) => [vlcOpen, selecting, addDialogOpen, saved(p)],
  *oracle(p, ui) {
    yield* launch(ui, APP);
    yield* createPlaylist(ui, p.playlist_name, p.files);
    yield ui.complete();
  },
});

const Two = z.object({ first: Playlist, second: Playlist });
type TwoParams = z.infer<typeof Two>;

export const CreateTwoPlaylists: TaskTemplate<TwoParams> = defineTask({
  id: 'VlcCreateTwoPlaylists',
  apps: ['VLC'],
  difficulty: 'hard',
  tags: ['data_entry', 'needs_scrolling', 'long_press', 'dialog', 'memorization'],
  kind: 'completion',
  template: '{first}. And then, {second}.',
  params: Two,
  maxSteps: 45,
  generate: (rng) => {
    const first = drawPlaylist(rng);
    let second = drawPlaylist(rng, [...first.files, ...first.noise_files]);
    while (second.playlist_name === first.playlist_name) second = { ...second, playlist_name: playlistTitle(rng) };
    return { first, second };
  },
  instruction: (p) => `${goal(p.first)}. And then, ${goal(p.second, '').replace(/^C/, 'c')}.`,
  initialize: async (device, p) => {
    await clearPlaylists(device);
    await resetVideos(device, [...p.first.files, ...p.first.noise_files, ...p.second.files, ...p.second.noise_files]);
  },
  check: async (device, p) => {
    const entries = await playlistEntries(device);
    return verdictOf([...playlistConditions(entries, p.first.playlist_name, p.first.files), ...playlistConditions(entries, p.second.playlist_name, p.second.files)]);
  },
  subgoals: (p) => [vlcOpen, selecting, addDialogOpen, saved(p.first), saved(p.second)],
  *oracle(p, ui) {
    yield* launch(ui, APP);
    yield* createPlaylist(ui, p.first.playlist_name, p.first.files);
    yield* createPlaylist(ui, p.second.playlist_name, p.second.files);
    yield ui.complete();
  },
});

export const VLC_TASKS: readonly TaskTemplate[] = [CreatePlaylist, CreateTwoPlaylists];
