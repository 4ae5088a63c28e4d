import type { TaskTemplate } from '../../task.js';

export const RECIPES_TASKS: readonly TaskTemplate[] = [];
