import type { TaskTemplate } from '../../task.js';
import { MESSAGE_TASKS } from './messages.js';
import { NOTE_TASKS } from './notes.js';
import { SYSTEM_TASKS } from './system.js';

export const MULTI_APP_TASKS: readonly TaskTemplate[] = [...MESSAGE_TASKS, ...NOTE_TASKS, ...SYSTEM_TASKS];
