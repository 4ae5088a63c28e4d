import type { WritableDB } from '../db.js';

/**
 * The request a served model was sent per step (a VLM policy's chat, its images as references to the steps whose
 * screenshots they show), as JSON: what offline VLM jobs train on with the step's reply (issue 31).
 */
export function up(db: WritableDB): void {
  db.exec('ALTER TABLE steps ADD COLUMN request TEXT;');
}
