import { z } from 'zod';
import { ActionSchema } from '../actions/schema.js';
import { IMAGE_MARKS, TERMINATIONS } from '../episode/record.js';
import { STORED_EPISODE_STATUSES } from './statuses.js';

/**
 * The exchange format for trajectories (docs/trajectory-format.md): a directory with
 * `manifest.json`, `episodes.jsonl` (one episode per line) and the screenshots and trees they refer
 * to, each file named by the SHA-256 of its bytes. Keys are snake_case for the Python side. Unknown
 * keys are ignored, so a minor addition does not need a new version; `version` changes when a field
 * changes meaning or is removed.
 */
export const FORMAT_NAME = 'awb-trajectories';
export const FORMAT_VERSION = 1;
export const EPISODES_FILE = 'episodes.jsonl';
export const MANIFEST_FILE = 'manifest.json';
export const SCREENSHOT_DIR = 'screenshots';
export const TREE_DIR = 'trees';

export const screenshotPath = (sha: string) => `${SCREENSHOT_DIR}/${sha}.png`;
export const treePath = (sha: string) => `${TREE_DIR}/${sha}.xml`;

// Paths are checked to be exactly these shapes: an import never reads outside its directory.
const ScreenshotRef = z.string().regex(/^screenshots\/[0-9a-f]{64}\.png$/, 'expected "screenshots/<sha256>.png"');
const TreeRef = z.string().regex(/^trees\/[0-9a-f]{64}\.xml$/, 'expected "trees/<sha256>.xml"');

const ErrorLine = z.object({ name: z.string(), message: z.string() });
const Reward = z.object({ value: z.number(), explanation: z.string() });

const RecordedPartLine = z.union([
  z.strictObject({ type: z.literal('text'), text: z.string() }),
  z.strictObject({
    type: z.literal('image'), step: z.int().min(0), width: z.int().min(1).optional(), height: z.int().min(1).optional(), marks: z.enum(IMAGE_MARKS).optional(),
  }),
]);
const RecordedMessages = z.array(z.strictObject({ role: z.enum(['system', 'user', 'assistant']), content: z.union([z.string(), z.array(RecordedPartLine)]) })).min(1);
const RecordedRequestLine = z.strictObject({
  messages: RecordedMessages,
  format: z.string().min(1),
  coordinates: z.string().min(1),
  minPixels: z.int().min(1).optional(),
  maxPixels: z.int().min(1).optional(),
  summary: z.strictObject({ step: z.int().min(0), messages: RecordedMessages, reply: z.string() }).optional(),
});

export const StepLine = z.object({
  index: z.number().int().min(0),
  started_at: z.number().int(),
  /** What the policy returned, verbatim (JSON text as a string, or an object). */
  raw: z.unknown(),
  action: ActionSchema.nullable(),
  description: z.string().nullable(),
  thought: z.string().nullable(),
  /**
   * `probability`: the policy's probability of the candidate (added within version 1; every export writes it). A file
   * without it was written when the builtin and ONNX policies, the only ones giving candidates, put it in `score`.
   */
  candidates: z.array(z.object({ action: z.unknown(), score: z.number(), probability: z.number().min(0).max(1).optional() })).nullable(),
  error: ErrorLine.nullable(),
  overridden: z.boolean(),
  foreground: z.object({ package: z.string(), activity: z.string() }),
  target: z.object({
    ordinal: z.number().int(),
    bounds: z.object({ left: z.number(), top: z.number(), right: z.number(), bottom: z.number() }),
    label: z.string(),
  }).nullable(),
  timings: z.object({
    observe_ms: z.number(), policy_ms: z.number(), act_ms: z.number(), settle_ms: z.number(),
    /** Of policy_ms, a served model's answer time (added within version 1: absent in older files and for other policies). */
    request_ms: z.number().min(0).nullable().default(null),
  }),
  /** A served model's token counts for the step's request, when it reported them (added within version 1). */
  usage: z.object({ prompt_tokens: z.int().min(0), completion_tokens: z.int().min(0) }).nullable().default(null),
  /** An outside agent's request to its model and the model's reply (added within version 1: absent in older files). */
  prompt: z.string().nullable().default(null),
  reply: z.string().nullable().default(null),
  /** The request a served model was sent for the step (added within version 1: absent in older files and for other policies). */
  request: RecordedRequestLine.nullable().default(null),
  rewards: z.record(z.string(), Reward),
  /** Kinds that could not score this step, with why (added within version 1: absent in older files). */
  unscored: z.record(z.string(), z.string().refine((r) => r.trim().length > 0, 'an unscored reward needs a reason')).default({}),
  screenshot: ScreenshotRef.nullable(),
  tree: TreeRef.nullable(),
}).refine((s) => Object.keys(s.unscored).every((k) => !(k in s.rewards)), {
  message: 'a reward kind is either scored or unscored on a step, not both', path: ['unscored'],
});
export type StepLine = z.infer<typeof StepLine>;

