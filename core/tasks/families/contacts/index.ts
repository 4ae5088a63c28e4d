import type { TaskTemplate } from '../../task.js';
import { ADD_TASKS } from './add.js';
import { DELETE_TASKS } from './delete.js';
import { EDIT_TASKS } from './edit.js';
import { QUESTION_TASKS } from './questions.js';
import { DRAFT_TASKS } from './draft.js';

export const CONTACTS_TASKS: readonly TaskTemplate[] = [...ADD_TASKS, ...DRAFT_TASKS, ...EDIT_TASKS, ...DELETE_TASKS, ...QUESTION_TASKS];
