import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { z } from 'zod';
import { API_INPUTS } from '../../core/api/inputs.js';
import { TASKS } from '../../core/tasks/registry.js';

/**
 * Shared settings and generators of the fuzz tests (test/fuzz/*.test.ts, issue 16).
 *
 * In CI each property runs a bounded number of times from a fixed seed, so a run is reproducible
 * and the suite stays short. A long run sets the number of runs per property (and optionally the
 * seed; `random` draws one and prints it):
 *
 *   AWB_FUZZ_RUNS=20000 [AWB_FUZZ_SEED=random|<integer>] npx vitest run test/fuzz
 *
 * On a failure fast-check prints the counterexample with its seed and path; rerun with
 * AWB_FUZZ_SEED=<seed> (and the same AWB_FUZZ_RUNS) to replay it.
 */
const RUNS = process.env.AWB_FUZZ_RUNS ? Number(process.env.AWB_FUZZ_RUNS) : undefined;
if (RUNS !== undefined && !(Number.isSafeInteger(RUNS) && RUNS > 0)) throw new Error(`AWB_FUZZ_RUNS must be a positive integer, got ${process.env.AWB_FUZZ_RUNS}`);
export const LONG_RUN = RUNS !== undefined;

/** The CI seed (the issue's number). */
const CI_SEED = 16;

function seedFromEnv(): number {
  const s = process.env.AWB_FUZZ_SEED;
  if (s === undefined || s === '') return CI_SEED;
  if (s === 'random') return (Date.now() ^ Math.floor(Math.random() * 2 ** 31)) | 0;
  const n = Number(s);
  if (!Number.isSafeInteger(n)) throw new Error(`AWB_FUZZ_SEED must be an integer or "random", got ${s}`);
  return n | 0;
}

export const SEED = seedFromEnv();

/** Test timeout: CI runs are bounded; a long run may take its time. */
export const TIMEOUT_MS = LONG_RUN ? 60 * 60_000 : 60_000;

/**
 * fast-check's parameters for one property: `ciRuns` in CI; in a long run AWB_FUZZ_RUNS × `weight`
 * (properties whose one run is a batch of slow inputs, such as a TCP exchange, weigh less).
 */
export function params<T>(ciRuns: number, weight = 1): fc.Parameters<T> {
  return { numRuns: LONG_RUN ? Math.max(1, Math.round(RUNS! * weight)) : ciRuns, seed: SEED };
}

/** Counts the inputs one place tried (printed after its tests: the figures in BENCHMARKS.md). */
export class Tally {
  private readonly counts = new Map<string, number>();
  private readonly started = performance.now();
  constructor(readonly place: string) {}
  private readonly outcomes = new Map<string, number>();
  add(what: string, n = 1): void {
    this.counts.set(what, (this.counts.get(what) ?? 0) + n);
  }
  /** An outcome seen (a status, an error name), so a report shows the inputs went deep, not only into validation. */
  saw(outcome: string): void {
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
  }
  report(): string {
    const total = [...this.counts.values()].reduce((a, b) => a + b, 0);
    const parts = [...this.counts].map(([k, v]) => `${k} ${v}`).join(', ');
    const seen = [...this.outcomes].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ');
    return `fuzz ${this.place}: ${total} inputs (${parts}) in ${((performance.now() - this.started) / 1000).toFixed(1)} s, seed ${SEED}${LONG_RUN ? `, AWB_FUZZ_RUNS=${RUNS}` : ''}${seen ? `\n  outcomes: ${seen}` : ''}`;
  }
}

/**
 * The error names a caller may see: the named errors the project declares (`name = 'XError'` in
 * core/, and the bridge's ApiMethodError), never JavaScript's own (TypeError, RangeError, …) nor a
 * bare Error, which would mean a bug reached the caller.
 */
export function declaredErrorNames(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ts|mjs)$/.test(e.name)) {
        const text = readFileSync(p, 'utf8');
        for (const m of text.matchAll(/\bname\s*=\s*'([A-Z]\w*)'|\bname:\s*'([A-Z]\w*Error)'/g)) names.add((m[1] ?? m[2])!);
      }
    }
  };
  walk(join(import.meta.dirname, '../../core'));
  for (const builtin of ['Error', 'TypeError', 'RangeError', 'ReferenceError', 'SyntaxError', 'EvalError', 'URIError', 'AggregateError']) names.delete(builtin);
  return names;
}