const ConditionLine = z.object({ name: z.string(), ok: z.boolean(), expected: z.string().optional(), found: z.string().optional() });
const VerdictLine = z.object({ ok: z.boolean(), conditions: z.array(ConditionLine) });

const SubgoalsLine = z.object({ names: z.array(z.string()), done: z.array(z.number().int().min(0)) });

export const EpisodeLine = z.object({
  uid: z.string().min(1).max(200),
  template: z.string().min(1),
  apps: z.array(z.string()),
  difficulty: z.enum(['easy', 'medium', 'hard']).nullable(),
  task_kind: z.enum(['completion', 'information_retrieval']).nullable(),
  tags: z.array(z.string()),
  seed: z.number().int().min(0),
  params: z.unknown(),
  instruction: z.string(),
  policy: z.string(),
  status: z.enum(STORED_EPISODE_STATUSES),
  success: z.boolean().nullable(),
  /** The checker's conditions, each with what it expected and found (added within version 1: absent in older files). */
  verdict: VerdictLine.nullable().default(null),
  terminated_by: z.enum(TERMINATIONS).nullable(),
  answer: z.string().nullable(),
  error: ErrorLine.nullable(),
  max_steps: z.number().int().min(0).nullable(),
  started_at: z.number().int(),
  finished_at: z.number().int().nullable(),
  timings: z.object({ reset_ms: z.number(), check_ms: z.number(), total_ms: z.number() }).nullable(),
  device: z.object({ serial: z.string().min(1), width: z.number().int(), height: z.number().int(), density: z.number() }).nullable(),
  steps: z.array(StepLine).refine((steps) => steps.every((s, i) => s.index === i), 'step indexes must be 0, 1, 2, … in order'),
  final_screenshot: ScreenshotRef.nullable(),
  final_tree: TreeRef.nullable(),
  /** SimDroid's ground-truth subgoal progress (added within version 1: absent in older files). */
  subgoals: SubgoalsLine.nullable().default(null),
}).superRefine((ep, ctx) => {
  // The same checks the store makes (putSubgoalProgress), here so a bad line is refused before anything is imported.
  const sg = ep.subgoals;
  if (!sg) return;
  const issue = (message: string) => ctx.addIssue({ code: 'custom', message, path: ['subgoals', 'done'] });
  if (sg.done.length !== ep.steps.length) issue(`expected one count per step (${ep.steps.length}), got ${sg.done.length}`);
  sg.done.forEach((n, i) => {
    if (n > sg.names.length) issue(`step ${i} count ${n} is more than the ${sg.names.length} subgoals`);
    if (i > 0 && n < sg.done[i - 1]!) issue(`step ${i} count ${n} decreases`);
  });
});
export type EpisodeLine = z.infer<typeof EpisodeLine>;

export const Manifest = z.object({
  format: z.literal(FORMAT_NAME),
  version: z.number().int().min(1),
  exported_at: z.string(),
  counts: z.object({ episodes: z.number().int(), steps: z.number().int(), screenshots: z.number().int(), trees: z.number().int() }),
});
export type Manifest = z.infer<typeof Manifest>;
