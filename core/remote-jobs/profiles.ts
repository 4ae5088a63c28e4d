import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { ProfileStore } from '../util/profile-store.js';
import { PlainFileSecretStore, SECRETS_FILE, secretName, type SecretStore } from '../util/secret-store.js';
import { assertNever } from '../util/errors.js';
import { formatIssues } from '../util/zod-issues.js';
import { TrainerProfileError } from './errors.js';
import { PLAIN_ISSUES } from '../util/plain-issues.js';

/**
 * Trainer profiles: name → base URL in <dataDir>/trainers.json (mode 0600, written atomically), and
 * the bearer token in the secret store, as endpoint keys are (docs/jobs.md "Trainer profiles"). A profile of kind
 * `ray` names a Ray cluster instead of our trainer service: the head's dashboard URL (the Jobs REST API), the results
 * folder on storage shared with the cluster, and a token only where the dashboard asks for one (docs/jobs.md "Ray"). The
 * CLI's and `awb serve`'s <dataDir>/secrets.json (0600), the app's OS keychain. The token is never
 * in the profiles file, the SQLite store, a log line or an error message; lists show whether one is
 * set. A trainers.json from before keeps the token inline: it moves to the secret store on first read.
 */
export const TRAINERS_FILE = 'trainers.json';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const TRAINER_PROFILE_KINDS = ['trainer', 'ray'] as const;
export type TrainerProfileKind = (typeof TRAINER_PROFILE_KINDS)[number];

const ProfileFields = {
  name: z.string().regex(NAME, 'letters, digits, . _ - (up to 64), starting with a letter or digit').describe('Profile name used by --trainer'),
  baseUrl: z.string().url().refine((u) => /^https?:\/\//.test(u), 'http:// or https://').describe('The service, e.g. http://gpu-box:8470; a Ray head\'s dashboard, e.g. http://head:8265'),
  kind: z.enum(TRAINER_PROFILE_KINDS).optional().describe('trainer (default): the awb trainer service; ray: a Ray cluster\'s Jobs API'),
  token: z.string().min(1).optional().describe('Bearer token (the service prints it once, or --token-file); optional for ray'),
  resultsDir: z.string().refine(isAbsolute, 'an absolute path').optional()
    .describe('ray: the folder on shared storage where finished jobs are published, at the same path here and on the cluster'),
  gpus: z.int().min(0).max(1024).optional().describe('ray: GPUs each job reserves (entrypoint_num_gpus; default 1, >1 runs torchrun)'),
};

/** The kinds' rules: a trainer service needs its token and has no results folder; a Ray cluster needs its results folder. */
function checkKind(p: { kind?: TrainerProfileKind | undefined; resultsDir?: string | undefined; gpus?: number | undefined }, ctx: z.RefinementCtx, tokenRequired: boolean, token?: string): void {
  const kind = p.kind ?? 'trainer';
  switch (kind) {
    case 'trainer':
      if (tokenRequired && !token) ctx.addIssue({ code: 'custom', path: ['token'], message: 'a trainer service profile needs its token' });
      if (p.resultsDir !== undefined) ctx.addIssue({ code: 'custom', path: ['resultsDir'], message: 'only a ray profile has a results folder' });
      if (p.gpus !== undefined) ctx.addIssue({ code: 'custom', path: ['gpus'], message: 'only a ray profile sets GPUs per job (the service: serve --gpus)' });
      return;
    case 'ray':
      if (p.resultsDir === undefined) ctx.addIssue({ code: 'custom', path: ['resultsDir'], message: 'a ray profile needs its results folder (Ray has no artifact download)' });
      return;
    default:
      assertNever(kind, 'trainer profile kind');
  }
}

export const TrainerProfileSchema = z.strictObject(ProfileFields).superRefine((p, ctx) => checkKind(p, ctx, true, p.token));
export type TrainerProfile = z.infer<typeof TrainerProfileSchema>;

/** A profile as the file keeps it: the token only in a file written before tokens moved to the secret store. */
const StoredTrainerSchema = z.strictObject(ProfileFields).superRefine((p, ctx) => checkKind(p, ctx, false));
type StoredTrainer = z.infer<typeof StoredTrainerSchema>;

const FileSchema = z.strictObject({ trainers: z.array(StoredTrainerSchema) });

export interface PublicTrainerProfile {
  name: string;
  baseUrl: string;
  /** The token is set (its value is never shown). */
  hasToken: boolean;
  /** Only on a Ray cluster's profile (absent: the trainer service). */
  kind?: 'ray';
  resultsDir?: string;
  gpus?: number;
}

/** GPUs a Ray job reserves when the profile does not say (as `awb_trainer ray-submit --gpus`). */
export const DEFAULT_RAY_GPUS = 1;

/** The profile's kind, `trainer` when the file does not say (every profile written before Ray profiles existed). */
export const profileKind = (p: Pick<TrainerProfile, 'kind'>): TrainerProfileKind => p.kind ?? 'trainer';

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
    return [...this.store.read().values()].map((t) => ({
      name: t.name, baseUrl: t.baseUrl, hasToken: this.token(t) !== undefined,
      ...(profileKind(t) === 'ray' ? { kind: 'ray' as const, resultsDir: t.resultsDir!, gpus: t.gpus ?? DEFAULT_RAY_GPUS } : {}),
    }));
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
    const { token: _inline, ...entry } = t;
    // A Ray dashboard usually has no token (one behind a proxy, or with Ray's token auth, has).
    if (profileKind(t) === 'ray') return token === undefined ? entry : { ...entry, token };
    // The app and the CLI keep tokens apart (the OS keychain, secrets.json): a profile added in one has none in the other.
    if (token === undefined) throw new TrainerProfileError(name, 'no token is stored for it here: add the profile again with its token (awb jobs trainers add, or Jobs → Trainers in the app)');
    return { ...entry, token };
  }

  /** A profile checked against the schema and the kinds' rules (TrainerProfileError listing every problem). */
  static validate(profile: TrainerProfile): TrainerProfile {
    const r = TrainerProfileSchema.safeParse(profile, PLAIN_ISSUES);
    if (!r.success) throw new TrainerProfileError(String(profile.name), formatIssues(r.error.issues));
    return r.data;
  }

  /** Adds or replaces a profile: the token to the secret store first (a refused token saves nothing), then the file. */
  put(profile: TrainerProfile): void {
    const { token, ...entry } = TrainerProfiles.validate(profile);
    // Read first: an older file's inline token moves to the store on reading, and must not overwrite this one.
    const trainers = this.store.read();
    if (token !== undefined) this.store.setSecret(entry.name, token);
    else this.store.deleteSecret(entry.name); // a Ray profile saved without a token must not keep an older one
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
