import type { TaskTemplate } from '../../task.js';
import { ChromeMaze } from './maze.js';
import { ChromeMultiply } from './multiply.js';

export const CHROME_TASKS: readonly TaskTemplate[] = [ChromeMaze, ChromeMultiply];
