import { describeSecret, secretOwner, type SettlingSecretStore } from '../../util/secret-store.js';

/**
 * The app's secrets (endpoint keys, trainer tokens), seen from the API host process. Electron's safeStorage exists only in the
 * main process, while the workbench runs in the host (core/workbench/host.ts), so the host keeps the keys
 * the main process decrypted for it in memory and sends every change back to be encrypted and
 * written there (electron/secret-store.ts). The messages (in channel.ts's envelopes):
 *
 *   host → main  { secretsWanted: true }                          once, when the host starts
 *   main → host  { secrets: { available, entries, error? } }       the decrypted keys by secret name (secretName)
 *   host → main  { secretWrite: { id, name, secret | null } }      set (a string) or delete (null)
 *   main → host  { secretAck: { id, error | null } }               written, or why not
 *
 * `get` is synchronous (the profiles read it per call), writes are acknowledged: `settled()`
 * resolves once every write so far is on disk, and rejects with the main process's reason (the
 * in-memory copy is put back) so the API does not report a key as stored when it is not.
 */
export interface SecretsSnapshot {
  /** safeStorage can encrypt here; without it a key cannot be stored (no plaintext fallback). */
  available: boolean;
  entries: Record<string, string>;
  /** Why `available` is false, or which stored keys could not be decrypted. */
  error?: string;
}

export type SecretsFromHost = { secretsWanted: true } | { secretWrite: { id: number; name: string; secret: string | null } };
export type SecretsToHost = { secrets: SecretsSnapshot } | { secretAck: { id: number; error: string | null } };

/** `secretName`: the secret's name in the store (secretName in core/util/secret-store.ts); `profile`: whose it is. */
export class SecretStoreUnavailableError extends Error {
  override name = 'SecretStoreUnavailableError';
  readonly profile: string;
  constructor(readonly secretName: string, reason: string) {
    super(`Cannot store ${describeSecret(secretName)}: ${reason}`);
    this.profile = secretOwner(secretName).profile;
  }
}

export class SecretWriteError extends Error {
  override name = 'SecretWriteError';
  readonly profile: string;
  constructor(readonly secretName: string, reason: string) {
    const what = describeSecret(secretName);
    super(`${what[0]!.toUpperCase()}${what.slice(1)} was not saved: ${reason}`);
    this.profile = secretOwner(secretName).profile;
  }
}

export class SecretsRelayTimeoutError extends Error {
  override name = 'SecretsRelayTimeoutError';
  constructor(readonly ms: number) {
    super(`The app's main process did not send the endpoint keys within ${ms} ms`);
  }
}

/** A profile name (at most 64) with its kind's prefix (secretName: `trainer:`), and room to spare. */
const MAX_SECRET_NAME = 128;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export function parseSecretsToHost(m: unknown): SecretsToHost | null {
  if (!isObject(m)) return null;
  const s = m.secrets;
  if (isObject(s) && typeof s.available === 'boolean' && isObject(s.entries) && Object.values(s.entries).every((v) => typeof v === 'string')) {
    return { secrets: { available: s.available, entries: s.entries as Record<string, string>, ...(typeof s.error === 'string' ? { error: s.error } : {}) } };
  }
  const a = m.secretAck;
  if (isObject(a) && isId(a.id) && (a.error === null || typeof a.error === 'string')) return { secretAck: { id: a.id, error: a.error } };
  return null;
}

export function parseSecretsFromHost(m: unknown): SecretsFromHost | null {
  if (!isObject(m)) return null;
  if (m.secretsWanted === true) return { secretsWanted: true };
  const w = m.secretWrite;
  if (isObject(w) && isId(w.id) && typeof w.name === 'string' && w.name.length > 0 && w.name.length <= MAX_SECRET_NAME && (w.secret === null || typeof w.secret === 'string')) {
    return { secretWrite: { id: w.id, name: w.name, secret: w.secret } };
  }
  return null;
}

interface Pending {
  name: string;
  done: Promise<void>;
  settle(error: string | null): void;
}

export class RelayedSecretStore implements SettlingSecretStore {
  private entries = new Map<string, string>();
  private snapshot: SecretsSnapshot | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private onSnapshot: (() => void) | null = null;

  constructor(private readonly post: (m: SecretsFromHost) => void, private readonly log: (m: string) => void = () => {}) {}

  /** Asks the main process for the keys; resolves once they arrived. */
  ready(timeoutMs = 10_000): Promise<void> {
    if (this.snapshot) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new SecretsRelayTimeoutError(timeoutMs)), timeoutMs);
      this.onSnapshot = () => {
        clearTimeout(timer);
        resolve();
      };
      this.post({ secretsWanted: true });
    });
  }

  /** A message from the main process (the host routes secrets messages here). */
  receive(m: SecretsToHost): void {
    if ('secrets' in m) {
      this.snapshot = m.secrets;
      this.entries = new Map(Object.entries(m.secrets.entries));
      if (m.secrets.error) this.log(`endpoint keys: ${m.secrets.error}`);
      this.onSnapshot?.();
      this.onSnapshot = null;
      return;
    }
    const p = this.pending.get(m.secretAck.id);
    if (!p) return this.log(`endpoint keys: an acknowledgement for no write (${m.secretAck.id})`);
    this.pending.delete(m.secretAck.id);
    p.settle(m.secretAck.error);
  }

  get(name: string): string | undefined {
    return this.entries.get(name);
  }

  set(name: string, secret: string): void {
    if (!this.snapshot?.available) throw new SecretStoreUnavailableError(name, this.snapshot?.error ?? 'the app\'s secret store is not ready');
    this.write(name, secret);
  }

  delete(name: string): void {
    // Sent even when nothing is held here: main may keep a key it could not decrypt for us, which goes too.
    this.write(name, null);
  }

  private write(name: string, secret: string | null): void {
    const id = this.nextId++;
    const previous = this.entries.get(name);
    if (secret === null) this.entries.delete(name);
    else this.entries.set(name, secret);
    let settle!: (error: string | null) => void;
    const done = new Promise<void>((resolve, reject) => {
      settle = (error) => {
        if (error === null) return resolve();
        // Put the in-memory copy back as it was, unless a later write changed it since.
        if (![...this.pending.values()].some((p) => p.name === name)) {
          if (previous === undefined) this.entries.delete(name);
          else this.entries.set(name, previous);
        }
        reject(new SecretWriteError(name, error));
      };
    });
    // A failure is reported by settled(); this keeps an unobserved one from being an unhandled rejection.
    done.catch(() => {});
    this.pending.set(id, { name, done, settle });
    this.post({ secretWrite: { id, name, secret } });
  }

  async settled(): Promise<void> {
    await Promise.all([...this.pending.values()].map((p) => p.done));
  }
}