/**
 * API members whose implementation the fuzzers do not run (their input is still validated: the
 * bridge checks it before the implementation is reached): they reach outside the test's temporary
 * data folder (move it anywhere on disk, spawn the emulator or adb, open the network), start
 * minutes of training on the shared 2-core machine, or remove the one device the others need.
 */
export const NOT_RUN = new Set([
  'updateSettings', 'startSimDroid', 'stopSimDroid', 'connectDevice', 'launchAvd', 'testEndpoint',
  'startTraining', 'startAdaptation', 'submitRemoteJob', 'startOnlineGrpo',
]);

/** What a member in NOT_RUN answers once its input validated. */
export const NOT_RUN_ERROR = 'FuzzNotRunError';

/** The workbench as the fuzzers serve it: every member, those in NOT_RUN answering FuzzNotRunError. */
export function guarded<T extends object>(api: T): T {
  return new Proxy(api, {
    get(target, key, receiver) {
      if (typeof key === 'string' && NOT_RUN.has(key)) {
        return async () => {
          throw Object.assign(new Error(`${key} is not run by the fuzzer`), { name: NOT_RUN_ERROR });
        };
      }
      return Reflect.get(target, key, receiver);
    },
  });
}

export const MEMBERS = Object.keys(API_INPUTS);
export const TEMPLATE_IDS = TASKS.map((t) => t.id);

/** Member names a hostile client tries: Object's prototype, near misses, and arbitrary text. */
export const memberName: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...MEMBERS) },
  { weight: 1, arbitrary: fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'then', 'close', 'db', 'prototype', '', 'on', 'onX', 'listdevices') },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
);

/** Values a field of this name plausibly needs to go deeper than "not found". */
const HINTS: Record<string, readonly unknown[]> = {
  serial: ['simdroid-1', 'simdroid-1', 'simdroid-1', 'simdroid-2', 'emulator-5554'],
  templateId: TEMPLATE_IDS,
  sessionId: ['s1', 's2', 's3'],
  jobId: ['job-1', 'job-2'],
  name: ['default', 'a', 'local'],
  trainer: ['default', 'a'],
  episodeId: [1, 2, 3],
  excludeEpisode: [1, 2],
  hash: ['0'.repeat(64)],
  policy: ['random', 'oracle', 'manual', 'vlm:default', 'checkpoint:a.json'],
};

type JsonSchema = Record<string, any>;

/**
 * Inputs that follow an API member's schema (from zod's JSON Schema of it), so a run reaches the
 * implementation and not only validation; refinements are not in JSON Schema, so some still fail
 * validation, as they should. Field values mix in HINTS.
 */
export function schemaInput(member: string): fc.Arbitrary<unknown> {
  const schema = (API_INPUTS as Record<string, z.ZodType>)[member]!;
  const plain = fromJsonSchema(z.toJSONSchema(schema, { unrepresentable: 'any', io: 'input' }) as JsonSchema, undefined);
  const refine = REFINEMENTS[member];
  return refine ? fc.oneof(plain, plain.map(refine)) : plain;
}

/**
 * Half of a member's inputs are made to start something, so that the members which need it (a
 * session's id) have something to act on: rules JSON Schema cannot say (zod refinements: a template
 * or a free-form instruction, never both; an instruction has no oracle and nothing to replay), the
 * one device, a built-in policy, nothing to replay.
 */
const REFINEMENTS: Record<string, (input: unknown) => unknown> = {
  startSession: (input) => {
    if (!input || typeof input !== 'object') return input;
    const s: Record<string, unknown> = { ...(input as Record<string, unknown>), serial: 'simdroid-1' };
    delete s.from;
    delete s.replies;
    if (typeof s.policy !== 'string' || !['oracle', 'random', 'manual'].includes(s.policy)) s.policy = 'manual';
    if (s.templateId !== undefined) delete s.instruction;
    else {
      s.instruction ??= 'Turn on Wi-Fi';
      if (s.policy === 'oracle') s.policy = 'random';
    }
    return s;
  },
};

const cache = new Map<string, fc.Arbitrary<unknown>>();
export function cachedSchemaInput(member: string): fc.Arbitrary<unknown> {
  let a = cache.get(member);
  if (!a) cache.set(member, (a = schemaInput(member)));
  return a;
}

/**
 * Ids the workbench handed out during this run (sessions have random ids): a test records each
 * startSession result here, and sessionId fields then name them (by position, so a replay of the
 * seed picks the same session of its own run).
 */
export const seenSessionIds: string[] = [];

