import type { TaskTemplate } from '../../task.js';

export const TASKS_APP_TASKS: readonly TaskTemplate[] = [];
