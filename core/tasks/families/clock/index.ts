import type { TaskTemplate } from '../../task.js';

export const CLOCK_TASKS: readonly TaskTemplate[] = [];
