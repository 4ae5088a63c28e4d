import { isSnapshotCapable, BOOT_SNAPSHOT, type Device } from '../device/device.js';
import { observe, type Observation } from '../device/observation.js';
import { settleFor, waitUntilStable, type SettleOptions } from '../device/stable.js';
import { ActionParseError, parseAction, isTerminal, type Action } from '../actions/schema.js';
import { describeAction } from '../actions/kinds.js';
import { AppLaunchError, performPlan, planInput } from '../actions/execute.js';
import { actionElement } from '../actions/target.js';
import { elementLabel, serializeUiTree } from '../a11y/ui-tree.js';
import type { TaskInstance } from '../tasks/instance.js';
import type { EpisodeOutcome } from '../tasks/task.js';
import { nextTurn } from '../util/next-turn.js';
import type { CheckVerdict } from '../tasks/verdict.js';
import type { Policy, PolicyDecision } from './policy.js';
import { withProbabilities } from './confidence.js';
import {
  errorOf, type EpisodeRecorder, type EpisodeResult, type EpisodeStatus, type ObservationRecord, type StepError,
  type StepRecord, type Termination,
} from './record.js';

export type { EpisodeResult, StepRecord, StepError, Termination } from './record.js';

export const DEFAULT_MAX_STEPS = 20;

/** What the policy proposed for a step, before it is carried out (breakpoints look at this). */
export interface StepProposal {
  index: number;
  obs: Observation;
  decision: PolicyDecision;
  /** The parsed action, or the parse error. */
  action?: Action;
  error?: StepError;
}

/**
 * How an episode can be ended from outside it: `stopped` by a person (step-through Stop), `aborted` when an outside
 * agent left it (reset, close or a dropped connection). Either way it says nothing about the task (status error).
 */
export type EndedFromOutside = Extract<Termination, 'stopped' | 'aborted'>;

/** Points where a step-through controller can hold the episode or change its course. */
export interface EpisodeHooks {
  /** Before each step is observed: resolve 'stop' (ended as `stopped`) or 'abort' to end the episode there. */
  beforeStep?(index: number): Promise<'continue' | 'stop' | 'abort'>;
  /**
   * After the policy proposed, before acting: may replace the action (a person's override), replace the proposal with
   * a new decision of the policy's (`revised`: the policy changed its mind, not a person), or end the episode.
   */
  beforeAct?(proposal: StepProposal): Promise<{ override?: unknown; revised?: PolicyDecision; stop?: boolean | EndedFromOutside } | void>;
}

export type ScreenshotMode = 'none' | 'full' | 'half';

export interface RunEpisodeOptions {
  device: Device;
  instance: TaskInstance;
  policy: Policy;
  /** Default: the template's own budget, else 20 (AndroidWorld-Generalization's cap). */
  maxSteps?: number;
  /** Record a screenshot with every step (the policy sees it too). Default 'none'. */
  screenshots?: ScreenshotMode;
  recorder?: EpisodeRecorder;
  hooks?: EpisodeHooks;
  /**
   * An unparseable action ends the episode ('end', the default) or is recorded as a failed step
   * and the policy tries again ('continue'). Parseable but impossible actions (an index out of
   * range, typing with no focused field) always continue: the device is untouched.
   */
  onMalformed?: 'end' | 'continue';
  /** Default: the device's own (`settle` on AdbDevice), else immediate. */
  settle?: SettleOptions;
  /** Called after every step, e.g. to print progress. */
  onStep?: (step: StepRecord, obs: Observation) => void;
  /**
   * Awaited after each step is carried out and the screen settled, before it is recorded: reads the
   * device's state after the step (SimDroid's ground-truth subgoals, core/rewards/episode.ts). A
   * failure is the device's, so it ends the episode as an environment error.
   */
  onStepDone?: (step: StepRecord) => Promise<void>;
  /**
   * false: the device is already in the task's starting state, set up by someone else (AndroidWorld's
   * initialize_task): no snapshot restore, no initialize, and no teardown (whoever set it up tears it down,
   * and may still read the end state). Default true.
   */
  initialize?: boolean;
}

/** Restores the device's boot snapshot when it has one (SimDroid, AVDs), then sets up the task. */
export async function resetForTask(device: Device, instance: TaskInstance): Promise<void> {
  if (isSnapshotCapable(device)) await device.loadSnapshot(BOOT_SNAPSHOT);
  await instance.template.initialize(device, instance.params);
}

