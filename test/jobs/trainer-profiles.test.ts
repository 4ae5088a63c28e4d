import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TrainerProfiles } from '../../core/remote-jobs/profiles.js';
import { EndpointProfiles } from '../../core/policy/vlm/profiles.js';
import type { SecretStore, SettlingSecretStore } from '../../core/util/secret-store.js';
import { scratch, TOKEN } from './fixture.js';

const tmp = scratch('awb-trainer-profiles-');
afterAll(() => tmp.cleanup());

const URL = 'http://gpu-box:8470';
const read = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as unknown;

/** A trainers.json as awb wrote it before tokens moved to the secret store. */
function legacyFile(dir: string, trainers: Array<{ name: string; baseUrl: string; token: string }>): string {
  const file = join(dir, 'trainers.json');
  writeFileSync(file, `${JSON.stringify({ trainers }, null, 2)}\n`, { mode: 0o600 });
  return file;
}

/** An in-memory store like the app's relayed one: writes complete when `ack` is called, or fail. */
function settlingStore(): SettlingSecretStore & { held: Map<string, string>; ack(ok: boolean): void } {
  const held = new Map<string, string>();
  let pending: Array<{ name: string; before: string | undefined; resolve: () => void; reject: (e: Error) => void; done: Promise<void> }> = [];
  const store = {
    held,
    get: (name: string) => held.get(name),
    set: (name: string, secret: string) => {
      const before = held.get(name);
      held.set(name, secret);
      let resolve!: () => void;
      let reject!: (e: Error) => void;
      const done = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
      done.catch(() => {});
      pending.push({ name, before, resolve, reject, done });
    },
    delete: (name: string) => void held.delete(name),
    settled: () => Promise.all(pending.map((p) => p.done)).then(() => {}),
    ack: (ok: boolean) => {
      for (const p of pending) {
        if (ok) p.resolve();
        else {
          if (p.before === undefined) held.delete(p.name);
          else held.set(p.name, p.before);
          p.reject(new Error('write failed'));
        }
      }
      pending = [];
    },
  };
  return store;
}

