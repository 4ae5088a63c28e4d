import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SafeStorageSecretStore, serveSecrets, type SafeStorageLike, type SecretsHost } from '../../electron/secret-store.js';
import { RelayedSecretStore, type SecretsFromHost } from '../../core/api/ipc/secrets-relay.js';
import { parseFromHost, parseToHost } from '../../core/api/ipc/channel.js';
import { createWorkbench } from '../../core/workbench/index.js';

/**
 * electron/secret-store.ts with a fake safeStorage (Electron's binary is not available here): a
 * reversible byte scramble behind a marker, so ciphertext differs from the key and a foreign blob
 * fails to decrypt, as with the OS keychain. Then the relay to the API host's RelayedSecretStore
 * over an in-memory pair of envelopes (the real ones: parsed as core/api/ipc/channel.ts parses them).
 */
function fakeSafeStorage(opts: { available?: boolean; backend?: string } = {}): SafeStorageLike & { calls: number } {
  const MARK = Buffer.from('FAKE1');
  const fake = {
    calls: 0,
    isEncryptionAvailable: () => opts.available ?? true,
    encryptString: (s: string) => {
      fake.calls++;
      return Buffer.concat([MARK, Buffer.from(s, 'utf8').map((b) => b ^ 0x5a)]);
    },
    decryptString: (b: Buffer) => {
      if (!b.subarray(0, MARK.length).equals(MARK)) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
      return Buffer.from(b.subarray(MARK.length).map((x) => x ^ 0x5a)).toString('utf8');
    },
    ...(opts.backend ? { getSelectedStorageBackend: () => opts.backend! } : {}),
  };
  return fake;
}

const KEY = 'sk-safe-storage-SECRET-777';
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'awb-safe-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('SafeStorageSecretStore with a fake safeStorage', () => {
  it('keeps base64 ciphertext, not the key, in secrets.safe.json (mode 0600), and reads it back', () => {
    const store = SafeStorageSecretStore.inDataDir(dir, fakeSafeStorage());
    store.set('prod', KEY);
    const path = join(dir, 'secrets.safe.json');
    const text = readFileSync(path, 'utf8');
    expect(text).not.toContain(KEY);
    const file = JSON.parse(text) as { version: number; keys: Record<string, string> };
    expect(file.version).toBe(1);
    expect(Buffer.from(file.keys.prod!, 'base64').toString('utf8')).not.toContain(KEY);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(store.get('prod')).toBe(KEY);
    expect(store.get('other')).toBeUndefined();
    store.delete('prod');
    expect(store.get('prod')).toBeUndefined();
  });

  it('refuses to store a key when encryption is unavailable, or only basic_text, and writes nothing', () => {
    for (const safe of [fakeSafeStorage({ available: false }), fakeSafeStorage({ backend: 'basic_text' })]) {
      const store = SafeStorageSecretStore.inDataDir(dir, safe);
      expect(() => store.set('prod', KEY)).toThrow(expect.objectContaining({ name: 'SecretStoreUnavailableError', profile: 'prod' }));
      expect(safe.calls).toBe(0);
      expect(existsSync(join(dir, 'secrets.safe.json'))).toBe(false);
      expect(store.snapshot()).toMatchObject({ available: false, entries: {}, error: expect.any(String) });
    }
    expect(() => SafeStorageSecretStore.inDataDir(dir, fakeSafeStorage({ backend: 'gnome_libsecret' })).set('prod', KEY)).not.toThrow();
  });

  it('snapshot leaves out a key that does not decrypt, naming it (not its bytes)', () => {
    const store = SafeStorageSecretStore.inDataDir(dir, fakeSafeStorage());
    store.set('good', KEY);
    const path = join(dir, 'secrets.safe.json');
    const file = JSON.parse(readFileSync(path, 'utf8'));
    file.keys.foreign = Buffer.from('from another keychain').toString('base64');
    writeFileSync(path, JSON.stringify(file));
    const snap = store.snapshot();
    expect(snap.entries).toEqual({ good: KEY });
    expect(snap.available).toBe(true);
    expect(snap.error).toMatch(/foreign could not be decrypted/);
  });
});

