import type { TaskTemplate } from '../../task.js';
import { CREATE_FOLDER_TASKS } from './create-folder.js';
import { DELETE_TASKS } from './delete.js';
import { QUESTION_TASKS } from './questions.js';
import { RENAME_TASKS } from './rename.js';
import { TRANSFER_TASKS } from './transfer.js';

export const FILES_TASKS: readonly TaskTemplate[] = [...DELETE_TASKS, ...RENAME_TASKS, ...TRANSFER_TASKS, ...CREATE_FOLDER_TASKS, ...QUESTION_TASKS];