describe('trainer profiles: the token in the secret store, never in trainers.json', () => {
  it('put / list / get / remove: trainers.json (0600) holds name and URL, secrets.json (0600) the token beside endpoint keys', () => {
    const dir = tmp.dir();
    const endpoints = EndpointProfiles.inDataDir(dir);
    endpoints.save('gpu', { endpoint: { baseUrl: 'http://127.0.0.1:9/v1', model: 'm', apiKey: 'sk-endpoint' } });
    const profiles = new TrainerProfiles(dir);
    profiles.put({ name: 'gpu', baseUrl: URL, token: TOKEN });
    expect(profiles.list()).toEqual([{ name: 'gpu', baseUrl: URL, hasToken: true }]);
    expect(profiles.get('gpu')).toEqual({ name: 'gpu', baseUrl: URL, token: TOKEN });
    expect(read(join(dir, 'trainers.json'))).toEqual({ trainers: [{ name: 'gpu', baseUrl: URL }] });
    expect(statSync(join(dir, 'trainers.json')).mode & 0o777).toBe(0o600);
    // An endpoint and a trainer of the same name keep their own secrets.
    expect(read(join(dir, 'secrets.json'))).toEqual({ gpu: 'sk-endpoint', 'trainer:gpu': TOKEN });
    expect(statSync(join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect(endpoints.resolve('gpu').endpoint.apiKey).toBe('sk-endpoint');
    expect(profiles.remove('gpu')).toBe(true);
    expect(profiles.remove('gpu')).toBe(false);
    expect(read(join(dir, 'secrets.json'))).toEqual({ gpu: 'sk-endpoint' });
    expect(readdirSync(dir).sort()).toEqual(['endpoints.json', 'secrets.json', 'trainers.json']);
  });

  it('a profile whose token is not in this store is listed without one and refused by get with a named error', () => {
    const dir = tmp.dir();
    writeFileSync(join(dir, 'trainers.json'), JSON.stringify({ trainers: [{ name: 'app-only', baseUrl: URL }] }));
    const profiles = new TrainerProfiles(dir);
    expect(profiles.list()).toEqual([{ name: 'app-only', baseUrl: URL, hasToken: false }]);
    expect(() => profiles.get('app-only')).toThrow(expect.objectContaining({ name: 'TrainerProfileError', message: expect.stringMatching(/^Trainer profile "app-only": no token is stored for it here/) }));
    expect(() => profiles.get('nope')).toThrow(/Trainer profile "nope": not found \(known: app-only\)/);
  });

  it('an older trainers.json with tokens in it: they move to secrets.json on first read and the file is written again without them', () => {
    const dir = tmp.dir();
    const file = legacyFile(dir, [{ name: 'b', baseUrl: URL, token: 'token-b' }, { name: 'a', baseUrl: 'https://a.example', token: TOKEN }]);
    const profiles = new TrainerProfiles(dir);
    expect(profiles.list()).toEqual([{ name: 'b', baseUrl: URL, hasToken: true }, { name: 'a', baseUrl: 'https://a.example', hasToken: true }]);
    expect(read(file)).toEqual({ trainers: [{ name: 'a', baseUrl: 'https://a.example' }, { name: 'b', baseUrl: URL }] });
    expect(readFileSync(file, 'utf8')).not.toContain(TOKEN);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(read(join(dir, 'secrets.json'))).toEqual({ 'trainer:b': 'token-b', 'trainer:a': TOKEN });
    expect(new TrainerProfiles(dir).get('a')).toEqual({ name: 'a', baseUrl: 'https://a.example', token: TOKEN });
  });

  it('put on an older file: the new token wins over the inline one it replaces', () => {
    const dir = tmp.dir();
    legacyFile(dir, [{ name: 'gpu', baseUrl: URL, token: 'old-token' }]);
    const profiles = new TrainerProfiles(dir);
    profiles.put({ name: 'gpu', baseUrl: URL, token: TOKEN });
    expect(profiles.get('gpu').token).toBe(TOKEN);
    expect(read(join(dir, 'secrets.json'))).toEqual({ 'trainer:gpu': TOKEN });
  });

  it('a store that refuses the token (the app without a keychain): the file keeps it and the profile works', () => {
    const dir = tmp.dir();
    const file = legacyFile(dir, [{ name: 'gpu', baseUrl: URL, token: TOKEN }]);
    const before = readFileSync(file, 'utf8');
    const refusing: SecretStore = {
      get: () => undefined,
      set: () => {
        throw new Error('no keychain');
      },
      delete: () => {},
    };
    const profiles = new TrainerProfiles(dir, refusing);
    expect(profiles.list()).toEqual([{ name: 'gpu', baseUrl: URL, hasToken: true }]);
    expect(profiles.get('gpu').token).toBe(TOKEN);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('a store whose writes complete later: the file loses the token only once the store acknowledged it', async () => {
    const dir = tmp.dir();
    const file = legacyFile(dir, [{ name: 'gpu', baseUrl: URL, token: TOKEN }]);
    const store = settlingStore();
    // The write fails: the file keeps the token, and the next read tries again.
    expect(new TrainerProfiles(dir, store).get('gpu').token).toBe(TOKEN);
    store.ack(false);
    await new Promise((r) => setImmediate(r));
    expect(readFileSync(file, 'utf8')).toContain(TOKEN);
    expect(store.held.size).toBe(0);
    // It succeeds: the file is written again without it.
    expect(new TrainerProfiles(dir, store).list()).toEqual([{ name: 'gpu', baseUrl: URL, hasToken: true }]);
    expect(readFileSync(file, 'utf8')).toContain(TOKEN);
    store.ack(true);
    await new Promise((r) => setImmediate(r));
    expect(read(file)).toEqual({ trainers: [{ name: 'gpu', baseUrl: URL }] });
    expect(new TrainerProfiles(dir, store).get('gpu').token).toBe(TOKEN);
    expect(Object.fromEntries(store.held)).toEqual({ 'trainer:gpu': TOKEN });
  });

  it('a trainers.json that does not read is a TrainerProfileError naming the file, never echoing a token', () => {
    const dir = tmp.dir();
    writeFileSync(join(dir, 'trainers.json'), '{ not json');
    expect(() => new TrainerProfiles(dir).list()).toThrow(/^Trainer profile ".*trainers\.json": not JSON: /);
    writeFileSync(join(dir, 'trainers.json'), JSON.stringify({ trainers: [{ name: 'gpu', baseUrl: 'ftp://x', token: TOKEN }] }));
    expect(() => new TrainerProfiles(dir).list()).toThrow(expect.objectContaining({ name: 'TrainerProfileError', message: expect.not.stringContaining(TOKEN) }));
  });

  it('a ray profile: dashboard URL, results folder and GPUs, a token only if given; each kind refuses the other\'s fields by name', () => {
    const dir = tmp.dir();
    const profiles = new TrainerProfiles(dir);
    profiles.put({ name: 'cluster', kind: 'ray', baseUrl: 'http://head:8265', resultsDir: '/shared/awb' });
    profiles.put({ name: 'gpu', baseUrl: URL, token: TOKEN });
    expect(profiles.list()).toEqual([
      { name: 'cluster', baseUrl: 'http://head:8265', hasToken: false, kind: 'ray', resultsDir: '/shared/awb', gpus: 1 },
      { name: 'gpu', baseUrl: URL, hasToken: true },
    ]);
    expect(profiles.get('cluster')).toEqual({ name: 'cluster', kind: 'ray', baseUrl: 'http://head:8265', resultsDir: '/shared/awb' });
    // A trainer service's entry is written as before (no kind): older awb versions read the file unchanged.
    expect(read(join(dir, 'trainers.json'))).toEqual({ trainers: [
      { name: 'cluster', kind: 'ray', baseUrl: 'http://head:8265', resultsDir: '/shared/awb' }, { name: 'gpu', baseUrl: URL },
    ] });
    expect(() => profiles.put({ name: 'r', kind: 'ray', baseUrl: 'http://head:8265' })).toThrow(/Trainer profile "r": resultsDir: a ray profile needs its results folder/);
    expect(() => profiles.put({ name: 'r', kind: 'ray', baseUrl: 'http://head:8265', resultsDir: 'rel/dir' })).toThrow(/resultsDir: an absolute path/);
    expect(() => profiles.put({ name: 't', baseUrl: URL, token: TOKEN, resultsDir: '/x' })).toThrow(/resultsDir: only a ray profile has a results folder/);
    expect(() => profiles.put({ name: 't', baseUrl: URL })).toThrow(/token: a trainer service profile needs its token/);
  });
});
