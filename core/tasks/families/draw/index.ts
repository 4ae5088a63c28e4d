export { DRAW_TASKS } from './create.js';
