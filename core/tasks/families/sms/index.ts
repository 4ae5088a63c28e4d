import type { TaskTemplate } from '../../task.js';
import { MANAGE_TASKS } from './manage.js';
import { QUESTION_TASKS } from './questions.js';
import { SEND_TASKS } from './send.js';
import { REPLY_TASKS } from './reply.js';

export const SMS_TASKS: readonly TaskTemplate[] = [...SEND_TASKS, ...REPLY_TASKS, ...MANAGE_TASKS, ...QUESTION_TASKS];
