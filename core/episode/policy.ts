import type { Observation } from '../device/observation.js';
import type { TaskInstance } from '../tasks/instance.js';
import type { StepRecord } from './runner.js';

export interface PolicyContext {
  instruction: string;
  /** 0-based index of the step being decided. */
  step: number;
  history: readonly StepRecord[];
  instance?: TaskInstance;
}

/** A scored alternative the policy considered (recorded for the step-through UI and rewards). */
export interface Candidate {
  action: unknown;
  score: number;
}

export interface PolicyDecision {
  /** The chosen action: JSON text or an object; the runner parses it, so garbage is a recorded format error. */
  action: unknown;
  thought?: string;
  candidates?: Candidate[];
}

/** Anything that picks actions: a scripted oracle, a random agent, a trained policy, a person. */
export interface Policy {
  readonly name: string;
  /** Called once before the first step of an episode. */
  start?(ctx: { instruction: string; instance?: TaskInstance }): void | Promise<void>;
  act(obs: Observation, ctx: PolicyContext): PolicyDecision | Promise<PolicyDecision>;
}
