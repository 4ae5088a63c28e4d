import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { APP_CATALOG, findApp } from '../device/app-catalog.js';
import { ADAPTER_KINDS, adapterParameterCount, MAX_ADAPTER_RANK, ScorerAdapter, type AdapterSpec } from './adapter.js';
import type { PolicyModel } from './builtin.js';
import { CheckpointError, deserializeCheckpoint } from './checkpoint.js';
import { decodeFloat32Params, encodeFloat32Params, Float32ParamsSchema } from '../util/float32-params.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { issueLines } from '../util/zod-issues.js';

/**
 * A per-app adapter file is one JSON object:
 *
 *   { format: "awb-policy-adapter", version: 1, app: "Clock", package: "com.google.android.deskclock",
 *     adapter: {kind: "lowrank", rank: 4} | {kind: "head"},
 *     base: {sha256, network: {input, hidden}},
 *     params: {dtype: "float32-le", count, base64}, meta: {...} }
 *
 * `base.sha256` is the SHA-256 of the base checkpoint file's bytes (as `awb eval` records it): an
 * adapter is a delta and means nothing on other weights, so loading it against another base is
 * refused. Adapters live under <root>/<first 12 hex of the base sha256>/<app slug>.json, one per app.
 */
export const ADAPTER_FORMAT = 'awb-policy-adapter';
export const ADAPTER_VERSION = 1;
/** Hex digits of the base sha256 that name an adapter folder (as `awb eval` labels checkpoints). */
export const BASE_PREFIX_LENGTH = 12;

const AdapterFileSchema = z.strictObject({
  format: z.literal(ADAPTER_FORMAT).describe('File kind marker'),
  version: z.literal(ADAPTER_VERSION).describe('Format version; newer versions are refused'),
  app: z.string().min(1).describe('The app the adapter was trained for (launcher label)'),
  package: z.string().min(1).describe('Its package: the adapter is selected when this package is in the foreground'),
  adapter: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('head') }),
    z.strictObject({ kind: z.literal('lowrank'), rank: z.int().min(1).max(MAX_ADAPTER_RANK) }),
  ]).describe(`Adapter kind: ${ADAPTER_KINDS.join(' | ')}`),
  base: z.strictObject({
    sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lower-case hex digits').describe('SHA-256 of the base checkpoint file'),
    network: z.strictObject({ input: z.int().positive(), hidden: z.int().positive() }).describe('The base network shape'),
  }),
  params: Float32ParamsSchema,
  meta: z.record(z.string(), z.unknown()).describe('Free-form provenance (method, shots, metrics)'),
});
type AdapterFile = z.infer<typeof AdapterFileSchema>;

/** An adapter with what it is for: the app, the package that selects it, and the base it applies to. */
export interface AppAdapter {
  app: string;
  package: string;
  baseSha256: string;
  adapter: ScorerAdapter;
  meta: Record<string, unknown>;
}

/** A base policy identified by its checkpoint bytes. */
export interface BasePolicy {
  model: PolicyModel;
  sha256: string;
  /** The checkpoint it was read from (null for a model that was only serialized in memory). */
  path: string | null;
}

export class AdapterFileError extends Error {
  override name = 'AdapterFileError';
  constructor(readonly path: string, readonly problems: string[]) {
    super(`Bad policy adapter ${path}: ${problems.join('; ')}`);
  }
}

export class AdapterBaseMismatchError extends Error {
  override name = 'AdapterBaseMismatchError';
  constructor(readonly path: string, readonly expected: string, readonly got: string) {
    super(`Policy adapter ${path} was trained on base checkpoint sha256 ${got.slice(0, BASE_PREFIX_LENGTH)}…, not on the loaded policy ${expected.slice(0, BASE_PREFIX_LENGTH)}…; retrain it with awb adapt`);
  }
}

export class DuplicateAdapterError extends Error {
  override name = 'DuplicateAdapterError';
  constructor(readonly pkg: string, readonly paths: string[]) {
    super(`Two adapters select package ${pkg}: ${paths.join(' and ')}`);
  }
}

