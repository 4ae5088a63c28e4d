import type { TaskTemplate } from '../../task.js';

export const MULTI_APP_TASKS: readonly TaskTemplate[] = [];
