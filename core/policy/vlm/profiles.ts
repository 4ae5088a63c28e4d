import { join } from 'node:path';
import { z } from 'zod';
import { ProfileStore } from '../../util/profile-store.js';
import { PlainFileSecretStore, SECRETS_FILE, secretName, type SecretStore } from '../../util/secret-store.js';
import { formatIssues } from '../../util/zod-issues.js';
import { EndpointProfileError } from './errors.js';
import { VlmPolicySettings, type VlmPolicySettingsInput } from './settings.js';

/**
 * Endpoint profiles: named VLM policy settings kept in `<data folder>/endpoints.json`, not in the
 * trajectory store. The file never holds a key. A profile's key is either an environment variable
 * name (`endpoint.apiKeyEnv`) or a secret kept by a SecretStore (core/util/secret-store.ts: the
 * app's OS keychain, the CLI's `<data folder>/secrets.json`) under the profile's name.
 */

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

export class EndpointProfiles {
  /** The profiles' settings as stored (each parsed when used: one that no longer validates fails alone). */
  private readonly store: ProfileStore<unknown>;

  constructor(readonly path: string, readonly secrets: SecretStore) {
    this.store = new ProfileStore<unknown>(path, secrets, {
      mode: 0o644,
      secretName: (name) => secretName('endpoint', name),
      decode: (json) => {
        const r = ProfilesFile.safeParse(json);
        if (!r.success) throw new EndpointProfileError('(file)', `${path}: ${formatIssues(r.error.issues)}`);
        return new Map(Object.entries(r.data.profiles));
      },
      encode: (profiles) => ({ version: 1, profiles: Object.fromEntries(profiles) }),
      fileError: (problem, e) => (problem === 'json' ? new EndpointProfileError('(file)', `${path} is not JSON (${e.message})`) : e),
    });
  }

  /** `<dataDir>/endpoints.json` with `<dataDir>/secrets.json` as the secret store. */
  static inDataDir(dataDir: string): EndpointProfiles {
    return new EndpointProfiles(join(dataDir, 'endpoints.json'), new PlainFileSecretStore(join(dataDir, SECRETS_FILE)));
  }

  private parse(name: string, raw: unknown): VlmPolicySettings {
    const r = StoredSettings.safeParse(raw);
    if (!r.success) throw new EndpointProfileError(name, formatIssues(r.error.issues, { root: '(settings)' }));
    return r.data;
  }

  list(): EndpointProfile[] {
    return [...this.store.read()].sort(([a], [b]) => a.localeCompare(b)).map(([name, raw]) => ({
      name, settings: this.parse(name, raw), hasSecret: this.key(name) !== undefined,
    }));
  }

  get(name: string): EndpointProfile {
    const all = this.store.read();
    if (!all.has(name)) {
      const known = [...all.keys()];
      throw new EndpointProfileError(name, `no such profile in ${this.path}${known.length ? ` (known: ${known.join(', ')})` : ' (none yet: awb endpoints add)'}`);
    }
    return { name, settings: this.parse(name, all.get(name)), hasSecret: this.key(name) !== undefined };
  }

  /**
   * Adds or replaces a profile. A key given in `settings.endpoint.apiKey` goes to the secret store,
   * never into the file; replacing a profile without a key keeps its stored key. A loaded prompt
   * template's text is dropped (the profile keeps `promptTemplate`, the reference).
   */
  save(name: string, settings: VlmPolicySettingsInput): EndpointProfile {
    const n = NAME.safeParse(name);
    if (!n.success) throw new EndpointProfileError(name, `bad name: ${n.error.issues[0]!.message}`);
    const { apiKey, ...endpoint } = (settings.endpoint ?? {}) as { apiKey?: string } & Record<string, unknown>;
    // The profile names its prompt template; the text is loaded again at each run, never kept.
    const { promptTemplateText: _loaded, promptTool: _tool, promptTexts: _texts, ...rest } = settings;
    const parsed = this.parse(name, { ...rest, endpoint });
    if (apiKey) this.store.setSecret(name, apiKey);
    const all = this.store.read();
    all.set(name, parsed);
    this.store.write(all);
    return this.get(name);
  }

  remove(name: string): void {
    const all = this.store.read();
    if (!all.delete(name)) throw new EndpointProfileError(name, `no such profile in ${this.path}`);
    this.store.write(all);
    this.store.deleteSecret(name);
  }

  /** The key kept for the profile in the secret store, if any. */
  key(name: string): string | undefined {
    return this.store.secret(name);
  }

  /** Forgets the profile's stored key (the profile stays). */
  forgetKey(name: string): void {
    this.store.deleteSecret(name);
  }

  /** The profile's settings with its key in memory (from the secret store when it has one there). */
  resolve(name: string): VlmPolicySettings {
    const p = this.get(name);
    const secret = this.key(name);
    if (secret && !p.settings.endpoint.apiKeyEnv) return { ...p.settings, endpoint: { ...p.settings.endpoint, apiKey: secret } };
    return p.settings;
  }
}
