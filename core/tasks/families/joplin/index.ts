import type { TaskTemplate } from '../../task.js';
import { QUESTION_TASKS } from './questions.js';

export const JOPLIN_TASKS: readonly TaskTemplate[] = [...QUESTION_TASKS];
