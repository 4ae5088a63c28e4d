import { z } from 'zod';
import { BreakpointSpec } from '../episode/breakpoints.js';
import { KEYS, TOUCH_ACTIONS } from '../device/device.js';
import { EpisodeFilterSchema } from '../store/queries.js';
import type { ApiEvent, ApiMethod, InputOf } from './api.js';
import { SettingsPatchSchema } from './settings.js';
import { ADAPTER_SESSION_POLICY, CHECKPOINT_SESSION_POLICY, SESSION_POLICIES, VLM_SESSION_POLICY } from './types.js';
import { TRAINER_KINDS } from './training-types.js';
import { PARTS, SPLITS } from '../tasks/splits.js';
import { ADAPTER_KINDS, MAX_ADAPTER_RANK } from '../policy/adapter.js';
import { HOME_MODES } from '../policy/adapter-policy.js';
import { ADAPT_METHODS } from '../rl/adapt-config.js';
import { REMOTE_SUBMIT_KINDS } from './job-types.js';
import { fieldIssues, formatIssues } from '../util/zod-issues.js';
import { VLM_FORMAT_IDS } from '../policy/vlm/format.js';
import { COORDINATE_SPACES } from '../policy/vlm/geometry.js';
import { PLAIN_ISSUES } from '../util/plain-issues.js';

/**
 * The input schema of every API member: the bridge validates each call and subscription against it
 * before the implementation sees it, so malformed input from a page or IPC is refused with a
 * validation error naming the field. The mapped type makes a member without a schema a type error.
 */
const none = z.strictObject({}).optional();
const serial = z.string().min(1).max(200);
const coord = z.number().finite().min(0).max(100_000);
const ms = z.number().int().min(0).max(60_000);
const hash = z.string().regex(/^[0-9a-f]{64}$/, 'a SHA-256 hex digest');
const address = z.string().regex(/^[A-Za-z0-9.\-:[\]]+:\d{1,5}$/, 'HOST:PORT');
const episodeId = z.int().positive();
const jobId = z.string().regex(/^job-\d{1,9}$/, 'a job id (job-N)');
const moreIterations = z.int().min(1).max(1_000_000).optional();

export const InputEventSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('tap'), x: coord, y: coord }),
  z.strictObject({ kind: z.literal('long_press'), x: coord, y: coord, durationMs: ms }),
  z.strictObject({ kind: z.literal('swipe'), x1: coord, y1: coord, x2: coord, y2: coord, durationMs: ms }),
  z.strictObject({ kind: z.literal('text'), text: z.string().min(1).max(10_000) }),
  z.strictObject({ kind: z.literal('key'), key: z.enum(KEYS) }),
]);

const distinct = <T>(xs: readonly T[]) => new Set(xs).size === xs.length;

const AdaptationStartSchema = z.strictObject({
  app: z.string().min(1).max(200),
  policy: z.string().min(1).max(4096),
  shots: z.int().min(1).max(1000).optional(),
  method: z.enum(ADAPT_METHODS).optional(),
  kind: z.enum(ADAPTER_KINDS).optional(),
  rank: z.int().min(1).max(MAX_ADAPTER_RANK).optional(),
  iterations: z.int().min(1).max(100_000).optional(),
  epochs: z.int().min(1).max(10_000).optional(),
  seed: z.int().min(0).optional(),
  home: z.enum(HOME_MODES).optional(),
  episodes: z.array(episodeId).min(1).max(10_000).refine(distinct, 'an episode is listed twice').optional(),
  evalSeeds: z.array(z.int().min(0)).min(1).max(100).refine(distinct, 'a seed is listed twice').optional(),
  evalTemplates: z.array(z.string().min(1).max(200)).min(1).max(500).refine(distinct, 'a template is listed twice').optional(),
  // The rest of the adaptation config is the adaptation's schema to validate (core/rl/adapt-config.ts), listing every problem.
  config: z.unknown().optional(),
});

/** An endpoint profile's name, as core/policy/vlm/profiles.ts accepts it (and `vlm:<name>` session policies). */
const endpointName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'letters, digits, ".", "_" and "-", starting with a letter or digit (at most 64)');

const BreakpointSchema = z.strictObject({ id: z.string().min(1).max(100), enabled: z.boolean(), spec: BreakpointSpec });
const sessionId = z.string().min(1).max(100);

