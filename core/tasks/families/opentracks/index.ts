import type { TaskTemplate } from '../../task.js';
import { OPENTRACKS_QUESTIONS } from './questions.js';

export const OPENTRACKS_TASKS: readonly TaskTemplate[] = [...OPENTRACKS_QUESTIONS];
