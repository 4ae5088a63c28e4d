import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describeSecret, type SecretStore } from '../core/util/secret-store.js';
import { writeFileAtomic } from '../core/util/atomic-write.js';
import { parseSecretsFromHost, SecretStoreUnavailableError, type SecretsSnapshot, type SecretsToHost } from '../core/api/ipc/secrets-relay.js';

/**
 * The app's secrets (endpoint keys, trainer tokens), encrypted with Electron's safeStorage (the OS
 * keychain: Keychain on macOS, DPAPI on Windows, the Secret Service / KWallet on Linux) and kept as
 * base64 ciphertext in `<data folder>/secrets.safe.json` (mode 0600, written atomically). It runs in the main process,
 * where safeStorage lives; the workbench in the API host reads and writes it through
 * core/api/ipc/secrets-relay.ts (`serveSecrets` below).
 *
 * Where encryption is not available (no keyring on Linux, or only Chromium's `basic_text` backend,
 * whose key is a constant: ciphertext anyone can decrypt), storing a key is refused with
 * SecretStoreUnavailableError (the error the API host raises too): there is no silent plaintext fallback. The CLI's plain
 * `<data folder>/secrets.json` is not read (no migration): its keys stay the CLI's; add the key
 * again in the app (docs/policy-vlm.md "API keys").
 *
 * safeStorage is passed in (its shape below), so this module loads without Electron in tests.
 */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only in Electron: 'basic_text' means a hard-coded key, refused like no encryption. */
  getSelectedStorageBackend?(): string;
}

export class SafeSecretsFileError extends Error {
  override name = 'SafeSecretsFileError';
  constructor(readonly path: string, reason: string) {
    super(`${path}: ${reason}`);
  }
}

/** The app's data folder, as core/util/data-dir.ts computes it (not imported: it loads the SQLite store into main). */
export function appDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.AWB_HOME ? resolve(env.AWB_HOME) : join(homedir(), '.awb');
}

const FILE_VERSION = 1;

export class SafeStorageSecretStore implements SecretStore {
  constructor(readonly path: string, private readonly safe: SafeStorageLike) {}

  static inDataDir(dataDir: string, safe: SafeStorageLike): SafeStorageSecretStore {
    return new SafeStorageSecretStore(join(dataDir, 'secrets.safe.json'), safe);
  }

  /** Why a key cannot be stored here, or null when it can. */
  unavailableReason(): string | null {
    if (!this.safe.isEncryptionAvailable()) return 'the OS keychain is not available to Electron safeStorage (on Linux: no Secret Service or KWallet)';
    if (this.safe.getSelectedStorageBackend?.() === 'basic_text') return "Electron safeStorage would use its 'basic_text' backend (a fixed key, no real encryption): start a Secret Service or KWallet";
    return null;
  }

  /** Secret name (core/util/secret-store.ts secretName) → base64 ciphertext. */
  private read(): Record<string, string> {
    if (!existsSync(this.path)) return {};
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch (e) {
      throw new SafeSecretsFileError(this.path, `not JSON (${(e as Error).message})`);
    }
    const f = json as { version?: unknown; keys?: unknown };
    if (f.version !== FILE_VERSION || typeof f.keys !== 'object' || f.keys === null || Object.values(f.keys).some((v) => typeof v !== 'string')) {
      throw new SafeSecretsFileError(this.path, `expected { "version": ${FILE_VERSION}, "keys": { name: base64 ciphertext } }`);
    }
    return f.keys as Record<string, string>;
  }

  private write(keys: Record<string, string>): void {
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileAtomic(this.path, `${JSON.stringify({ version: FILE_VERSION, keys }, null, 2)}\n`, { mode: 0o600 });
  }

  get(name: string): string | undefined {
    const c = this.read()[name];
    return c === undefined ? undefined : this.safe.decryptString(Buffer.from(c, 'base64'));
  }

  set(name: string, secret: string): void {
    const reason = this.unavailableReason();
    if (reason) throw new SecretStoreUnavailableError(name, reason);
    this.write({ ...this.read(), [name]: this.safe.encryptString(secret).toString('base64') });
  }

  delete(name: string): void {
    const keys = this.read();
    if (!(name in keys)) return;
    delete keys[name];
    this.write(keys);
  }

  /** Every key decrypted, for the API host; one that does not decrypt (another keychain) is left out and named in `error`. */
  snapshot(): SecretsSnapshot {
    const entries: Record<string, string> = {};
    const bad: string[] = [];
    let keys: Record<string, string> = {};
    let fileError: string | null = null;
    try {
      keys = this.read();
    } catch (e) {
      fileError = (e as Error).message;
    }
    for (const [name, c] of Object.entries(keys)) {
      try {
        entries[name] = this.safe.decryptString(Buffer.from(c, 'base64'));
      } catch {
        bad.push(name); // the reason may quote the ciphertext's bytes: only the name is reported
      }
    }
    const reason = this.unavailableReason();
    const problems = [
      ...(reason ? [reason] : []), ...(fileError ? [fileError] : []),
      ...(bad.length ? [`the stored keys of ${bad.join(', ')} could not be decrypted (saved under another user or keychain?): add them again`] : []),
    ];
    return { available: reason === null, entries, ...(problems.length ? { error: problems.join('; ') } : {}) };
  }
}

/** The API host process as serveSecrets needs it (host-process.ts's HostProcess has this shape). */
export interface SecretsHost {
  postMessage(m: SecretsToHost): void;
  onMessage(listener: (m: unknown) => void): () => void;
}

/**
 * Serves the store to the API host (core/api/ipc/secrets-relay.ts): the decrypted keys when it asks,
 * and each write it sends, acknowledged with the error's message if it failed. Never logs a key.
 */
export function serveSecrets(store: SafeStorageSecretStore, host: SecretsHost, log: (m: string) => void = () => {}): () => void {
  return host.onMessage((raw) => {
    const m = parseSecretsFromHost(raw);
    if (!m) return;
    if ('secretsWanted' in m) return host.postMessage({ secrets: store.snapshot() });
    const { id, name, secret } = m.secretWrite;
    let error: string | null = null;
    try {
      if (secret === null) store.delete(name);
      else store.set(name, secret);
    } catch (e) {
      error = `${(e as Error).name}: ${(e as Error).message}`;
      log(`${describeSecret(name)}: ${error}`);
    }
    host.postMessage({ secretAck: { id, error } });
  });
}
