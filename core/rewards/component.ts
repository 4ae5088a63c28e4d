import type { Action } from '../actions/schema.js';
import type { ForegroundApp } from '../device/device.js';
import type { StepError } from '../episode/record.js';
import { WorkbenchError } from '../util/errors.js';
import type { DetailedRewardValues } from './details.js';

/**
 * The reward framework (issue 7): a reward component maps one finished episode to a reward per step,
 * each with a short explanation, so the replay viewer can show what every component says about every
 * step and why, GRPO can train on a weighted combination, and the store keeps each component's values
 * under its own kind (step_rewards.kind).
 *
 * Components are pure with respect to the device: they read the episode as recorded. Anything that
 * needs the live device (SimDroid's ground-truth subgoals) is captured while the episode runs and
 * handed in as `subgoalsDone`.
 */

/** The closed set of reward components; each has one module under core/rewards/. */
export const REWARD_KINDS = ['outcome', 'format', 'admire', 'progrm', 'shepherd', 'shortest-path'] as const;
export type RewardKind = (typeof REWARD_KINDS)[number];

/** One step of an episode as a reward component sees it. */
export interface RewardStep {
  /** 0-based. */
  index: number;
  /** The parsed action; absent when the policy's output did not parse (see `error`). */
  action?: Action;
  /** One line, e.g. `Tap "Save" in Contacts` (what ADMIRE matches milestones against). */
  description?: string;
  /** Why the action could not be parsed or carried out. */
  error?: StepError;
  foreground: ForegroundApp;
  /** The accessibility tree (uiautomator XML) the step was taken on, when available. */
  tree?: string;
  /** The element the action touched. */
  target?: { label: string };
  /**
   * The screenshot (PNG) the step was taken on, when recorded: for judges that look at the screen
   * (GUI-Shepherd's VLM judge). Read from the store on first access, once per distinct screenshot.
   */
  readonly screenshot?: Buffer;
}

export interface RewardEpisode {
  templateId: string;
  seed: number;
  instruction: string;
  /** The instance's parameters (for placeholder substitution in milestones). */
  params: Record<string, unknown>;
  steps: readonly RewardStep[];
  /** The checker's verdict; null when the episode ended in an environment error (unscorable). */
  success: boolean | null;
  /** How the episode ended, one line (`environment_error: EnvironmentError: observe: …`), for explanations. */
  verdictNote?: string;
  /**
   * Ground truth from SimDroid, when captured: for each step, how many of the template's ordered
   * subgoals were done after it (non-decreasing). Absent for real devices and old recordings.
   */
  subgoalsDone?: readonly number[];
  /** The template's subgoal names, in order (with `subgoalsDone`). */
  subgoalNames?: readonly string[];
}

/**
 * One component's verdict on one step. `value: null` means the step could not be scored (a judge
 * endpoint down, say); `explanation` then says why. A null is never silently turned into 0.
 */
export interface StepRewardValue {
  step: number;
  value: number | null;
  explanation: string;
}

export interface RewardComponent {
  readonly kind: RewardKind;
  /** One value per step of the episode, in step order (length = episode.steps.length). */
  compute(episode: RewardEpisode, signal?: AbortSignal): Promise<StepRewardValue[]>;
  /**
   * The same values plus what the replay viewer shows beyond them (core/rewards/details.ts), in one
   * pass so a judge is asked once. Optional: components whose explanations say it all omit it.
   */
  computeDetailed?(episode: RewardEpisode, signal?: AbortSignal): Promise<DetailedRewardValues>;
}

/** A component returned the wrong number of steps, or a non-finite value: a bug, not a verdict. */
export class RewardComponentError extends WorkbenchError {
  override name = 'RewardComponentError';
  constructor(readonly kind: RewardKind, message: string, readonly got: unknown) {
    super(`Reward component ${kind}: ${message} (got ${JSON.stringify(got)})`);
  }
}

/** Checks a component's output against its episode; throws RewardComponentError. */
export function checkRewardValues(kind: RewardKind, episode: RewardEpisode, values: readonly StepRewardValue[]): void {
  if (values.length !== episode.steps.length) throw new RewardComponentError(kind, `expected ${episode.steps.length} step values`, values.length);
  values.forEach((v, i) => {
    if (v.step !== i) throw new RewardComponentError(kind, `value ${i} is for step ${v.step}`, v.step);
    if (v.value !== null && !Number.isFinite(v.value)) throw new RewardComponentError(kind, `step ${i} value is not finite`, v.value);
  });
}
