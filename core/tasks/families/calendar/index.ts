import type { TaskTemplate } from '../../task.js';
import { ADD_TASKS } from './add.js';
import { DELETE_TASKS } from './delete.js';
import { EDIT_TASKS } from './edit.js';
import { QUESTION_TASKS } from './questions.js';
import { RELATIVE_TASKS } from './relative.js';
import { SCHEDULE_QUESTION_TASKS } from './schedule-questions.js';

export const CALENDAR_TASKS: readonly TaskTemplate[] = [...ADD_TASKS, ...DELETE_TASKS, ...EDIT_TASKS, ...RELATIVE_TASKS, ...QUESTION_TASKS, ...SCHEDULE_QUESTION_TASKS];
