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

const Two = z.object({
  playlist_name1: z.string().min(1), files1: z.array(FileName).min(1).max(6), noise_files1: z.array(FileName),
  playlist_name2: z.string().min(1), files2: z.array(FileName).min(1).max(6), noise_files2: z.array(FileName),
});
type TwoParams = z.infer<typeof Two>;

const firstOf = (p: TwoParams): PlaylistParams => ({ playlist_name: p.playlist_name1, files: p.files1, noise_files: p.noise_files1 });
const secondOf = (p: TwoParams): PlaylistParams => ({ playlist_name: p.playlist_name2, files: p.files2, noise_files: p.noise_files2 });

export const CreateTwoPlaylists: TaskTemplate<TwoParams> = defineTask({
  id: 'VlcCreateTwoPlaylists',
  apps: ['VLC'],
  difficulty: 'hard',
  tags: ['data_entry', 'needs_scrolling', 'long_press', 'dialog', 'memorization'],
  kind: 'completion',
  template: 'Create a playlist titled "{playlist_name1}" with the following files in VLC (located in Internal Memory/VLCVideos), in order: '
    + '{files1}. And then, create a playlist titled "{playlist_name2}" with the following files in VLC, in order: {files2}.',
  params: Two,
  maxSteps: 45,
  generate: (rng) => {
    const first = drawPlaylist(rng);
    const second = drawPlaylist(rng, [...first.files, ...first.noise_files]);
    while (second.playlist_name === first.playlist_name) second.playlist_name = playlistTitle(rng);
    return {
      playlist_name1: first.playlist_name, files1: first.files, noise_files1: first.noise_files,
      playlist_name2: second.playlist_name, files2: second.files, noise_files2: second.noise_files,
    };
  },
  instruction: (p) => `${goal(firstOf(p))}. And then, ${goal(secondOf(p), '').replace(/^C/, 'c')}.`,
  initialize: async (device, p) => {
    await clearPlaylists(device);
    await resetVideos(device, [...p.files1, ...p.noise_files1, ...p.files2, ...p.noise_files2]);
  },
  check: async (device, p) => {
    const entries = await playlistEntries(device);
    return verdictOf([...playlistConditions(entries, p.playlist_name1, p.files1), ...playlistConditions(entries, p.playlist_name2, p.files2)]);
  },
  subgoals: (p) => [vlcOpen, selecting, addDialogOpen, saved(firstOf(p)), saved(secondOf(p))],
  *oracle(p, ui) {
    yield* launch(ui, APP);
    yield* createPlaylist(ui, p.playlist_name1, p.files1);
    yield* createPlaylist(ui, p.playlist_name2, p.files2);
    yield ui.complete();
  },
});

export const VLC_TASKS: readonly TaskTemplate[] = [CreatePlaylist, CreateTwoPlaylists];
