import type { TaskTemplate } from '../../task.js';
import { CREATE_TASKS } from './create.js';
import { DELETE_TASKS } from './delete.js';
import { EDIT_TASKS } from './edit.js';
import { ORGANIZE_TASKS } from './organize.js';
import { QUESTION_TASKS } from './questions.js';

export const MARKOR_TASKS: readonly TaskTemplate[] = [...CREATE_TASKS, ...DELETE_TASKS, ...EDIT_TASKS, ...ORGANIZE_TASKS, ...QUESTION_TASKS];
