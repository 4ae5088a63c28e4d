import type { TaskTemplate } from '../../task.js';
import { ADD_TASKS } from './add.js';
import { MODIFY_TASKS } from './modify.js';
import { QUESTION_TASKS } from './questions.js';
import { DATE_QUESTION_TASKS } from './date-questions.js';

export const TASKS_APP_TASKS: readonly TaskTemplate[] = [...ADD_TASKS, ...MODIFY_TASKS, ...QUESTION_TASKS, ...DATE_QUESTION_TASKS];
