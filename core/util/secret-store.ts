import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic } from './atomic-write.js';
import { WorkbenchError } from './errors.js';

/**
 * Where profiles keep their secrets (endpoints' API keys, trainers' tokens), never in a profiles
 * file. One store holds both kinds, told apart by the secret's name (`secretName`).
 *
 * SecretStore is the seam for the desktop app: there it is implemented with Electron's safeStorage
 * (the OS keychain) in electron/, which core must not import, and reached from the API host through
 * core/api/ipc/secrets-relay.ts. The CLI and `awb serve` use PlainFileSecretStore:
 * `<data folder>/secrets.json`, mode 0600, readable only by the user.
 */
export interface SecretStore {
  get(name: string): string | undefined;
  set(name: string, secret: string): void;
  delete(name: string): void;
}

/** A secret store whose writes complete later (the app's: main process encrypts and writes); `settled` rejects if one failed. */
export interface SettlingSecretStore extends SecretStore {
  settled(): Promise<void>;
}

export const isSettling = (s: SecretStore): s is SettlingSecretStore => typeof (s as Partial<SettlingSecretStore>).settled === 'function';

/** The CLI's secrets file in the data folder. */
export const SECRETS_FILE = 'secrets.json';

/** The kinds of profiles that keep a secret. */
export type SecretKind = 'endpoint' | 'trainer';

/**
 * A profile's secret's name in the store: an endpoint's key under the profile's bare name (as the
 * files written before trainers' tokens moved in have it), every other kind as `<kind>:<profile>`.
 * A profile name has no ':', so the two never meet.
 */
export function secretName(kind: SecretKind, profile: string): string {
  switch (kind) {
    case 'endpoint':
      return profile;
    case 'trainer':
      return `trainer:${profile}`;
  }
}

/** Whose secret a name is: the inverse of secretName. */
export function secretOwner(name: string): { kind: SecretKind; profile: string } {
  if (name.startsWith('trainer:')) return { kind: 'trainer', profile: name.slice('trainer:'.length) };
  return { kind: 'endpoint', profile: name };
}

/** `the key of endpoint "prod"`, `the token of trainer "gpu"`: for messages about a secret. */
export function describeSecret(name: string): string {
  const { kind, profile } = secretOwner(name);
  switch (kind) {
    case 'endpoint':
      return `the key of endpoint ${JSON.stringify(profile)}`;
    case 'trainer':
      return `the token of trainer ${JSON.stringify(profile)}`;
  }
}

/** A secrets file that does not read as a name → secret map. */
export class SecretsFileError extends WorkbenchError {
  override name = 'SecretsFileError';
  constructor(readonly path: string, reason: string) {
    super(`${path} ${reason}`);
  }
}

const SecretsMap = z.record(z.string(), z.string());

export class PlainFileSecretStore implements SecretStore {
  constructor(readonly path: string) {}

  private read(): Record<string, string> {
    if (!existsSync(this.path)) return {};
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch (e) {
      throw new SecretsFileError(this.path, `is not JSON (${(e as Error).message})`);
    }
    const parsed = SecretsMap.safeParse(json);
    if (!parsed.success) throw new SecretsFileError(this.path, 'is not a name → secret map');
    return parsed.data;
  }

  private write(all: Record<string, string>): void {
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileAtomic(this.path, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  }

  get(name: string): string | undefined {
    const all = this.read();
    return Object.hasOwn(all, name) ? all[name] : undefined;
  }

  set(name: string, secret: string): void {
    this.write({ ...this.read(), [name]: secret });
  }

  delete(name: string): void {
    const all = this.read();
    if (!Object.hasOwn(all, name)) return;
    delete all[name];
    this.write(all);
  }
}
