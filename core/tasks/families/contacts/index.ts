import type { TaskTemplate } from '../../task.js';

export const CONTACTS_TASKS: readonly TaskTemplate[] = [];
