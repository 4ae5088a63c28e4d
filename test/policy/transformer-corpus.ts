import { APP_CATALOG } from '../../core/device/app-catalog.js';
import { instantiate } from '../../core/tasks/instance.js';
import { TASKS } from '../../core/tasks/registry.js';

/**
 * Texts of the task suite for the tests' WordPiece tokenizer (resources/trainer/tools/make_wordpiece.py): every
 * template's instruction at seeds 0–4 and the app names. Printed one per line when run as a script.
 */
export function corpusTexts(): string[] {
  const out = APP_CATALOG.map((a) => a.name);
  for (const t of TASKS) for (let seed = 0; seed < 5; seed++) out.push(instantiate(t, seed).instruction.replace(/\s+/g, ' '));
  return out;
}

if (process.argv[1]?.endsWith('transformer-corpus.ts')) process.stdout.write(`${corpusTexts().join('\n')}\n`);
