import type { TaskTemplate } from '../../task.js';
import { ChromeMultiply } from './multiply.js';

export const CHROME_TASKS: readonly TaskTemplate[] = [ChromeMultiply];
