import type { TaskTemplate } from '../../task.js';
import { ChromeDraw } from './draw.js';
import { ChromeMaze } from './maze.js';
import { ChromeMultiply } from './multiply.js';

export const CHROME_TASKS: readonly TaskTemplate[] = [ChromeDraw, ChromeMaze, ChromeMultiply];
