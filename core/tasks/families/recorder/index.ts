import type { TaskTemplate } from '../../task.js';

export const RECORDER_TASKS: readonly TaskTemplate[] = [];
