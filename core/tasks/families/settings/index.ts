import type { TaskTemplate } from '../../task.js';
import { ABOUT_TASKS } from './about.js';
import { DISPLAY_TASKS } from './display.js';
import { SWITCH_TASKS } from './toggles.js';
import { COMPOSITE_TASKS } from './composite.js';
import { OPEN_APP_TASKS } from './open-app.js';

export const SETTINGS_TASKS: readonly TaskTemplate[] = [...SWITCH_TASKS, ...COMPOSITE_TASKS, ...DISPLAY_TASKS, ...ABOUT_TASKS, ...OPEN_APP_TASKS];