/** A device operation failed (not the agent's fault): the episode ends as an error. */
class EnvironmentError extends Error {
  override name = 'EnvironmentError';
  constructor(readonly phase: string, failure: unknown) {
    super(`${phase}: ${failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure)}`);
  }
}

/** The policy failed outside a step (in start()). */
class PolicyStartError extends Error {
  override name = 'PolicyStartError';
  constructor(readonly failure: StepError) {
    super(failure.message);
  }
}

async function env<T>(phase: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw new EnvironmentError(phase, e);
  }
}

function observationRecord(obs: Observation): ObservationRecord {
  const rec: ObservationRecord = { xml: serializeUiTree(obs.tree) };
  if (obs.screenshot) rec.screenshot = obs.screenshot;
  return rec;
}

const since = (t: number) => performance.now() - t;

/** The policy's decision with its action parsed (or the parse error), as hooks and breakpoints see it. */
export function propose(index: number, obs: Observation, decision: PolicyDecision): StepProposal {
  const proposal: StepProposal = { index, obs, decision };
  if (decision.malformed) {
    proposal.error = decision.malformed;
    return proposal;
  }
  try {
    proposal.action = parseAction(decision.action);
  } catch (e) {
    proposal.error = errorOf(e);
  }
  return proposal;
}

/**
 * Runs one episode: reset (snapshot restore + task initialize) → observe → policy → act → wait
 * until stable → record, until an `answer` or `status` action or the step budget, then check.
 * Nothing is thrown for the agent's or the device's failures: they end the episode with a status
 * and an error that is recorded.
 */
