export { OSMAND_TASKS } from './places.js';
