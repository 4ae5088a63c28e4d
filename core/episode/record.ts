import type { Action } from '../actions/schema.js';
import type { ForegroundApp, ScreenInfo } from '../device/device.js';
import type { Bounds } from '../a11y/ui-tree.js';
import type { EpisodeOutcome } from '../tasks/task.js';
import type { CheckVerdict } from '../tasks/verdict.js';
import type { TokenUsage } from '../llm/chat-client.js';

export type { TokenUsage } from '../llm/chat-client.js';

/**
 * What an episode leaves behind: the data the runner produces, the trajectory store keeps, the
 * step-through UI shows and the trainers read. Plain data throughout (JSON-able but for PNG bytes).
 */
export interface StepError {
  name: string;
  message: string;
}

/**
 * The request a served model was sent at a step, as a trainer replays it (docs/trajectory-format.md `request`): the
 * chat, each image part naming the step whose screenshot it shows (and the size it was sent at, when the policy
 * resized it), and what a trainer needs to write a reply for this step in the model's format (a step a person
 * overrode trains on the reply the format would have given: its `format` and coordinate frame).
 */
export interface RecordedRequest {
  messages: RecordedMessage[];
  /** The action format the reply is read in (a VLM format id). */
  format: string;
  /** Where the model's coordinates live, and the resize bounds that frame depends on. */
  coordinates: string;
  minPixels?: number;
  maxPixels?: number;
  /**
   * An agent that asks its model twice per step (AndroidWorld's T3A and M3A: an action, then a summary of what it did
   * once the next screen is there): the summary call of step `step` (the previous one), made before this step's
   * request; its reply is that step's line of the agent's history.
   */
  summary?: RecordedSummary;
}
export interface RecordedSummary {
  step: number;
  messages: RecordedMessage[];
  reply: string;
}
export interface RecordedMessage {
  role: 'system' | 'user' | 'assistant';
  content: string | RecordedPart[];
}
/**
 * What an agent drew on a screenshot before sending it (AndroidWorld's M3A): `set-of-marks`, a numbered box on each
 * element it lists; `set-of-marks+after`, those and the word "after" in the bottom right corner.
 */
export const IMAGE_MARKS = ['set-of-marks', 'set-of-marks+after'] as const;
export type ImageMarks = (typeof IMAGE_MARKS)[number];
export type RecordedPart = { type: 'text'; text: string } | { type: 'image'; step: number; width?: number; height?: number; marks?: ImageMarks };

/** A scored alternative the policy considered. */
export interface Candidate {
  action: unknown;
  /** The policy's own number for it, higher preferred (the builtin and ONNX policies: log π at the decision's temperature). */
  score: number;
  /**
   * The policy's probability of choosing it, when the policy defines one: shown, recorded and tested by the Confidence
   * breakpoint as it is. A policy that gives only scores gets a softmax over them (core/episode/confidence.ts).
   */
  probability?: number;
}

/** A candidate as a step records it: always with its probability (the policy's own, or the softmax of the scores). */
export interface RecordedCandidate extends Candidate {
  probability: number;
}

/** Wall-clock milliseconds spent in each phase of a step. */
export interface StepTimings {
  observeMs: number;
  policyMs: number;
  actMs: number;
  /** Waiting until the screen is stable after acting. */
  settleMs: number;
  /** Of policyMs, the model server's answer: the request's wall time, retries included (VLM policies). */
  requestMs?: number;
}

export interface StepRecord {
  /** 0-based position in the episode. */
  index: number;
  /** What the policy returned, verbatim (JSON text or an object). */
  raw: unknown;
  /** The parsed action, when it parsed. */
  action?: Action;
  /** One line, e.g. `Tap "Save" in Contacts` (rewards match milestones against it). */
  description?: string;
  thought?: string;
  candidates?: RecordedCandidate[];
  /** Why the action could not be parsed or carried out; the device was left unchanged. */
  error?: StepError;
  /** The action came from a person (step-through override), not the policy. */
  overridden?: boolean;
  /** The app in front when the action was chosen. */
  foreground: ForegroundApp;
  /** The element the action touched, for overlays in the replay viewer. */
  target?: { ordinal: number; bounds: Bounds; label: string };
  timings: StepTimings;
  /** The model server's token counts for this step's request, when it reported them (VLM policies). */
  usage?: TokenUsage;
  /** What an outside agent sent its model for this step (text, or the chat messages as JSON), when it attached it. */
  prompt?: string;
  /** An outside agent's model reply verbatim, when it attached it (docs/env-protocol.md `step`). */
  reply?: string;
  /** The request a served model was sent for this step (VLM policies): what a trainer replays with the step's reply. */
  request?: RecordedRequest;
  /** Wall-clock time the step started (epoch ms). */
  startedAt: number;
}

/** The screen as the agent saw it before a step (or at the end of the episode). */
export interface ObservationRecord {
  /** The accessibility tree, uiautomator XML. */
  xml: string;
  /** PNG bytes, when screenshots are recorded. */
  screenshot?: Buffer;
}

export const TERMINATIONS = [
  'answer', 'status', 'max_steps', 'policy_done', 'policy_error', 'malformed_action', 'stopped', 'environment_error',
  // An outside agent left its episode before it ended (reset, close, or its connection dropped): docs/env-protocol.md.
  'aborted',
] as const;
export type Termination = (typeof TERMINATIONS)[number];

/**
 * success / failure are the checker's verdict; error means the episode says nothing about the task
 * (the policy crashed, the device failed, it was stopped): training must not learn from it.
 */
export type EpisodeStatus = 'success' | 'failure' | 'error';

export interface EpisodeStart {
  templateId: string;
  seed: number;
  instruction: string;
  params: unknown;
  policy: string;
  device: { serial: string } & ScreenInfo;
  maxSteps: number;
  startedAt: number;
}

export interface EpisodeTimings {
  resetMs: number;
  checkMs: number;
  totalMs: number;
}

export interface EpisodeResult {
  templateId: string;
  seed: number;
  instruction: string;
  policy: string;
  steps: StepRecord[];
  success: boolean;
  /** The checker's conditions with what each expected and found; absent when there was no verdict (environment error). */
  verdict?: CheckVerdict;
  status: EpisodeStatus;
  outcome: EpisodeOutcome;
  terminatedBy: Termination;
  /** Why the episode ended early (policy crash, environment failure, malformed action). */
  error?: StepError;
  timings: EpisodeTimings;
  startedAt: number;
  finishedAt: number;
}

/**
 * Receives an episode as it happens. The trajectory store implements it (each step is written as
 * soon as it is taken, so a crash loses nothing completed); the parallel runner forwards it from
 * worker threads.
 */
export interface EpisodeRecorder {
  begin(start: EpisodeStart): void | Promise<void>;
  step(step: StepRecord, before: ObservationRecord): void | Promise<void>;
  end(result: EpisodeResult, final: ObservationRecord): void | Promise<void>;
}

export function errorOf(e: unknown): StepError {
  return e instanceof Error ? { name: e.name, message: e.message } : { name: 'Error', message: String(e) };
}