export async function runEpisode(opts: RunEpisodeOptions): Promise<EpisodeResult> {
  // One turn of the event loop per episode: SimDroid episodes can settle without any, and a loop of them would keep a
  // stop signal's handler (or a worker's message) waiting until the whole loop ends.
  await nextTurn();
  const { device, instance, policy, recorder, hooks } = opts;
  const maxSteps = opts.maxSteps ?? instance.template.maxSteps ?? DEFAULT_MAX_STEPS;
  const shots = opts.screenshots ?? 'none';
  const t0 = performance.now();
  const startedAt = Date.now();
  const steps: StepRecord[] = [];
  const actions: Action[] = [];
  const outcome: EpisodeOutcome = { actions };
  let terminatedBy: Termination = 'max_steps';
  let error: StepError | undefined;
  const look = () => env('observe', () => observe(device, shots === 'none' ? {} : { screenshot: true, scale: shots === 'full' ? 1 : 0.5 }));

  let resetMs = 0;
  try {
    // Begin before the reset, so an episode whose reset fails is still recorded with its device.
    const screen = await env('screen', () => device.screenInfo());
    await recorder?.begin({
      templateId: instance.template.id, seed: instance.seed, instruction: instance.instruction, params: instance.params,
      policy: policy.name, device: { serial: device.serial, ...screen }, maxSteps, startedAt,
    });
    const tReset = performance.now();
    if (opts.initialize !== false) await env('reset', () => resetForTask(device, instance));
    resetMs = since(tReset);
    try {
      await policy.start?.({ instruction: instance.instruction, instance });
    } catch (e) {
      throw new PolicyStartError(errorOf(e));
    }

    for (let i = 0; i < maxSteps; i++) {
      const before = hooks?.beforeStep ? await hooks.beforeStep(i) : 'continue';
      if (before !== 'continue') {
        terminatedBy = before === 'abort' ? 'aborted' : 'stopped';
        break;
      }
      const stepStart = Date.now();
      let t = performance.now();
      const obs = await look();
      const observeMs = since(t);

      t = performance.now();
      let decision: PolicyDecision | null;
      try {
        decision = await policy.act(obs, { instruction: instance.instruction, step: i, history: steps, instance });
      } catch (e) {
        error = errorOf(e);
        terminatedBy = 'policy_error';
        break;
      }
      const policyMs = since(t);
      if (decision === null) {
        terminatedBy = 'policy_done';
        break;
      }

      let proposal = propose(i, obs, decision);
      let overridden = false;
      const verdict = hooks?.beforeAct ? await hooks.beforeAct(proposal) : undefined;
      if (verdict?.stop) {
        terminatedBy = verdict.stop === true ? 'stopped' : verdict.stop;
        break;
      }
      if (verdict?.revised) {
        decision = verdict.revised;
        proposal = propose(i, obs, decision);
      }
      let raw: unknown = decision.action;
      if (verdict && 'override' in verdict && verdict.override !== undefined) {
        raw = verdict.override;
        overridden = true;
      }

      const step: StepRecord = {
        index: i, raw, foreground: obs.foreground, startedAt: stepStart,
        timings: { observeMs, policyMs, actMs: 0, settleMs: 0 },
      };
      if (decision.thought !== undefined) step.thought = decision.thought;
      if (decision.candidates !== undefined) step.candidates = withProbabilities(decision.candidates);
      if (decision.requestMs !== undefined) step.timings.requestMs = decision.requestMs;
      if (decision.usage !== undefined) step.usage = decision.usage;
      if (decision.prompt !== undefined) step.prompt = decision.prompt;
      if (decision.reply !== undefined) step.reply = decision.reply;
      if (decision.request !== undefined) step.request = decision.request;
      if (overridden) step.overridden = true;

      let action: Action | undefined;
      if (!overridden && decision.malformed) step.error = decision.malformed;
      else {
        try {
          action = overridden ? parseAction(raw) : proposal.action ?? parseAction(raw);
        } catch (e) {
          step.error = errorOf(e);
        }
      }
      if (action) {
        step.action = action;
        let plan;
        try {
          step.description = describeAction(action, obs);
          const el = actionElement(action, obs);
          if (el) step.target = { ordinal: el.ordinal, bounds: el.node.bounds, label: elementLabel(el) };
          plan = planInput(action, obs);
        } catch (e) {
          step.error = errorOf(e);
        }
        if (!step.error) {
          t = performance.now();
          try {
            await performPlan(device, action, plan!);
          } catch (e) {
            if (!(e instanceof AppLaunchError)) throw new EnvironmentError('act', e);
            step.error = errorOf(e);
          }
          step.timings.actMs = since(t);
          if (!step.error) {
            actions.push(action);
            t = performance.now();
            if (!isTerminal(action)) await env('settle', () => waitUntilStable(device, opts.settle ?? settleFor(device)));
            step.timings.settleMs = since(t);
          }
        }
      }
      if (opts.onStepDone) await env('step-done', () => opts.onStepDone!(step));
      steps.push(step);
      await recorder?.step(step, observationRecord(obs));
      opts.onStep?.(step, obs);

      const malformed = step.error !== undefined && (step.error.name === ActionParseError.name || (!overridden && decision.malformed !== undefined));
      if (malformed && (opts.onMalformed ?? 'end') === 'end') {
        error = step.error;
        terminatedBy = 'malformed_action';
        break;
      }
      if (action && !step.error && isTerminal(action)) {
        if (action.action_type === 'answer') {
          outcome.answer = action.text;
          terminatedBy = 'answer';
        } else {
          outcome.status = action.goal_status;
          terminatedBy = 'status';
        }
        break;
      }
    }
  } catch (e) {
    if (e instanceof EnvironmentError) {
      error = errorOf(e);
      terminatedBy = 'environment_error';
    } else if (e instanceof PolicyStartError) {
      error = e.failure;
      terminatedBy = 'policy_error';
    } else {
      throw e;
    }
  }

  // The checker reads the device; an environment failure means there is no verdict to trust.
  let success = false;
  let verdict: CheckVerdict | undefined;
  const tCheck = performance.now();
  let final: ObservationRecord = { xml: '' };
  if (terminatedBy !== 'environment_error') {
    try {
      verdict = await instance.template.check(device, instance.params, outcome);
      success = verdict.ok;
      if (opts.initialize !== false) await instance.template.teardown?.(device, instance.params);
      final = observationRecord(await look());
    } catch (e) {
      error = errorOf(new EnvironmentError('check', e));
      terminatedBy = 'environment_error';
      success = false;
      verdict = undefined;
    }
  }
  const checkMs = since(tCheck);
  const failedRun = terminatedBy === 'policy_error' || terminatedBy === 'environment_error' || terminatedBy === 'stopped' || terminatedBy === 'aborted';
  const status: EpisodeStatus = failedRun ? 'error' : success ? 'success' : 'failure';
  const result: EpisodeResult = {
    templateId: instance.template.id, seed: instance.seed, instruction: instance.instruction, policy: policy.name,
    steps, success, status, outcome, terminatedBy,
    timings: { resetMs, checkMs, totalMs: since(t0) }, startedAt, finishedAt: Date.now(),
  };
  if (verdict) result.verdict = verdict;
  if (error) result.error = error;
  await recorder?.end(result, final);
  return result;
}
