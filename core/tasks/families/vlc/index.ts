import type { TaskTemplate } from '../../task.js';
import { VLC_TASKS as PLAYLIST_TASKS } from './playlists.js';

export const VLC_TASKS: readonly TaskTemplate[] = [...PLAYLIST_TASKS];
