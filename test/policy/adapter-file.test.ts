import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ScorerAdapter } from '../../core/policy/adapter.js';
import {
  AdapterBaseMismatchError, adapterDir, AdapterFileError, adapterPath, appSlug, deserializeAdapter, DuplicateAdapterError, loadAdapter, loadAdapters,
  loadBasePolicy, saveAdapter, serializeAdapter, sha256Hex, type AppAdapter,
} from '../../core/policy/adapter-file.js';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { createRng } from '../../core/util/rng.js';
import { scratch } from '../helpers/scratch.js';

const tmp = scratch('awb-adapters-');
afterAll(tmp.cleanup);

const SHA_A = 'a'.repeat(64);
const SHA_B = 'b'.repeat(64);
const dims = { input: 9, hidden: 4 };

function appAdapter(app: string, pkg: string, baseSha256 = SHA_A, key = app): AppAdapter {
  const adapter = ScorerAdapter.init({ kind: 'lowrank', rank: 2 }, dims, createRng(`file/${key}`));
  const rng = createRng(`file/${key}/values`);
  for (let i = 0; i < adapter.params.length; i++) adapter.params[i] = adapter.params[i]! + (rng.next() - 0.5) / 3;
  return { app, package: pkg, baseSha256, adapter, meta: { method: 'sft', shots: 8 } };
}

function problemsOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AdapterFileError);
    return (e as AdapterFileError).problems;
  }
  throw new Error('expected an AdapterFileError');
}

describe('adapter files', () => {
  it('round-trip bit-exactly with kind, app, package, base and meta', () => {
    const a = appAdapter('Clock', 'com.google.android.deskclock');
    const b = deserializeAdapter(serializeAdapter(a));
    expect(Buffer.from(b.adapter.params.buffer).equals(Buffer.from(a.adapter.params.buffer))).toBe(true);
    expect(b).toMatchObject({ app: 'Clock', package: 'com.google.android.deskclock', baseSha256: SHA_A, meta: { method: 'sft', shots: 8 } });
    expect(b.adapter.spec).toEqual({ kind: 'lowrank', rank: 2 });
    const head = { ...a, adapter: new ScorerAdapter({ kind: 'head' }, dims, Float32Array.from({ length: 2 * 4 + 9 }, (_, i) => i / 7)) };
    expect(Array.from(deserializeAdapter(serializeAdapter(head)).adapter.params)).toEqual(Array.from(head.adapter.params));
  });

  it('list every problem of a bad file at once', () => {
    const good = JSON.parse(serializeAdapter(appAdapter('Clock', 'com.google.android.deskclock'))) as Record<string, unknown>;
    const bad = { ...good, package: 'com.example.notclock', params: { ...(good.params as object), count: 3 }, base: { ...(good.base as object), sha256: 'xyz' } };
    expect(problemsOf(() => deserializeAdapter(JSON.stringify(bad))))
      .toEqual([expect.stringMatching(/^base\.sha256: must be 64 lower-case hex digits/)]);
    const fixed = { ...bad, base: good.base };
    const problems = problemsOf(() => deserializeAdapter(JSON.stringify(fixed), 'x.json'));
    expect(problems).toEqual([
      expect.stringContaining("package com.example.notclock is not Clock's package (com.google.android.deskclock)"),
      expect.stringContaining('params.count 3, a lowrank adapter on {"input":9,"hidden":4} needs 43'),
      expect.stringContaining('params hold 172 bytes, expected 12'),
    ]);
    expect(problemsOf(() => deserializeAdapter('{"format": "awb-policy-adapter", "version": 2}')).length).toBeGreaterThan(4);
    expect(problemsOf(() => deserializeAdapter('not json'))[0]).toMatch(/^not JSON/);
    const nan = appAdapter('Clock', 'com.google.android.deskclock');
    nan.adapter.params[5] = Number.NaN;
    expect(problemsOf(() => deserializeAdapter(serializeAdapter(nan)))).toEqual(['parameter 5 is NaN']);
    expect(problemsOf(() => deserializeAdapter(serializeAdapter({ ...nan, app: 'Nonexistent' })))[0]).toMatch(/app "Nonexistent" is not a known app/);
  });

  it('refuse an adapter of another base and one whose network shape differs from the policy', () => {
    const text = serializeAdapter(appAdapter('Clock', 'com.google.android.deskclock'));
    expect(() => deserializeAdapter(text, 'clock.json', { baseSha256: SHA_B })).toThrow(AdapterBaseMismatchError);
    expect(() => deserializeAdapter(text, 'clock.json', { baseSha256: SHA_B })).toThrow(/trained on base checkpoint sha256 aaaaaaaaaaaa…, not on the loaded policy bbbbbbbbbbbb…/);
    expect(deserializeAdapter(text, 'clock.json', { baseSha256: SHA_A }).app).toBe('Clock');
    const model = createModel(createRng('file/model'));
    expect(problemsOf(() => deserializeAdapter(text, 'clock.json', { model }))[0]).toMatch(/base\.network \{"input":9,"hidden":4\} does not match the loaded policy's/);
  });

  it('are stored per app under the base sha prefix and loaded by package', () => {
    const root = tmp.dir();
    expect(appSlug('Simple SMS Messenger')).toBe('simple-sms-messenger');
    expect(adapterPath(root, SHA_A, 'Audio Recorder')).toBe(join(root, 'aaaaaaaaaaaa', 'audio-recorder.json'));
    expect(loadAdapters(root, SHA_A).size).toBe(0);
    saveAdapter(adapterPath(root, SHA_A, 'Clock'), appAdapter('Clock', 'com.google.android.deskclock'));
    saveAdapter(adapterPath(root, SHA_A, 'Tasks'), appAdapter('Tasks', 'org.tasks'));
    saveAdapter(adapterPath(root, SHA_B, 'Clock'), appAdapter('Clock', 'com.google.android.deskclock', SHA_B));
    const loaded = loadAdapters(root, SHA_A);
    expect([...loaded.keys()].sort()).toEqual(['com.google.android.deskclock', 'org.tasks']);
    expect(loaded.get('org.tasks')!.app).toBe('Tasks');
    expect(loadAdapters(root, SHA_B).size).toBe(1);

    // a file of another base copied into this base's folder is refused, not skipped
    writeFileSync(join(adapterDir(root, SHA_A), 'stray.json'), serializeAdapter(appAdapter('Files', 'com.google.android.documentsui', SHA_B)));
    expect(() => loadAdapters(root, SHA_A)).toThrow(AdapterBaseMismatchError);
    writeFileSync(join(adapterDir(root, SHA_A), 'stray.json'), serializeAdapter(appAdapter('Tasks', 'org.tasks', SHA_A, 'other')));
    expect(() => loadAdapters(root, SHA_A)).toThrow(DuplicateAdapterError);
    expect(() => loadAdapter(join(root, 'missing.json'))).toThrow(/cannot read/);
  });

  it('name a base by the sha256 of its checkpoint bytes', () => {
    const dir = tmp.dir('awb-base-');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, 'policy.json');
    saveCheckpoint(path, createModel(createRng('file/base')));
    const base = loadBasePolicy(path);
    expect(base.sha256).toBe(sha256Hex(readFileSync(path)));
    expect(base.path).toBe(path);
    expect(() => loadBasePolicy(join(dir, 'nope.json'))).toThrow(/cannot read/);
  });
});
