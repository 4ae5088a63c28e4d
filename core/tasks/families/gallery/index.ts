import type { TaskTemplate } from '../../task.js';
import { COPY_TASKS } from './copy.js';
import { MOVE_DELETE_TASKS } from './move-delete.js';

export const GALLERY_TASKS: readonly TaskTemplate[] = [...COPY_TASKS, ...MOVE_DELETE_TASKS];
