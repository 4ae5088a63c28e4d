import { z } from 'zod';
import { issueLines } from '../util/zod-issues.js';
import { SeedError } from '../util/rng.js';
import { VLM_FORMAT_IDS } from '../policy/vlm/format.js';
import { COORDINATE_SPACES } from '../policy/vlm/geometry.js';

/**
 * The environment protocol's requests (docs/env-protocol.md): one zod schema per operation, checked once when a frame
 * arrives, so the sessions below work on typed values. Results are plain objects built by the session; their shapes
 * are the `*Result` types here.
 */
export const ENV_PROTOCOL_VERSION = 1;

/** A request the server cannot take as written: not JSON, a missing or mistyped field, an unknown op, no hello yet. */
export class ProtocolError extends Error {
  override name = 'ProtocolError';
}

export class SessionNotFoundError extends Error {
  override name = 'SessionNotFoundError';
  constructor(readonly session: string) {
    super(`No session ${JSON.stringify(session)} (closed, or never created on this server)`);
  }
}

export class SessionBusyError extends Error {
  override name = 'SessionBusyError';
  constructor(readonly session: string, readonly pending: string) {
    super(`Session ${session} is still answering a ${pending}: one request at a time per session`);
  }
}

export class EpisodeNotStartedError extends Error {
  override name = 'EpisodeNotStartedError';
  constructor(readonly session: string) {
    super(`Session ${session} has no episode yet: call reset first`);
  }
}

export class EpisodeEndedError extends Error {
  override name = 'EpisodeEndedError';
  constructor(readonly session: string, readonly episodeId: number | null) {
    super(`Episode ${episodeId ?? '(unrecorded)'} of session ${session} has ended: call reset for the next one`);
  }
}

export class ObservationSpecError extends Error {
  override name = 'ObservationSpecError';
}

const MAX_SEED = 2 ** 31 - 1;
const seed = z.int().min(0).max(MAX_SEED);

/** A seed outside the protocol's range (docs/env-protocol.md, "Errors": SeedError), named where it was given. */
export class ProtocolSeedError extends SeedError {
  constructor(seed: unknown, where: string) {
    super(seed);
    this.message = `${where}: a seed is an integer from 0 to ${MAX_SEED}, got ${JSON.stringify(seed)}`;
  }
}

/** A task as `create` and `reset` name it: a template with a seed or given params, or a split part to draw from. */
export const TaskSpec = z.strictObject({
  template: z.string().min(1).optional(),
  seed: seed.optional(),
  params: z.record(z.string(), z.unknown()).optional(),
  split: z.string().min(1).optional(),
  part: z.string().min(1).optional(),
}).superRefine((t, ctx) => {
  const bySplit = t.split !== undefined || t.part !== undefined;
  if (bySplit && (t.template !== undefined || t.params !== undefined || t.seed !== undefined)) {
    ctx.addIssue({ code: 'custom', message: 'give a template (with a seed or params) or a split and part, not both' });
  } else if (bySplit && (t.split === undefined || t.part === undefined)) {
    ctx.addIssue({ code: 'custom', message: 'a split needs its part ("train", "test" or "adapt"), and a part its split' });
  } else if (!bySplit && t.template === undefined) {
    ctx.addIssue({ code: 'custom', message: 'name a template ({"template": "ContactsAddContact", "seed": 7}) or a split and part' });
  }
});
export type TaskSpec = z.infer<typeof TaskSpec>;

export const ObservationSpec = z.strictObject({
  screenshot: z.enum(['png', 'raw', 'none']).default('none'),
  scale: z.union([z.literal(1), z.literal(0.5)]).default(1),
  tree: z.enum(['xml', 'elements', 'both', 'none']).default('xml'),
});
export type ObservationSpec = z.infer<typeof ObservationSpec>;

