import type { TaskTemplate } from '../../task.js';
import { ALARM_QUESTION_TASKS } from './alarm-questions.js';
import { ALARM_TASKS } from './alarms.js';
import { REPEAT_TASKS } from './repeat.js';
import { STOPWATCH_TASKS } from './stopwatch.js';
import { TIMER_TASKS } from './timer.js';
import { WORLD_CLOCK_TASKS } from './world-clock.js';

export const CLOCK_TASKS: readonly TaskTemplate[] = [
  ...ALARM_TASKS, ...REPEAT_TASKS, ...ALARM_QUESTION_TASKS, ...TIMER_TASKS, ...STOPWATCH_TASKS, ...WORLD_CLOCK_TASKS,
];
