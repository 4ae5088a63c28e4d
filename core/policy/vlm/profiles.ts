import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { EndpointProfileError } from './errors.js';
import { VlmPolicySettings, type VlmPolicySettingsInput } from './settings.js';

/**
 * Endpoint profiles: named VLM policy settings kept in `<data folder>/endpoints.json`, not in the
 * trajectory store. The file never holds a key. A profile's key is either an environment variable
 * name (`endpoint.apiKeyEnv`) or a secret kept by a SecretStore under the profile's name.
 *
 * SecretStore is the seam for the desktop app: there it is implemented with Electron's safeStorage
 * (encryptString/decryptString, backed by the OS keychain) in electron/, which core must not import.
 * The CLI uses PlainFileSecretStore: `<data folder>/secrets.json`, mode 0600, readable only by the user.
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

const NAME = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, ".", "_" and "-", starting with a letter or digit');

/** A stored profile: the policy settings without `endpoint.apiKey`. */
const StoredSettings = VlmPolicySettings.superRefine((s, ctx) => {
  if (s.endpoint.apiKey !== undefined) ctx.addIssue({ code: 'custom', path: ['endpoint', 'apiKey'], message: 'a profile never stores the key itself' });
});

const ProfilesFile = z.strictObject({
  version: z.literal(1),
  profiles: z.record(z.string(), z.unknown()),
});

export interface EndpointProfile {
  name: string;
  settings: VlmPolicySettings;
  /** A key is kept for this profile in the secret store. */
  hasSecret: boolean;
}

function writeAtomic(path: string, text: string, mode: number): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, path);
  chmodSync(path, mode);
}

export class PlainFileSecretStore implements SecretStore {
  constructor(readonly path: string) {}

  private read(): Record<string, string> {
    if (!existsSync(this.path)) return {};
    const parsed = z.record(z.string(), z.string()).safeParse(JSON.parse(readFileSync(this.path, 'utf8')));
    if (!parsed.success) throw new EndpointProfileError('(secrets)', `${this.path} is not a name → secret map`);
    return parsed.data;
  }

  get(name: string): string | undefined {
    return this.read()[name];
  }

  set(name: string, secret: string): void {
    writeAtomic(this.path, `${JSON.stringify({ ...this.read(), [name]: secret }, null, 2)}\n`, 0o600);
  }

  delete(name: string): void {
    const all = this.read();
    if (!(name in all)) return;
    delete all[name];
    writeAtomic(this.path, `${JSON.stringify(all, null, 2)}\n`, 0o600);
  }
}

export class EndpointProfiles {
  constructor(readonly path: string, readonly secrets: SecretStore) {}

  /** `<dataDir>/endpoints.json` with `<dataDir>/secrets.json` as the secret store. */
  static inDataDir(dataDir: string): EndpointProfiles {
    return new EndpointProfiles(join(dataDir, 'endpoints.json'), new PlainFileSecretStore(join(dataDir, 'secrets.json')));
  }

  private readRaw(): Record<string, unknown> {
    if (!existsSync(this.path)) return {};
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch (e) {
      throw new EndpointProfileError('(file)', `${this.path} is not JSON (${(e as Error).message})`);
    }
    const r = ProfilesFile.safeParse(json);
    if (!r.success) throw new EndpointProfileError('(file)', `${this.path}: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    return r.data.profiles;
  }

  private parse(name: string, raw: unknown): VlmPolicySettings {
    const r = StoredSettings.safeParse(raw);
    if (!r.success) throw new EndpointProfileError(name, r.error.issues.map((i) => `${i.path.join('.') || '(settings)'}: ${i.message}`).join('; '));
    return r.data;
  }

  list(): EndpointProfile[] {
    return Object.entries(this.readRaw()).sort(([a], [b]) => a.localeCompare(b)).map(([name, raw]) => ({
      name, settings: this.parse(name, raw), hasSecret: this.secrets.get(name) !== undefined,
    }));
  }

  get(name: string): EndpointProfile {
    const raw = this.readRaw()[name];
    if (raw === undefined) {
      const known = Object.keys(this.readRaw());
      throw new EndpointProfileError(name, `no such profile in ${this.path}${known.length ? ` (known: ${known.join(', ')})` : ' (none yet: awb endpoints add)'}`);
    }
    return { name, settings: this.parse(name, raw), hasSecret: this.secrets.get(name) !== undefined };
  }

  /**
   * Adds or replaces a profile. A key given in `settings.endpoint.apiKey` goes to the secret store,
   * never into the file; replacing a profile without a key keeps its stored key.
   */
  save(name: string, settings: VlmPolicySettingsInput): EndpointProfile {
    const n = NAME.safeParse(name);
    if (!n.success) throw new EndpointProfileError(name, `bad name: ${n.error.issues[0]!.message}`);
    const { apiKey, ...endpoint } = (settings.endpoint ?? {}) as { apiKey?: string } & Record<string, unknown>;
    const parsed = this.parse(name, { ...settings, endpoint });
    if (apiKey) this.secrets.set(name, apiKey);
    const all = this.readRaw();
    all[name] = parsed;
    writeAtomic(this.path, `${JSON.stringify({ version: 1, profiles: all }, null, 2)}\n`, 0o644);
    return this.get(name);
  }

  remove(name: string): void {
    const all = this.readRaw();
    if (!(name in all)) throw new EndpointProfileError(name, `no such profile in ${this.path}`);
    delete all[name];
    writeAtomic(this.path, `${JSON.stringify({ version: 1, profiles: all }, null, 2)}\n`, 0o644);
    this.secrets.delete(name);
  }

  /** The profile's settings with its key in memory (from the secret store when it has one there). */
  resolve(name: string): VlmPolicySettings {
    const p = this.get(name);
    const secret = this.secrets.get(name);
    if (secret && !p.settings.endpoint.apiKeyEnv) return { ...p.settings, endpoint: { ...p.settings.endpoint, apiKey: secret } };
    return p.settings;
  }
}
