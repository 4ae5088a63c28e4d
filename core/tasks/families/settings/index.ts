import type { TaskTemplate } from '../../task.js';
import { ABOUT_TASKS } from './about.js';
import { DISPLAY_TASKS } from './display.js';
import { SWITCH_TASKS } from './toggles.js';

export const SETTINGS_TASKS: readonly TaskTemplate[] = [...SWITCH_TASKS, ...DISPLAY_TASKS, ...ABOUT_TASKS];
