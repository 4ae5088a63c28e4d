import type { Device } from '../device/device.js';
import type { EpisodeRecorder, EpisodeResult, EpisodeStart, ObservationRecord, StepRecord } from '../episode/record.js';
import { runEpisode, type ScreenshotMode } from '../episode/runner.js';
import type { PolicyModel, PolicyStepRecord } from '../policy/builtin.js';
import { samplingPolicy } from '../policy/registry.js';
import type { TaskInstance } from '../tasks/instance.js';
import { scheduleOnDevices } from './in-process.js';

/** One rollout to run: which group (task instance) and which of its G episodes. */
export interface RolloutJob {
  group: number;
  rollout: number;
  instance: TaskInstance;
  /** Names the rollout's sampling RNG, so a rollout reproduces whichever device runs it. */
  rngKey: string;
}

/** A finished rollout: the episode result, the policy's per-step training records and the outcome reward. */
export interface Rollout {
  job: RolloutJob;
  result: EpisodeResult;
  records: PolicyStepRecord[];
  /** 1 success, 0 failure (the task checker), NaN when the episode ended in an environment error (unscorable). */
  reward: number;
  /** With `captureTrees`: the accessibility tree (uiautomator XML) each step was taken on. */
  trees?: string[];
}

/** The policy name rollouts record (EpisodeResult.policy, the store's episode policy). */
export const ROLLOUT_POLICY_NAME = 'builtin-grpo';

export interface RolloutOptions {
  model: PolicyModel;
  temperature: number;
  maxSteps: number;
  /** A recorder per episode (e.g. a StoreRecorder of the training run); none = not recorded. */
  recorder?: (job: RolloutJob) => EpisodeRecorder;
  /** Keep each step's accessibility tree in `Rollout.trees` (reward components read them). */
  captureTrees?: boolean;
  /** Screenshots the recorder gets (default 'none': the policy reads trees only). In-process rollouts only; workers take it at start. */
  screenshots?: ScreenshotMode;
}

/** Keeps the tree each step was taken on, passing everything on to `inner` (a store recorder, say). */
export class TreeCapture implements EpisodeRecorder {
  readonly trees: string[] = [];
  constructor(private readonly inner?: EpisodeRecorder) {}
  begin(start: EpisodeStart): void | Promise<void> {
    return this.inner?.begin(start);
  }
  step(step: StepRecord, before: ObservationRecord): void | Promise<void> {
    this.trees[step.index] = before.xml;
    return this.inner?.step(step, before);
  }
  end(result: EpisodeResult, final: ObservationRecord): void | Promise<void> {
    return this.inner?.end(result, final);
  }
}

/** The recorder a rollout runs with: the caller's, wrapped to capture trees when asked. */
export function rolloutRecorder(opts: Pick<RolloutOptions, 'recorder' | 'captureTrees'>, job: RolloutJob): { recorder?: EpisodeRecorder; capture?: TreeCapture } {
  const inner = opts.recorder?.(job);
  if (!opts.captureTrees) return inner ? { recorder: inner } : {};
  const capture = new TreeCapture(inner);
  return { recorder: capture, capture };
}

/**
 * Outcome reward of an episode (AW-Gen and MobileRL: binary, from the task's checker). An episode
 * that ended with status 'error' (the device or the harness failed, not the policy) is unscorable:
 * NaN, which the advantage step leaves out of the group statistics (core/rl/grpo.ts normaliseGroups).
 */
export function outcomeReward(result: EpisodeResult): number {
  if (result.status === 'error') return Number.NaN;
  return result.success ? 1 : 0;
}

/**
 * Runs every job on the devices, first come first served (the in-process scheduler of
 * in-process.ts: SimDroids in this thread interleave at await points rather than run in parallel;
 * RolloutWorkerPool in rollout-workers.ts runs the same rollouts on SimDroids in worker threads,
 * with identical results). Results come back in job order. Every rollout samples with its own RNG
 * (job.rngKey), and the model is not changed during rollouts, so the outcome does not depend on
 * the device or the order.
 */
export async function runRollouts(devices: readonly Device[], jobs: readonly RolloutJob[], opts: RolloutOptions): Promise<Rollout[]> {
  const out: Rollout[] = new Array(jobs.length);
  await scheduleOnDevices(devices, jobs, (device) => async (job, k) => {
    // The worker threads' 'builtin-sample' makes the same policy, so an episode is identical in either place.
    const policy = samplingPolicy(opts.model, { temperature: opts.temperature, rngKey: job.rngKey, policyName: ROLLOUT_POLICY_NAME });
    const { recorder, capture } = rolloutRecorder(opts, job);
    const result = await runEpisode({
      device, instance: job.instance, policy, maxSteps: opts.maxSteps, onMalformed: 'continue', ...(recorder ? { recorder } : {}),
      ...(recorder && opts.screenshots ? { screenshots: opts.screenshots } : {}),
    });
    out[k] = { job, result, records: policy.takeRecords(), reward: outcomeReward(result), ...(capture ? { trees: capture.trees } : {}) };
  });
  return out;
}
