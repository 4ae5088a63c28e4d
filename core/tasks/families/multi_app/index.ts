import type { TaskTemplate } from '../../task.js';
import { MESSAGE_TASKS } from './messages.js';
import { NOTE_TASKS } from './notes.js';
import { SYSTEM_TASKS } from './system.js';
import { IMPORT_TASKS } from './imports.js';

export const MULTI_APP_TASKS: readonly TaskTemplate[] = [...MESSAGE_TASKS, ...NOTE_TASKS, ...IMPORT_TASKS, ...SYSTEM_TASKS];
