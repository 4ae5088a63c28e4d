import type { TaskTemplate } from '../../task.js';

export const SMS_TASKS: readonly TaskTemplate[] = [];