export function sha256Hex(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Reads a base checkpoint and hashes its bytes (the identity adapters refer to). */
export function loadBasePolicy(path: string): BasePolicy {
  const abs = resolve(path);
  let bytes: Buffer;
  try {
    bytes = readFileSync(abs);
  } catch (e) {
    throw new CheckpointError(abs, [`cannot read (${(e as Error).message})`]);
  }
  return { model: deserializeCheckpoint(bytes.toString('utf8'), abs).model, sha256: sha256Hex(bytes), path: abs };
}

/** "Simple SMS Messenger" → "simple-sms-messenger": the adapter's file name. */
export function appSlug(app: string): string {
  return app.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** <root>/<base sha prefix>: the folder of every adapter of one base. */
export function adapterDir(root: string, baseSha256: string): string {
  return join(root, baseSha256.slice(0, BASE_PREFIX_LENGTH));
}

export function adapterPath(root: string, baseSha256: string, app: string): string {
  return join(adapterDir(root, baseSha256), `${appSlug(app)}.json`);
}

export function serializeAdapter(a: AppAdapter): string {
  const p = a.adapter.params;
  const file: AdapterFile = {
    format: ADAPTER_FORMAT,
    version: ADAPTER_VERSION,
    app: a.app,
    package: a.package,
    adapter: a.adapter.spec,
    base: { sha256: a.baseSha256, network: { ...a.adapter.dims } },
    params: encodeFloat32Params(p),
    meta: a.meta,
  };
  return JSON.stringify(file);
}

export interface AdapterExpectation {
  /** Refuse (AdapterBaseMismatchError) an adapter of another base. */
  baseSha256?: string;
  /** Refuse an adapter whose network shape differs (listed with the other problems). */
  model?: PolicyModel;
}

/** Parses and checks an adapter's text, listing every problem; `where` names it in errors. */
export function deserializeAdapter(text: string, where = '<text>', expect: AdapterExpectation = {}): AppAdapter {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new AdapterFileError(where, [`not JSON (${(e as Error).message})`]);
  }
  const r = AdapterFileSchema.safeParse(json);
  if (!r.success) throw new AdapterFileError(where, issueLines(r.error.issues, { root: '(root)' }));
  const f = r.data;
  const problems: string[] = [];
  const app = findApp(f.app);
  if (!app) problems.push(`app ${JSON.stringify(f.app)} is not a known app (${APP_CATALOG.map((a) => a.name).join(', ')})`);
  else if (app.package !== f.package) problems.push(`package ${f.package} is not ${app.name}'s package (${app.package})`);
  const spec: AdapterSpec = f.adapter;
  const want = adapterParameterCount(spec, f.base.network);
  if (f.params.count !== want) problems.push(`params.count ${f.params.count}, a ${spec.kind} adapter on ${JSON.stringify(f.base.network)} needs ${want}`);
  const dims = expect.model?.net.dims;
  if (dims && (dims.input !== f.base.network.input || dims.hidden !== f.base.network.hidden)) {
    problems.push(`base.network ${JSON.stringify(f.base.network)} does not match the loaded policy's ${JSON.stringify(dims)}`);
  }
  const { params, problems: paramProblems } = decodeFloat32Params(f.params);
  problems.push(...paramProblems);
  if (problems.length || !params) throw new AdapterFileError(where, problems);
  if (expect.baseSha256 !== undefined && expect.baseSha256 !== f.base.sha256) throw new AdapterBaseMismatchError(where, expect.baseSha256, f.base.sha256);
  return { app: app!.name, package: f.package, baseSha256: f.base.sha256, adapter: new ScorerAdapter(spec, f.base.network, params), meta: f.meta };
}

/** Writes atomically (a temporary file renamed over the target), creating the folder. */
export function saveAdapter(path: string, a: AppAdapter): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileAtomic(path, serializeAdapter(a));
}

export function loadAdapter(path: string, expect: AdapterExpectation = {}): AppAdapter {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new AdapterFileError(path, [`cannot read (${(e as Error).message})`]);
  }
  return deserializeAdapter(text, path, expect);
}

/**
 * Every adapter of one base, by the package that selects it: the *.json files of
 * <root>/<base sha prefix>/ (none when the folder does not exist). Each file is checked, and one for
 * another base (a prefix collision, or a file copied in by hand) is refused rather than skipped.
 */
export function loadAdapters(root: string, baseSha256: string, model?: PolicyModel): Map<string, AppAdapter> {
  const dir = adapterDir(root, baseSha256);
  const out = new Map<string, AppAdapter>();
  if (!existsSync(dir)) return out;
  const from = new Map<string, string>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
    const path = join(dir, name);
    const a = loadAdapter(path, { baseSha256, ...(model ? { model } : {}) });
    const prior = from.get(a.package);
    if (prior) throw new DuplicateAdapterError(a.package, [prior, path]);
    from.set(a.package, path);
    out.set(a.package, a);
  }
  return out;
}
