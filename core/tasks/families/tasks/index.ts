import type { TaskTemplate } from '../../task.js';
import { ADD_TASKS } from './add.js';
import { MODIFY_TASKS } from './modify.js';
import { QUESTION_TASKS } from './questions.js';

export const TASKS_APP_TASKS: readonly TaskTemplate[] = [...ADD_TASKS, ...MODIFY_TASKS, ...QUESTION_TASKS];
