import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Temp dirs under the OS temp folder named `<prefix>XXXXXX` (or another prefix given to `dir`), all
 * removed by `cleanup`: call it in afterAll, so test runs leave nothing behind.
 */
export function scratch(prefix: string): { dir: (name?: string) => string; cleanup: () => void } {
  const made: string[] = [];
  return {
    dir: (name = prefix) => {
      const d = mkdtempSync(join(tmpdir(), name));
      made.push(d);
      return d;
    },
    cleanup: () => {
      for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}
