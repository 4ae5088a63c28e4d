import type { TaskTemplate } from '../../task.js';

export const CALENDAR_TASKS: readonly TaskTemplate[] = [];