const Hello = z.strictObject({ op: z.literal('hello'), id: z.int(), protocol: z.int(), client: z.string().max(200).optional() });
const Tasks = z.strictObject({ op: z.literal('tasks'), id: z.int() });
const Create = z.strictObject({
  op: z.literal('create'),
  id: z.int(),
  task: TaskSpec,
  device: z.string().min(1).max(200).default('simdroid'),
  agent: z.string().trim().min(1).max(200).default('agent'),
  run: z.string().trim().min(1).max(200).optional(),
  observation: ObservationSpec.default({ screenshot: 'none', scale: 1, tree: 'xml' }),
  record: z.strictObject({ screenshots: z.enum(['none', 'half', 'full']) }).optional(),
  /** Validated by the reward components themselves (RewardConfigError lists every problem). */
  rewards: z.unknown().optional(),
  max_steps: z.int().min(1).max(1000).optional(),
  on_malformed: z.enum(['continue', 'end']).default('continue'),
});
const Reset = z.strictObject({ op: z.literal('reset'), id: z.int(), session: z.string(), seed: seed.optional(), task: TaskSpec.optional() });
const Step = z.strictObject({
  op: z.literal('step'),
  id: z.int(),
  session: z.string(),
  /** The workbench's action space (checked by the runner: a malformed one is a recorded failed step). */
  action: z.unknown().optional(),
  /** AndroidWorld's JSONAction. */
  json_action: z.unknown().optional(),
  reply: z.string().max(1_000_000).optional(),
  format: z.enum(VLM_FORMAT_IDS, { error: (i) => `unknown format ${JSON.stringify(i.input)}: one of ${VLM_FORMAT_IDS.join(', ')}` }).optional(),
  coordinates: z.enum(COORDINATE_SPACES).optional(),
  image: z.tuple([z.int().min(1), z.int().min(1)]).optional(),
  /** The Qwen2.5-VL processor's bounds for `smart-resize` coordinates. */
  min_pixels: z.int().min(1).optional(),
  max_pixels: z.int().min(1).optional(),
  thought: z.string().max(1_000_000).optional(),
  /** The request the agent sent its model: text, or the chat messages (stored as JSON). */
  prompt: z.union([z.string(), z.array(z.unknown()), z.record(z.string(), z.unknown())]).optional(),
}).superRefine((s, ctx) => {
  const forms = [s.action !== undefined, s.json_action !== undefined, s.format !== undefined].filter(Boolean).length;
  if (forms !== 1) {
    ctx.addIssue({ code: 'custom', message: 'give exactly one of "action", "json_action", or "reply" with its "format"' });
  } else if (s.format !== undefined && s.reply === undefined) {
    ctx.addIssue({ code: 'custom', path: ['reply'], message: 'a "format" parses a "reply": give the model\'s reply text' });
  } else if (s.format === undefined && (s.coordinates !== undefined || s.image !== undefined || s.min_pixels !== undefined || s.max_pixels !== undefined)) {
    ctx.addIssue({ code: 'custom', message: '"coordinates", "image", "min_pixels" and "max_pixels" go with a "reply" and its "format"' });
  }
});
const Observe = z.strictObject({ op: z.literal('observe'), id: z.int(), session: z.string() });
const Close = z.strictObject({ op: z.literal('close'), id: z.int(), session: z.string() });

export const EnvRequest = z.discriminatedUnion('op', [Hello, Tasks, Create, Reset, Step, Observe, Close]);
export type EnvRequest = z.infer<typeof EnvRequest>;
export type EnvOp = EnvRequest['op'];
export type RequestOf<K extends EnvOp> = Extract<EnvRequest, { op: K }>;
export type CreateRequest = RequestOf<'create'>;
export type StepRequest = RequestOf<'step'>;

/** The request's id, if it has a usable one (so even a refused request is answered under its id). */
export function requestId(value: unknown): number | null {
  if (value === null || typeof value !== 'object') return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'number' && Number.isInteger(id) ? id : null;
}

const OPS = ['hello', 'tasks', 'create', 'reset', 'step', 'observe', 'close'];

/** Parses one request frame's JSON value; ProtocolError names every problem in one line. */
export function parseRequest(value: unknown): EnvRequest {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ProtocolError(`a request is a JSON object with "id" and "op", got ${JSON.stringify(value)?.slice(0, 80) ?? String(value)}`);
  }
  const op = (value as { op?: unknown }).op;
  if (typeof op !== 'string' || !OPS.includes(op)) {
    throw new ProtocolError(`unknown op ${JSON.stringify(op)}: one of ${OPS.join(', ')}`);
  }
  const r = EnvRequest.safeParse(value);
  if (r.success) return r.data;
  const issues = r.error.issues;
  // The table of docs/env-protocol.md names two kinds of bad field apart from ProtocolError.
  if (issues.every((i) => i.path.at(-1) === 'seed')) {
    const path = issues[0]!.path;
    const given = path.reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined), value);
    throw new ProtocolSeedError(given, `${op}: ${path.map(String).join('.')}`);
  }
  const lines = issueLines(issues, { root: '(request)' }).join('; ');
  if (op === 'create' && issues.every((i) => i.path[0] === 'observation')) throw new ObservationSpecError(`${op}: ${lines}`);
  throw new ProtocolError(`${op}: ${lines}`);
}
