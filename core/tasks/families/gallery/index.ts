export { GALLERY_TASKS } from './copy.js';
