import type { TaskTemplate } from '../../task.js';
import { MANAGE_TASKS } from './manage.js';
import { QUESTION_TASKS } from './questions.js';
import { RECORD_TASKS } from './record.js';
import { SETTINGS_TASKS } from './settings.js';

export const RECORDER_TASKS: readonly TaskTemplate[] = [...RECORD_TASKS, ...MANAGE_TASKS, ...SETTINGS_TASKS, ...QUESTION_TASKS];
