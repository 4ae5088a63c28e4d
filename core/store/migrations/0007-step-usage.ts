import type { WritableDB } from '../db.js';

/**
 * The model server's token counts per step (its `usage`: prompt and completion tokens), for steps a served VLM
 * decided. Both or neither: a trainer compares the prompt count with its own processor's (pixel settings that differ
 * between server and trainer show up as a different number of image tokens).
 */
export function up(db: WritableDB): void {
  db.exec(`
    ALTER TABLE steps ADD COLUMN prompt_tokens INTEGER CHECK (prompt_tokens >= 0);
    ALTER TABLE steps ADD COLUMN completion_tokens INTEGER CHECK (completion_tokens >= 0 AND (completion_tokens IS NULL) = (prompt_tokens IS NULL));
  `);
}
