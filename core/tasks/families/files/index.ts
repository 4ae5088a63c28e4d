import type { TaskTemplate } from '../../task.js';

export const FILES_TASKS: readonly TaskTemplate[] = [];
