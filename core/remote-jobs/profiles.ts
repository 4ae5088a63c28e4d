import { join } from 'node:path';
import { z } from 'zod';
import { ProfileStore } from '../util/profile-store.js';
import { PlainFileSecretStore, SECRETS_FILE, secretName, type SecretStore } from '../util/secret-store.js';
import { formatIssues } from '../util/zod-issues.js';
import { TrainerProfileError } from './errors.js';

/**
 * Trainer profiles: name → base URL in <dataDir>/trainers.json (mode 0600, written atomically), and
 * the bearer token in the secret store, as endpoint keys are (docs/jobs.md "Trainer profiles"): the
 * CLI's and `awb serve`'s <dataDir>/secrets.json (0600), the app's OS keychain. The token is never
 * in the profiles file, the SQLite store, a log line or an error message; lists show whether one is
 * set. A trainers.json from before keeps the token inline: it moves to the secret store on first read.
 */
export const TRAINERS_FILE = 'trainers.json';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const TrainerProfileSchema = z.strictObject({
  name: z.string().regex(NAME, 'letters, digits, . _ - (up to 64), starting with a letter or digit').describe('Profile name used by --trainer'),
  baseUrl: z.string().url().refine((u) => /^https?:\/\//.test(u), 'http:// or https://').describe('The service, e.g. http://gpu-box:8470'),
  token: z.string().min(1).describe('Bearer token (the service prints it once, or --token-file)'),
});
export type TrainerProfile = z.infer<typeof TrainerProfileSchema>;

/** A profile as the file keeps it: the token only in a file written before tokens moved to the secret store. */
const StoredTrainerSchema = TrainerProfileSchema.extend({ token: TrainerProfileSchema.shape.token.optional() });
type StoredTrainer = z.infer<typeof StoredTrainerSchema>;

const FileSchema = z.strictObject({ trainers: z.array(StoredTrainerSchema) });

export interface PublicTrainerProfile {
  name: string;
  baseUrl: string;
  /** The token is set (its value is never shown). */
  hasToken: boolean;
}

export class TrainerProfiles {
  readonly path: string;
  private readonly store: ProfileStore<StoredTrainer>;

  /** `secrets`: where tokens are kept; default <dataDir>/secrets.json (the CLI's). */
  constructor(dataDir: string, readonly secrets: SecretStore = new PlainFileSecretStore(join(dataDir, SECRETS_FILE))) {
    const path = this.path = join(dataDir, TRAINERS_FILE);
    this.store = new ProfileStore<StoredTrainer>(path, secrets, {
      mode: 0o600,
      secretName: (name) => secretName('trainer', name),
      decode: (json) => {
        // Issues name paths and messages only: zod's messages here never echo a token's value.
        const r = FileSchema.safeParse(json);
        if (!r.success) throw new TrainerProfileError(path, formatIssues(r.error.issues));
        const byName = new Map<string, StoredTrainer>();
        for (const t of r.data.trainers) if (!byName.has(t.name)) byName.set(t.name, t);
        return byName;
      },
      encode: (trainers) => ({ trainers: [...trainers.values()].sort((a, b) => a.name.localeCompare(b.name)) }),
      fileError: (problem, e) => new TrainerProfileError(path, problem === 'json' ? `not JSON: ${e.message}` : e.message),
      inlineSecret: ({ token, ...rest }) => (token === undefined ? undefined : { secret: token, entry: rest }),
    });
  }

  /** Every profile: name, URL and whether its token is here (never the token). */
  list(): PublicTrainerProfile[] {
    return [...this.store.read().values()].map((t) => ({ name: t.name, baseUrl: t.baseUrl, hasToken: this.token(t) !== undefined }));
  }

  /** The profile with its token, to talk to the service. */
  get(name: string): TrainerProfile {
    const trainers = this.store.read();
    const t = trainers.get(name);
    if (!t) {
      const names = [...trainers.keys()];
      throw new TrainerProfileError(name, `not found${names.length ? ` (known: ${names.join(', ')})` : ' (add one with awb jobs trainers add)'}`);
    }
    const token = this.token(t);
    // The app and the CLI keep tokens apart (the OS keychain, secrets.json): a profile added in one has none in the other.
    if (token === undefined) throw new TrainerProfileError(name, 'no token is stored for it here: add the profile again with its token (awb jobs trainers add, or Jobs → Trainers in the app)');
    return { name: t.name, baseUrl: t.baseUrl, token };
  }

  /** Adds or replaces a profile: the token to the secret store first (a refused token saves nothing), then the file. */
  put(profile: TrainerProfile): void {
    const r = TrainerProfileSchema.safeParse(profile);
    if (!r.success) throw new TrainerProfileError(String(profile.name), formatIssues(r.error.issues));
    const { token, ...entry } = r.data;
    // Read first: an older file's inline token moves to the store on reading, and must not overwrite this one.
    const trainers = this.store.read();
    this.store.setSecret(entry.name, token);
    trainers.set(entry.name, entry);
    this.store.write(trainers);
  }

  /** Removes a profile and its token; false when there is no such profile. */
  remove(name: string): boolean {
    const trainers = this.store.read();
    if (!trainers.delete(name)) return false;
    this.store.write(trainers);
    this.store.deleteSecret(name);
    return true;
  }

  /** Resolves once the secret store has written the tokens given so far (the app's writes complete later). */
  settled(): Promise<void> {
    return this.store.settled();
  }

  private token(t: StoredTrainer): string | undefined {
    return this.store.secret(t.name) ?? t.token;
  }
}
