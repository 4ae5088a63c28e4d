import type { TaskTemplate } from '../../task.js';

export const MARKOR_TASKS: readonly TaskTemplate[] = [];
