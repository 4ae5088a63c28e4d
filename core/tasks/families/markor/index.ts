import type { TaskTemplate } from '../../task.js';
import { CREATE_TASKS } from './create.js';
import { DELETE_TASKS } from './delete.js';
import { EDIT_TASKS } from './edit.js';
import { ORGANIZE_TASKS } from './organize.js';
import { QUESTION_TASKS } from './questions.js';
import { REWRITE_TASKS } from './rewrite.js';

export const MARKOR_TASKS: readonly TaskTemplate[] = [...CREATE_TASKS, ...DELETE_TASKS, ...EDIT_TASKS, ...ORGANIZE_TASKS, ...REWRITE_TASKS, ...QUESTION_TASKS];
