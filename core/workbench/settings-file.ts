import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { defaultSettings, SettingsSchema, type Settings } from '../api/settings.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { formatIssues } from '../util/zod-issues.js';
import { PLAIN_ISSUES } from '../util/plain-issues.js';

export class SettingsFileError extends Error {
  override name = 'SettingsFileError';
  constructor(readonly path: string, reason: string) {
    super(`${path}: ${reason}`);
  }
}

/**
 * settings.json in the data folder. A missing file means defaults; a malformed one is an error
 * naming the file (the user's settings are not silently replaced). Written atomically.
 */
export class SettingsFile {
  readonly path: string;
  constructor(dataDir: string) {
    this.path = join(dataDir, 'settings.json');
  }

  read(dataDir: string): Settings {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return defaultSettings(dataDir);
      throw new SettingsFileError(this.path, (e as Error).message);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new SettingsFileError(this.path, `not JSON: ${(e as Error).message}`);
    }
    const r = SettingsSchema.safeParse({ ...defaultSettings(dataDir), ...(json as object) }, PLAIN_ISSUES);
    if (!r.success) throw new SettingsFileError(this.path, formatIssues(r.error.issues));
    return r.data;
  }

  write(s: Settings): void {
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileAtomic(this.path, `${JSON.stringify(s, null, 2)}\n`);
  }
}
