import { z } from 'zod';
import { issueLines } from '../util/zod-issues.js';
import { PLAIN_ISSUES } from '../util/plain-issues.js';

/**
 * The wire types of docs/trainer-protocol.md (the remote trainer service). Responses are parsed
 * with these schemas at the boundary; unknown keys are kept out (zod strips them), so a newer
 * service that adds fields still talks to this client.
 */

export const JOB_KINDS = ['builtin-sft', 'builtin-grpo', 'progrm', 'prm', 'vlm-sft', 'vlm-grpo'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const FINAL_STATUSES: ReadonlySet<JobStatus> = new Set(['succeeded', 'failed', 'cancelled']);
export const isFinalStatus = (s: JobStatus): boolean => FINAL_STATUSES.has(s);

export const ERROR_CODES = [
  'unauthorized', 'not_found', 'bad_request', 'conflict', 'checksum_mismatch', 'unsupported_kind', 'unprocessable', 'internal', 'interrupted',
  'publish_failed', 'quota_exceeded',
] as const;

export const ErrorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }),
});
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

export const HealthSchema = z.object({
  service: z.literal('awb-trainer'),
  version: z.string(),
  torch: z.string().nullable(),
  cuda: z.boolean(),
  devices: z.array(z.string()),
  kinds: z.array(z.string()),
  /** Which models the vlm kinds accept: any (transformers + peft import) or only the listed test models. */
  vlmModels: z.union([z.literal('any'), z.array(z.string())]).optional(),
});
export type Health = z.infer<typeof HealthSchema>;

export const ArtifactSchema = z.object({ name: z.string().min(1), size: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) });
export type Artifact = z.infer<typeof ArtifactSchema>;

export const JobSchema = z.object({
  id: z.string().min(1),
  kind: z.string(),
  name: z.string().nullable().default(null),
  status: z.enum(JOB_STATUSES),
  createdAt: z.number(),
  startedAt: z.number().nullable(),
  finishedAt: z.number().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  artifacts: z.array(ArtifactSchema),
  lastSeq: z.number().int().nonnegative(),
});
export type Job = z.infer<typeof JobSchema>;

export const JobListSchema = z.object({ jobs: z.array(JobSchema) });

const EventBase = { seq: z.number().int().positive(), time: z.number() };
export const JobEventSchema = z.discriminatedUnion('type', [
  z.object({ ...EventBase, type: z.literal('log'), level: z.string(), message: z.string() }),
  z.object({ ...EventBase, type: z.literal('metric'), step: z.number(), metrics: z.record(z.string(), z.number()) }),
  z.object({
    ...EventBase, type: z.literal('status'), status: z.enum(JOB_STATUSES),
    error: z.object({ code: z.string(), message: z.string() }).nullable().optional(),
  }),
]);
export type JobEvent = z.infer<typeof JobEventSchema>;

/** Config of the builtin-policy kinds (the trainer validates the rest; the doc lists them). */
export const BuiltinSftJobConfigSchema = z.strictObject({
  epochs: z.int().min(1).max(100_000).default(30).describe('Passes over the steps (default 30, as awb train sft)'),
  batchSize: z.int().min(1).max(1_000_000).default(32).describe('Steps per minibatch'),
  learningRate: z.number().positive().max(1).default(1e-2).describe('Adam learning rate'),
  weightDecay: z.number().min(0).max(1).default(0).describe('Decoupled (AdamW) weight decay'),
  maxGradNorm: z.number().min(0).max(1e6).default(1).describe('Gradient clipping, 0 = off'),
  seed: z.int().min(0).max(2 ** 31 - 1).default(0).describe('Seed for minibatch shuffling'),
});
export type BuiltinSftJobConfig = z.infer<typeof BuiltinSftJobConfigSchema>;

export const BuiltinGrpoJobConfigSchema = z.strictObject({
  epochs: z.int().min(1).max(1000).default(1).describe('Passes over the batch'),
  minibatchSize: z.int().min(1).max(10_000_000).default(128).describe('Steps per minibatch (whole episodes)'),
  learningRate: z.number().positive().max(1).default(3e-3).describe('Adam learning rate'),
  clipEps: z.number().positive().max(1).default(0.2).describe('PPO clip ε'),
  clipEpsHigh: z.number().positive().max(10).nullable().default(null).describe('Upper clip (DAPO clip-higher); null = clipEps'),
  klBeta: z.number().min(0).max(1e3).default(0.05).describe('k3 KL weight to the reference'),
  aggregation: z.enum(['step-mean', 'episode-mean', 'constant']).default('step-mean').describe('Loss aggregation (core/rl/grpo.ts)'),
  maxLogRatio: z.number().positive().max(50).default(20).describe('Clamp on log-ratios'),
  maxGradNorm: z.number().min(0).max(1e6).nullable().default(1).describe('Gradient clipping, 0 or null = off'),
  maxSteps: z.int().min(1).max(100_000).nullable().default(null).describe("'constant' aggregation's divisor; null = the episodes' max_steps"),
  weightDecay: z.number().min(0).max(1).default(0).describe('Decoupled (AdamW) weight decay'),
  seed: z.int().min(0).max(2 ** 31 - 1).default(0).describe('Seed for minibatch shuffling'),
});
export type BuiltinGrpoJobConfig = z.infer<typeof BuiltinGrpoJobConfigSchema>;

/**
 * What the workbench checks of a vlm kind's config before it is sent (the trainer validates the rest): the image-size
 * bounds the server's processor uses, which the trainer must use too (docs/jobs.md).
 */
export const VlmJobPixelsSchema = z.looseObject({
  minPixels: z.int().min(1).nullable().optional().describe("The server's smart-resize lower bound (its mm_processor_kwargs min_pixels)"),
  maxPixels: z.int().min(1).nullable().optional().describe("The server's smart-resize upper bound (max_pixels)"),
}).refine((c) => c.minPixels == null || c.maxPixels == null || c.minPixels <= c.maxPixels, { message: 'minPixels must be ≤ maxPixels', path: ['minPixels'] });

export class JobConfigError extends Error {
  override name = 'JobConfigError';
  constructor(readonly kind: string, readonly problems: string[]) {
    super(`Invalid ${kind} job config: ${problems.join('; ')}`);
  }
}

/** Validates (and fills defaults of) a builtin kind's config; other kinds' configs go as given (objects only; a vlm kind's pixel bounds checked). */
export function parseJobConfig(kind: JobKind, input: unknown): Record<string, unknown> {
  const schema = kind === 'builtin-sft' ? BuiltinSftJobConfigSchema : kind === 'builtin-grpo' ? BuiltinGrpoJobConfigSchema : null;
  if (!schema) {
    if (input === undefined || input === null) return {};
    if (typeof input !== 'object' || Array.isArray(input)) throw new JobConfigError(kind, [`expected an object, got ${JSON.stringify(input)}`]);
    if (kind === 'vlm-sft' || kind === 'vlm-grpo') {
      const r = VlmJobPixelsSchema.safeParse(input, PLAIN_ISSUES);
      if (!r.success) throw new JobConfigError(kind, issueLines(r.error.issues, { root: '(root)' }));
    }
    return input as Record<string, unknown>;
  }
  const r = schema.safeParse(input ?? {}, PLAIN_ISSUES);
  if (!r.success) throw new JobConfigError(kind, issueLines(r.error.issues, { root: '(root)' }));
  return r.data;
}

export const isJobKind = (s: string): s is JobKind => (JOB_KINDS as readonly string[]).includes(s);
