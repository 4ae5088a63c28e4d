import type { TaskTemplate } from '../../task.js';

export const EXPENSE_TASKS: readonly TaskTemplate[] = [];
