import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { TrainerProfileError } from './errors.js';

/**
 * Trainer profiles: name → base URL + bearer token, in <dataDir>/trainers.json (mode 0600, written
 * atomically). The token lives only here: never in the SQLite store, never in a log line or an error
 * message; `publicProfile` is what lists and the UI show.
 */
export const TRAINERS_FILE = 'trainers.json';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const TrainerProfileSchema = z.strictObject({
  name: z.string().regex(NAME, 'letters, digits, . _ - (up to 64), starting with a letter or digit').describe('Profile name used by --trainer'),
  baseUrl: z.string().url().refine((u) => /^https?:\/\//.test(u), 'http:// or https://').describe('The service, e.g. http://gpu-box:8470'),
  token: z.string().min(1).describe('Bearer token (the service prints it once, or --token-file)'),
});
export type TrainerProfile = z.infer<typeof TrainerProfileSchema>;

const FileSchema = z.strictObject({ trainers: z.array(TrainerProfileSchema) });

export interface PublicTrainerProfile {
  name: string;
  baseUrl: string;
  /** The token is set (its value is never shown). */
  hasToken: boolean;
}

export const publicProfile = (p: TrainerProfile): PublicTrainerProfile => ({ name: p.name, baseUrl: p.baseUrl, hasToken: p.token.length > 0 });

export class TrainerProfiles {
  readonly path: string;
  constructor(dataDir: string) {
    this.path = join(dataDir, TRAINERS_FILE);
  }

  list(): TrainerProfile[] {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new TrainerProfileError(this.path, (e as Error).message);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      throw new TrainerProfileError(this.path, `not JSON: ${(e as Error).message}`);
    }
    // Issues name paths and messages only: zod's messages here never echo a token's value.
    const r = FileSchema.safeParse(json);
    if (!r.success) throw new TrainerProfileError(this.path, r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    return r.data.trainers;
  }

  get(name: string): TrainerProfile {
    const p = this.list().find((t) => t.name === name);
    if (!p) {
      const names = this.list().map((t) => t.name);
      throw new TrainerProfileError(name, `not found${names.length ? ` (known: ${names.join(', ')})` : ' (add one with awb jobs trainers add)'}`);
    }
    return p;
  }

  /** Adds or replaces a profile. */
  put(profile: TrainerProfile): void {
    const r = TrainerProfileSchema.safeParse(profile);
    if (!r.success) throw new TrainerProfileError(String(profile.name), r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    this.write([...this.list().filter((t) => t.name !== r.data.name), r.data].sort((a, b) => a.name.localeCompare(b.name)));
  }

  remove(name: string): boolean {
    const all = this.list();
    const rest = all.filter((t) => t.name !== name);
    if (rest.length === all.length) return false;
    this.write(rest);
    return true;
  }

  private write(trainers: TrainerProfile[]): void {
    mkdirSync(join(this.path, '..'), { recursive: true });
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, `${JSON.stringify({ trainers }, null, 2)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, this.path);
  }
}