/** Remembers the session a successful startSession answer names. */
export function noteResult(member: string, value: unknown): void {
  if (member === 'startSession' && value && typeof (value as { id?: unknown }).id === 'string') seenSessionIds.push((value as { id: string }).id);
}

function fromJsonSchema(s: JsonSchema, field: string | undefined): fc.Arbitrary<unknown> {
  const plain = plainFromJsonSchema(s, field);
  const hints = field !== undefined ? HINTS[field] : undefined;
  if (field === 'sessionId') return fc.oneof(plain, fc.constantFrom(...hints!), fc.nat().map((i) => seenSessionIds[seenSessionIds.length - 1 - (i % Math.max(1, seenSessionIds.length))] ?? 's1'));
  return hints ? fc.oneof(plain, fc.constantFrom(...hints)) : plain;
}

function plainFromJsonSchema(s: JsonSchema, field: string | undefined): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  const alternatives = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (alternatives) return fc.oneof(...alternatives.map((x) => fromJsonSchema(x, field)));
  switch (s.type) {
    case 'string': {
      const minLength = s.minLength ?? 0;
      const maxLength = Math.min(s.maxLength ?? 40, Math.max(40, minLength));
      if (typeof s.pattern === 'string') return fc.stringMatching(new RegExp(s.pattern)).filter((x) => x.length >= minLength && x.length <= (s.maxLength ?? Infinity));
      return fc.string({ minLength, maxLength, unit: 'grapheme' });
    }
    case 'integer': {
      const lo = Math.max(s.minimum ?? Number.MIN_SAFE_INTEGER, s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : Number.MIN_SAFE_INTEGER);
      const hi = Math.min(s.maximum ?? Number.MAX_SAFE_INTEGER, s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : Number.MAX_SAFE_INTEGER);
      // Small values reach stored rows (ids 1, 2, …); the bounds are where off-by-ones live.
      return fc.oneof(fc.integer({ min: lo, max: Math.min(hi, Math.max(lo, 0) + 5) }), fc.constantFrom(lo, hi), fc.integer({ min: lo, max: hi }));
    }
    case 'number': {
      const min = s.minimum ?? s.exclusiveMinimum ?? -1e12;
      const max = s.maximum ?? s.exclusiveMaximum ?? 1e12;
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true, minExcluded: s.exclusiveMinimum !== undefined, maxExcluded: s.exclusiveMaximum !== undefined });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      if (Array.isArray(s.prefixItems)) return fc.tuple(...(s.prefixItems as JsonSchema[]).map((x) => fromJsonSchema(x, field)));
      const items = s.items ? fromJsonSchema(s.items as JsonSchema, field) : fc.jsonValue({ maxDepth: 2 });
      return fc.array(items, { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 4, Math.max(4, s.minItems ?? 0)) });
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, JsonSchema>;
      const record = fc.record(
        Object.fromEntries(Object.entries(props).map(([k, v]) => [k, fromJsonSchema(v, k)])),
        { requiredKeys: (s.required ?? []) as string[] },
      );
      if (s.additionalProperties && typeof s.additionalProperties === 'object') {
        const extra = fc.dictionary(fc.string({ maxLength: 10 }), fromJsonSchema(s.additionalProperties as JsonSchema, undefined), { maxKeys: 3 });
        return fc.tuple(record, extra).map(([r, e]) => ({ ...e, ...r }));
      }
      return record;
    }
    default:
      // z.unknown() (configs the implementation validates itself): any JSON, sometimes a plausible shape.
      return fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.constant({}), fc.record({ components: fc.array(fc.record({ kind: fc.string(), weight: fc.double() }), { maxLength: 2 }) }));
  }
}

/** A JSON value (what a WebSocket text frame can carry), sometimes with bytes (a binary frame). */
export const wireValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }).filter((x) => !Object.is(x, -0)),
    fc.string({ unit: 'binary' }), fc.uint8Array({ maxLength: 64 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('$bin', '__proto__', 'constructor', 't', 'id', 'm', 'a')), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** An argument: follows the member's schema, or any wire value. */
export function argumentFor(member: fc.Arbitrary<string>): fc.Arbitrary<{ m: string; a: unknown }> {
  return member.chain((m) => fc.record({
    m: fc.constant(m),
    a: Object.hasOwn(API_INPUTS, m) ? fc.oneof({ weight: 3, arbitrary: cachedSchemaInput(m) }, { weight: 1, arbitrary: wireValue }, { weight: 1, arbitrary: fc.constant(undefined) }) : wireValue,
  }));
}
