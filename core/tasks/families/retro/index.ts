import type { TaskTemplate } from '../../task.js';
import { RETRO_TASKS } from './playlists.js';

export const RETRO_MUSIC_TASKS: readonly TaskTemplate[] = [...RETRO_TASKS];