type Schemas = { [K in ApiMethod | ApiEvent]: z.ZodType<InputOf<K>, unknown> };

export const API_INPUTS: Schemas = {
  listDevices: none,
  startSimDroid: z.strictObject({ adbPort: z.int().min(1025).max(65535).refine((p) => p % 2 === 1, 'an odd port (the console takes the even one below)').optional() }).optional(),
  stopSimDroid: z.strictObject({ serial }),
  connectDevice: z.strictObject({ address }),
  disconnectDevice: z.strictObject({ address }),
  listAvds: none,
  launchAvd: z.strictObject({ name: z.string().min(1).max(200), port: z.int().min(5554).max(65534).optional() }),
  onDevices: z.strictObject({}),
  screenshot: z.strictObject({ serial, scale: z.union([z.literal(1), z.literal(0.5)]).optional() }),
  screenState: z.strictObject({ serial }),
  sendInput: z.strictObject({ serial, event: InputEventSchema }),
  sendTouch: z.strictObject({ serial, action: z.enum(TOUCH_ACTIONS), x: coord, y: coord }),
  rotateDevice: z.strictObject({ serial, rotation: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]) }),
  onFrame: z.strictObject({ serial, scale: z.union([z.literal(1), z.literal(0.5)]).optional(), maxFps: z.int().min(1).max(60).optional() }),
  listTasks: none,
  describeTask: z.strictObject({ templateId: z.string().min(1), seed: z.int().min(0) }),
  listPolicies: none,
  startSession: z.strictObject({
    serial, templateId: z.string().min(1).optional(), seed: z.int().min(0).optional(), instruction: z.string().trim().min(1).max(2000).optional(),
    policy: z.union([
      z.enum(SESSION_POLICIES),
      z.templateLiteral(['vlm:', z.string()]).refine((p) => VLM_SESSION_POLICY.test(p), { message: 'a VLM policy is vlm:<endpoint profile name>' }),
      z.templateLiteral(['checkpoint:', z.string()]).refine((p) => CHECKPOINT_SESSION_POLICY.test(p), {
        message: 'a stored policy is checkpoint:<checkpoint name> or checkpoint:<file name>.json|.onnx (names, not paths)',
      }),
      z.templateLiteral(['adapter:', z.string()]).refine((p) => ADAPTER_SESSION_POLICY.test(p), { message: 'an adapted policy is adapter:<checkpoint name>/<app slug>' }),
    ]),
    maxSteps: z.int().min(1).max(500).optional(), breakpoints: z.array(BreakpointSchema).max(100).optional(), run: z.boolean().optional(),
    from: z.strictObject({ episodeId, steps: z.int().min(0).max(500) }).optional(),
    screenshots: z.enum(['none', 'half', 'full']).optional(),
    // The text is read by the replay (core/policy/vlm/replay.ts parseReplies), which names what is wrong with it.
    replies: z.strictObject({ format: z.enum(VLM_FORMAT_IDS), coordinates: z.enum(COORDINATE_SPACES).optional(), text: z.string().max(8_000_000) }).optional(),
  }).refine((s) => (s.policy === 'vlm-replay') === (s.replies !== undefined), { message: 'the vlm-replay policy takes replies (and only it does)', path: ['replies'] })
    .refine((s) => (s.templateId === undefined) !== (s.instruction === undefined), { message: 'give either templateId (with seed) or a free-form instruction', path: ['templateId'] })
    .refine((s) => s.instruction === undefined || (s.from === undefined && s.policy !== 'oracle'), { message: 'a free-form instruction has no oracle and nothing to replay', path: ['instruction'] }),
  listEndpoints: none,
  saveEndpoint: z.strictObject({
    name: endpointName,
    // The settings are the VLM policy's to validate (core/policy/vlm/settings.ts), each problem at its field.
    settings: z.unknown(),
    apiKey: z.string().trim().min(1, 'an empty key: give null to forget the stored one').max(8192).nullable().optional(),
  }),
  listVlmPresets: none,
  removeEndpoint: z.strictObject({ name: endpointName }),
  testEndpoint: z.strictObject({ name: endpointName, templateId: z.string().min(1).max(200).optional(), seed: z.int().min(0).max(2 ** 31 - 1).optional() }),
  getSession: z.strictObject({ sessionId }),
  listSessions: none,
  controlSession: z.strictObject({ sessionId, command: z.enum(['step', 'run', 'pause', 'stop', 'takeover', 'handback']) }),
  overrideAction: z.strictObject({ sessionId, action: z.unknown() }),
  setBreakpoints: z.strictObject({ sessionId, breakpoints: z.array(BreakpointSchema).max(100) }),
  onSession: z.strictObject({ sessionId }),
  onSessions: z.strictObject({}),
  listEpisodes: EpisodeFilterSchema.strict() as unknown as z.ZodType<InputOf<'listEpisodes'>, unknown>,
  listRuns: none,
  episodeFacets: none,
  getTrajectory: z.strictObject({ episodeId }),
  getScreenshot: z.strictObject({ hash }),
  getTree: z.strictObject({ hash }),
  successfulEpisodes: z.strictObject({ templateId: z.string().min(1), excludeEpisode: episodeId.optional() }),
  exportEpisodes: z.strictObject({
    filter: EpisodeFilterSchema.strict().optional() as unknown as z.ZodType<InputOf<'exportEpisodes'>['filter'], unknown>,
    episodeIds: z.array(episodeId).min(1).max(100_000).optional(),
  }),
  getEpisodeRewards: z.strictObject({
    episodeId,
    // The config is the rewards' to validate (its shape and every component's options), listing every problem.
    config: z.unknown().optional(),
    write: z.boolean().optional(),
  }).refine((q) => !q.write || q.config !== undefined, { message: 'write stores recomputed values: give config too', path: ['write'] }),
  explainEpisode: z.strictObject({ episodeId, oracle: z.enum(['when-needed', 'always', 'never']).optional() }),
  runFailures: z.strictObject({
    runId: z.int().positive(), vsRunId: z.int().positive().optional(), oracle: z.enum(['when-needed', 'always', 'never']).optional(),
    limit: z.int().min(1).max(100_000).optional(),
  }),
  getSettings: none,
  updateSettings: SettingsPatchSchema,
  describeSettings: none,
  onActivity: z.strictObject({}),
  describeTrainConfig: z.strictObject({ kind: z.enum(TRAINER_KINDS) }),
  // The config is the trainer's to validate (schema and cross-field rules), listing every problem.
  startTraining: z.strictObject({ kind: z.enum(TRAINER_KINDS), config: z.unknown() }),
  pauseTraining: z.strictObject({ jobId }),
  resumeTraining: z.union([
    z.strictObject({ jobId, iterations: moreIterations }),
    z.strictObject({ checkpoint: z.string().min(1).max(200), iterations: moreIterations }),
  ]),
  stopTraining: z.strictObject({ jobId }),
  listTrainingJobs: none,
  listTrainingRuns: none,
  getTrainingMetrics: z.strictObject({ runId: z.int().positive() }),
  listCheckpoints: none,
  onTraining: z.strictObject({}),
  describeAdaptation: none,
  describeAdaptationBase: z.strictObject({ policy: z.string().min(1).max(300) }),
  startAdaptation: AdaptationStartSchema,
  stopAdaptation: z.strictObject({ jobId }),
  getAdaptationReport: z.strictObject({ jobId }),
  listAdapters: none,
  onAdaptation: z.strictObject({}),
  startEvaluation: z.strictObject({
    policy: z.string().min(1).max(300), before: z.string().min(1).max(300).optional(),
    splits: z.array(z.enum(SPLITS)).min(1).max(SPLITS.length).refine(distinct, 'a split is listed twice').optional(),
    part: z.enum(PARTS).optional(),
    seeds: z.array(z.int().min(0).max(2 ** 31 - 1)).min(1).max(100).refine(distinct, 'a seed is listed twice').optional(),
    limit: z.int().min(1).max(100_000).optional(),
  }),
  stopEvaluation: z.strictObject({ id: z.string().regex(/^eval-\d{1,9}$/, 'an evaluation id (eval-N)') }),
  listEvaluations: none,
  onEvaluation: z.strictObject({}),
  listTrainers: none,
  saveTrainer: z.strictObject({
    name: z.string().min(1).max(64), baseUrl: z.string().min(1).max(2000), token: z.string().min(1).max(4096).optional(),
    kind: z.enum(['trainer', 'ray']).optional(), resultsDir: z.string().min(1).max(4096).optional(), gpus: z.int().min(0).max(1024).optional(),
    saveAnyway: z.boolean().optional(),
  }),
  removeTrainer: z.strictObject({ name: z.string().min(1).max(64) }),
  listRemoteJobs: none,
  submitRemoteJob: z.strictObject({
    trainer: z.string().min(1).max(64), kind: z.enum(REMOTE_SUBMIT_KINDS),
    // The config is the job kind's to validate (core/remote-jobs/protocol.ts), listing every problem.
    config: z.unknown().optional(), name: z.string().min(1).max(200).optional(),
    split: z.string().min(1).max(100).optional(), part: z.string().min(1).max(20).optional(),
    episodeIds: z.array(episodeId).min(1).max(100_000).refine(distinct, 'an episode is listed twice').optional(),
    limit: z.int().min(1).max(100_000).optional(), init: z.string().min(1).max(4096).optional(), seed: z.int().min(0).max(2 ** 31 - 1).optional(),
    groupSize: z.int().min(2).max(64).optional(), temperature: z.number().positive().max(10).optional(), maxSteps: z.int().min(1).max(500).optional(),
  }).refine((s) => !(s.episodeIds && (s.split || s.part)), { message: 'give a split or episodes, not both', path: ['episodeIds'] }),
  cancelRemoteJob: z.strictObject({ id: z.int().positive() }),
  followRemoteJob: z.strictObject({ id: z.int().positive() }),
  downloadArtifacts: z.strictObject({ id: z.int().positive(), names: z.array(z.string().min(1).max(500)).min(1).max(100).optional() }),
  registerPolicy: z.strictObject({ id: z.int().positive() }),
  startOnlineGrpo: z.strictObject({
    trainer: z.string().min(1).max(64),
    policy: z.discriminatedUnion('kind', [
      // A checkpoint choice (checkpoint:<name> or a registered .json, or a bare checkpoint name), resolved by core/workbench/policy-choices.ts.
      z.strictObject({
        kind: z.literal('builtin'),
        // A policy's name as the lists show it (checkpoint:<name>, adapter:<checkpoint>/<app>): never a path to read elsewhere.
        init: z.string().min(1).max(300).refine((s) => !s.startsWith('/') && !s.split(/[/\\]/).includes('..'), 'must be a policy name (e.g. checkpoint:<name>): names, not paths').optional(),
      }),
      z.strictObject({ kind: z.literal('vlm'), endpoint: endpointName, baseModel: z.string().trim().min(1, 'the model the trainer loads and the endpoint serves').max(200) }),
    ]),
    split: z.string().min(1).max(100).optional(), part: z.string().min(1).max(20).optional(), limit: z.int().min(1).max(100_000).optional(),
    iterations: z.int().min(1).max(10_000), groupSize: z.int().min(2).max(64).optional(), temperature: z.number().positive().max(2).optional(),
    maxSteps: z.int().min(1).max(500).optional(), seed: z.int().min(0).max(2 ** 31 - 1).optional(),
    // The overrides are the job kind's to validate (core/remote-jobs/protocol.ts, online-vlm.ts), each problem at its field.
    config: z.record(z.string(), z.unknown()).optional(), name: z.string().min(1).max(200).optional(),
  }),
  stopOnlineGrpo: z.strictObject({ runId: z.int().positive() }),
  listOnlineGrpo: none,
  onRemoteJob: z.strictObject({}),
};

export class ApiInputError extends Error {
  override name = 'ApiInputError';
  constructor(readonly member: string, readonly issues: Array<{ path: string; message: string }>) {
    super(`${member}: invalid input: ${formatIssues(issues, { root: '(input)' })}`);
  }
}

/**
 * Whether `name` is a member of the API contract. Own properties only: "constructor", "toString" or
 * "__proto__" sent by a client are names of Object's prototype, not API members.
 */
export function isApiMember(name: string): boolean {
  return Object.hasOwn(API_INPUTS, name);
}

/** Validates one member's input; throws ApiInputError listing every problem. */
export function parseInput(member: string, input: unknown): unknown {
  const schema = isApiMember(member) ? (API_INPUTS as Record<string, z.ZodType>)[member] : undefined;
  if (!schema) throw new ApiInputError(member, [{ path: '', message: 'no such API member' }]);
  const r = schema.safeParse(input, PLAIN_ISSUES);
  if (!r.success) throw new ApiInputError(member, fieldIssues(r.error.issues));
  return r.data;
}
