import { isSnapshotCapable, BOOT_SNAPSHOT, type Device, type ForegroundApp } from '../device/device.js';
import { observe, type Observation } from '../device/observation.js';
import { parseAction, isTerminal, type Action } from '../actions/schema.js';
import { describeAction } from '../actions/kinds.js';
import { executeAction } from '../actions/execute.js';
import type { TaskInstance } from '../tasks/instance.js';
import type { EpisodeOutcome } from '../tasks/task.js';
import type { Candidate, Policy } from './policy.js';

export const DEFAULT_MAX_STEPS = 20;

export interface StepError {
  name: string;
  message: string;
}

export interface StepRecord {
  index: number;
  /** What the policy returned, verbatim. */
  raw: unknown;
  /** The parsed action, when it parsed. */
  action?: Action;
  description?: string;
  thought?: string;
  candidates?: Candidate[];
  /** Why the action could not be parsed or carried out; the device was left unchanged. */
  error?: StepError;
  foreground: ForegroundApp;
}

export type Termination = 'answer' | 'status' | 'max_steps' | 'policy_error';

export interface EpisodeResult {
  templateId: string;
  seed: number;
  instruction: string;
  steps: StepRecord[];
  success: boolean;
  outcome: EpisodeOutcome;
  terminatedBy: Termination;
  /** A policy crash (the episode ended early). */
  error?: StepError;
}

export interface RunEpisodeOptions {
  device: Device;
  instance: TaskInstance;
  policy: Policy;
  maxSteps?: number;
  /** Ask the device for a screenshot each step (slower; not needed by oracle or random policies). */
  screenshots?: boolean;
  /** Called after every step, e.g. to print progress. */
  onStep?: (step: StepRecord, obs: Observation) => void;
}

function errorOf(e: unknown): StepError {
  return e instanceof Error ? { name: e.name, message: e.message } : { name: 'Error', message: String(e) };
}

/** Restores the device's boot snapshot when it has one (SimDroid, AVDs), then sets up the task. */
export async function resetForTask(device: Device, instance: TaskInstance): Promise<void> {
  if (isSnapshotCapable(device)) await device.loadSnapshot(BOOT_SNAPSHOT);
  await instance.template.initialize(device, instance.params);
}

/**
 * Runs one episode: reset, then observe → policy → act until an `answer` or `status` action or
 * the step budget, then check. A malformed or impossible action is recorded with its error and
 * leaves the device unchanged; a policy that throws ends the episode (recorded, not rethrown).
 */
export async function runEpisode(opts: RunEpisodeOptions): Promise<EpisodeResult> {
  const { device, instance, policy } = opts;
  const maxSteps = opts.maxSteps ?? instance.template.maxSteps ?? DEFAULT_MAX_STEPS;
  await resetForTask(device, instance);
  await policy.start?.({ instruction: instance.instruction, instance });
  const steps: StepRecord[] = [];
  const actions: Action[] = [];
  const outcome: EpisodeOutcome = { actions };
  let terminatedBy: Termination = 'max_steps';
  let error: StepError | undefined;

  for (let i = 0; i < maxSteps; i++) {
    const obs = await observe(device, { screenshot: opts.screenshots ?? false });
    let decision;
    try {
      decision = await policy.act(obs, { instruction: instance.instruction, step: i, history: steps, instance });
    } catch (e) {
      error = errorOf(e);
      terminatedBy = 'policy_error';
      break;
    }
    const step: StepRecord = { index: i, raw: decision.action, foreground: obs.foreground };
    if (decision.thought !== undefined) step.thought = decision.thought;
    if (decision.candidates !== undefined) step.candidates = decision.candidates;
    try {
      const action = parseAction(decision.action);
      step.action = action;
      step.description = describeAction(action, obs);
      await executeAction(device, action, obs);
      actions.push(action);
    } catch (e) {
      step.error = errorOf(e);
    }
    steps.push(step);
    opts.onStep?.(step, obs);
    const a = step.action;
    if (a && !step.error && isTerminal(a)) {
      if (a.action_type === 'answer') {
        outcome.answer = a.text;
        terminatedBy = 'answer';
      } else {
        outcome.status = a.goal_status;
        terminatedBy = 'status';
      }
      break;
    }
  }
  const success = await instance.template.check(device, instance.params, outcome);
  await instance.template.teardown?.(device, instance.params);
  const result: EpisodeResult = {
    templateId: instance.template.id,
    seed: instance.seed,
    instruction: instance.instruction,
    steps,
    success,
    outcome,
    terminatedBy,
  };
  if (error) result.error = error;
  return result;
}