/** The main process's store and the host's relayed store, talking through the real envelope parsers. */
function relayPair(safe: SafeStorageLike) {
  const main = SafeStorageSecretStore.inDataDir(dir, safe);
  const hostListeners = new Set<(m: unknown) => void>();
  // host → main and main → host: delivered asynchronously, as IPC is.
  const relayed = new RelayedSecretStore((m: SecretsFromHost) => setImmediate(() => {
    const parsed = parseFromHost(structuredClone(m));
    hostListeners.forEach((l) => l(parsed));
  }));
  const mainSide: SecretsHost = {
    postMessage: (m) => setImmediate(() => {
      const parsed = parseToHost(structuredClone(m));
      if (parsed && ('secrets' in parsed || 'secretAck' in parsed)) relayed.receive(parsed);
    }),
    onMessage: (l) => (hostListeners.add(l), () => hostListeners.delete(l)),
  };
  const off = serveSecrets(main, mainSide);
  return { main, relayed, off };
}

describe('the API host keeps endpoint keys in the app through the main process (fake safeStorage)', () => {
  it('gets the decrypted keys at start and writes each change back as ciphertext', async () => {
    SafeStorageSecretStore.inDataDir(dir, fakeSafeStorage()).set('old', 'sk-old');
    const { relayed, main } = relayPair(fakeSafeStorage());
    await relayed.ready(2_000);
    expect(relayed.get('old')).toBe('sk-old');
    relayed.set('prod', KEY);
    expect(relayed.get('prod')).toBe(KEY);
    await relayed.settled();
    expect(main.get('prod')).toBe(KEY);
    expect(readFileSync(join(dir, 'secrets.safe.json'), 'utf8')).not.toContain(KEY);
    relayed.delete('old');
    await relayed.settled();
    expect(main.get('old')).toBeUndefined();
  });

  it('a failed write in main rejects settled() and puts the in-memory copy back', async () => {
    const { relayed } = relayPair(fakeSafeStorage());
    await relayed.ready(2_000);
    // The main process cannot read its file any more: its write fails.
    writeFileSync(join(dir, 'secrets.safe.json'), 'not json');
    relayed.set('prod', KEY);
    await expect(relayed.settled()).rejects.toMatchObject({ name: 'SecretWriteError', profile: 'prod', message: expect.stringMatching(/SafeSecretsFileError/) });
    expect(relayed.get('prod')).toBeUndefined();
  });

  it('the workbench stores a saved endpoint key there (no secrets.json), and refuses one when encryption is unavailable', async () => {
    const { relayed } = relayPair(fakeSafeStorage());
    await relayed.ready(2_000);
    const wb = await createWorkbench({ dataDir: dir, adb: false, embeddedDevice: false, secrets: relayed });
    try {
      const list = await wb.saveEndpoint({ name: 'prod', settings: { endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' } }, apiKey: KEY });
      expect(list[0]).toMatchObject({ name: 'prod', hasKey: true });
      expect(existsSync(join(dir, 'secrets.json'))).toBe(false);
      expect(SafeStorageSecretStore.inDataDir(dir, fakeSafeStorage()).get('prod')).toBe(KEY);
      expect(await wb.removeEndpoint({ name: 'prod' })).toEqual([]);
      expect(SafeStorageSecretStore.inDataDir(dir, fakeSafeStorage()).get('prod')).toBeUndefined();
    } finally {
      await wb.close();
    }

    const off = relayPair(fakeSafeStorage({ available: false }));
    await off.relayed.ready(2_000);
    const wb2 = await createWorkbench({ dataDir: dir, adb: false, embeddedDevice: false, secrets: off.relayed });
    try {
      await expect(wb2.saveEndpoint({ name: 'prod', settings: { endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm' } }, apiKey: KEY }))
        .rejects.toMatchObject({ name: 'SecretStoreUnavailableError', profile: 'prod' });
      // The profile was not written either: a key that cannot be kept is not silently dropped.
      expect(await wb2.listEndpoints()).toEqual([]);
      expect(readFileSync(join(dir, 'secrets.safe.json'), 'utf8')).not.toContain(KEY);
    } finally {
      await wb2.close();
    }
  });
});

describe('trainer tokens in the app: the same secret store as endpoint keys (fake safeStorage)', () => {
  const TOKEN = 'trainer-token-SECRET-4242';
  const trainersFile = () => join(dir, 'trainers.json');

  it('saveTrainer keeps the token there (no secrets.json, not in trainers.json), and an older trainers.json gives its token up to it', async () => {
    writeFileSync(trainersFile(), JSON.stringify({ trainers: [{ name: 'old', baseUrl: 'http://127.0.0.1:9', token: 'old-token-SECRET' }] }), { mode: 0o600 });
    const { relayed } = relayPair(fakeSafeStorage());
    await relayed.ready(2_000);
    const wb = await createWorkbench({ dataDir: dir, adb: false, embeddedDevice: false, secrets: relayed });
    try {
      expect(await wb.listTrainers({})).toEqual([{ name: 'old', baseUrl: 'http://127.0.0.1:9', hasToken: true }]);
      await relayed.settled();
      await new Promise((r) => setImmediate(r)); // the file is written again once main acknowledged the token
      expect(readFileSync(trainersFile(), 'utf8')).not.toContain('old-token-SECRET');
      expect(SafeStorageSecretStore.inDataDir(dir, fakeSafeStorage()).get('trainer:old')).toBe('old-token-SECRET');

      const list = await wb.saveTrainer({ name: 'gpu', baseUrl: 'http://127.0.0.1:9', token: TOKEN, saveAnyway: true });
      expect(list).toEqual([{ name: 'gpu', baseUrl: 'http://127.0.0.1:9', hasToken: true }, { name: 'old', baseUrl: 'http://127.0.0.1:9', hasToken: true }]);
      expect(SafeStorageSecretStore.inDataDir(dir, fakeSafeStorage()).get('trainer:gpu')).toBe(TOKEN);
      expect(readFileSync(trainersFile(), 'utf8')).not.toContain(TOKEN);
      expect(readFileSync(join(dir, 'secrets.safe.json'), 'utf8')).not.toContain(TOKEN);
      expect(existsSync(join(dir, 'secrets.json'))).toBe(false);
      expect(await wb.removeTrainer({ name: 'gpu' })).toEqual([{ name: 'old', baseUrl: 'http://127.0.0.1:9', hasToken: true }]);
      expect(SafeStorageSecretStore.inDataDir(dir, fakeSafeStorage()).get('trainer:gpu')).toBeUndefined();
    } finally {
      await wb.close();
    }
  });

  it('without a keychain: a new token is refused (the profile not saved), an older file keeps its token and works', async () => {
    writeFileSync(trainersFile(), JSON.stringify({ trainers: [{ name: 'old', baseUrl: 'http://127.0.0.1:9', token: 'old-token-SECRET' }] }), { mode: 0o600 });
    const { relayed } = relayPair(fakeSafeStorage({ available: false }));
    await relayed.ready(2_000);
    const wb = await createWorkbench({ dataDir: dir, adb: false, embeddedDevice: false, secrets: relayed });
    try {
      expect(await wb.listTrainers({})).toEqual([{ name: 'old', baseUrl: 'http://127.0.0.1:9', hasToken: true }]);
      expect(readFileSync(trainersFile(), 'utf8')).toContain('old-token-SECRET');
      await expect(wb.saveTrainer({ name: 'gpu', baseUrl: 'http://127.0.0.1:9', token: TOKEN, saveAnyway: true }))
        .rejects.toMatchObject({ name: 'SecretStoreUnavailableError', profile: 'gpu', message: expect.stringMatching(/^Cannot store the token of trainer "gpu": /) });
      expect(await wb.listTrainers({})).toEqual([{ name: 'old', baseUrl: 'http://127.0.0.1:9', hasToken: true }]);
      expect(readFileSync(trainersFile(), 'utf8')).not.toContain(TOKEN);
    } finally {
      await wb.close();
    }
  });
});
