import type { Observation } from '../device/observation.js';
import type { TaskInstance } from '../tasks/instance.js';
import type { Candidate, RecordedRequest, StepError, StepRecord, TokenUsage } from './record.js';

export type { Candidate } from './record.js';

export interface PolicyContext {
  instruction: string;
  /** 0-based index of the step being decided. */
  step: number;
  history: readonly StepRecord[];
  instance?: TaskInstance;
}

export interface PolicyDecision {
  /** The chosen action: JSON text or an object; the runner parses it, so garbage is a recorded format error. */
  action: unknown;
  /**
   * Why the policy's output is not an action, when the policy read it itself (an outside agent's AndroidWorld action
   * that cannot be carried out): recorded as the step's error and treated as a malformed action; `action` is then
   * what the policy was given, kept verbatim.
   */
  malformed?: StepError;
  thought?: string;
  candidates?: Candidate[];
  /** A served model's answer time (the request, retries included), recorded as the step's timings.requestMs. */
  requestMs?: number;
  /** A served model's token counts for the request, recorded as the step's usage. */
  usage?: TokenUsage;
  /** What an outside agent sent its model and what the model replied, recorded with the step (StepRecord). */
  prompt?: string;
  reply?: string;
  /** The request a served model was sent, recorded as the step's request (what a trainer replays). */
  request?: RecordedRequest;
  /**
   * Set when the policy cannot choose and wants a person to (why, in plain words): a step-through
   * session holds at this proposal even while running, instead of recording it.
   */
  handover?: string;
}

/** Anything that picks actions: a scripted oracle, a random agent, a trained policy, a person. */
export interface Policy {
  readonly name: string;
  /** Called once before the first step of an episode. */
  start?(ctx: { instruction: string; instance?: TaskInstance }): void | Promise<void>;
  /** The next action; null when the policy has nothing more to do (a replay ran out of actions). */
  act(obs: Observation, ctx: PolicyContext): PolicyDecision | null | Promise<PolicyDecision | null>;
}
