import type { EpisodeResult } from '../episode/record.js';
import type { ScreenshotMode } from '../episode/runner.js';
import type { VlmPolicySettings } from '../policy/vlm/settings.js';
import type { TrainConfigInput } from '../rl/config.js';
import type { RolloutRecording } from '../rl/rollout-recording.js';
import type { WritableDB } from '../store/db.js';
import type { RunId } from '../store/ids.js';
import type { GrpoAdvantages, GrpoRollouts } from '../rl/grpo-loop.js';
import type { RemoteJob } from '../store/remote-jobs.js';
import type { TaskInstance } from '../tasks/instance.js';
import { createRng } from '../util/rng.js';
import type { BundleInput } from './bundle.js';

/**
 * Types (and the trainer seed) shared by the online GRPO loop (online.ts) and its two policy drivers (online-builtin.ts,
 * online-vlm.ts): the options, the per-iteration record, the metric names, and the driver seam.
 */

/** The builtin policy: rollouts in-process, the trainer returns policy.json, the next iteration loads it. */
export interface BuiltinOnlinePolicy {
  kind: 'builtin';
  /** Starting checkpoint; default a fresh model seeded by the run seed. */
  init?: string;
  /**
   * Also record the rollouts in the training run, as offline GRPO does (iteration, group, reward, advantage; thinned by
   * the options' `recording`). Default off in the CLI (the builtin bundle carries steps, not episodes); the workbench's
   * loops record.
   */
  recordEpisodes?: boolean;
}

/** A served VLM: rollouts through the endpoint, the trainer publishes a LoRA adapter, the next iteration asks for it. */
export interface VlmOnlinePolicy {
  kind: 'vlm';
  /** The policy settings (the key, if any, in memory only). `endpoint.model` is what the first iteration asks for. */
  settings: VlmPolicySettings;
  /** The endpoint profile the settings came from (recorded in the run config). */
  profile?: string;
  /** The trainer's base model (a Hugging Face id, or "awb-tiny-lm" in tests): job config `model`. */
  baseModel: string;
  /** Adapter name prefix: the trainer loads `<name>-<job id>`. Default `awb-online-<run id>`. */
  publishName?: string;
  /** Screenshots the rollouts record and send (default 'half'). */
  screenshots?: 'half' | 'full';
  /** How often to ask GET /v1/models for a new adapter (default 5) and the first delay (default 500 ms, doubling). */
  servedTries?: number;
  servedDelayMs?: number;
}

export type OnlinePolicy = BuiltinOnlinePolicy | VlmOnlinePolicy;
export type OnlinePolicyKind = OnlinePolicy['kind'];

export interface OnlineGrpoOptions {
  /** Trainer profile name (awb jobs trainers). */
  trainer: string;
  iterations: number;
  /** The task instances of every iteration (each is one group). */
  instances: readonly TaskInstance[];
  /** Where the instances came from, for the run config (e.g. "unseen-instance:train, limit 4"). */
  source: string;
  /** Rollouts per instance (G). */
  groupSize: number;
  /** Sampling temperature; must be > 0 so a group's rollouts differ. */
  temperature: number;
  maxSteps: number;
  seed: number;
  /** SimDroids the rollouts run on, in this thread (default 1). */
  devices?: number;
  /** Trainer config overrides (validated for builtin-grpo; for vlm-grpo the loop owns model, resumeFrom and publish). */
  config?: Record<string, unknown>;
  /** Training run name (default "online-grpo <policy> <trainer>"). */
  name?: string;
  policy: OnlinePolicy;
  /**
   * What is kept of the recorded rollouts: offline GRPO's `recording` (core/rl/config.ts; default every rollout, no
   * screenshots). A VLM's rollouts are always recorded (the bundle is their export) with the policy's `screenshots`.
   */
  recording?: TrainConfigInput['recording'];
}

/** The training run a driver records its rollouts into (`recording` null: the rollouts are not recorded). */
export interface OnlineRun {
  db: WritableDB;
  id: RunId;
  recording: RolloutRecording | null;
  /** The builtin policy's recorded screenshots (`recording.screenshots`); a VLM's are its own. */
  screenshots: ScreenshotMode;
}

/**
 * The trainer's `seed` (minibatch order, LoRA dropout) of iteration k when the overrides give none:
 * drawn from the run seed, so updates do not all shuffle alike and a rerun repeats them.
 */
export function trainerSeed(seed: number, iteration: number): number {
  return createRng(`online-grpo/${seed}/${iteration}/trainer`).int(0, 2 ** 31 - 1);
}

/** Metric names of one iteration (the Training view charts them by name). */
export const ONLINE_METRIC = {
  success: 'rollout/success',
  rewardMean: 'reward/mean',
  groupsSkipped: 'rollout/groups_skipped',
  envErrors: 'rollout/env_errors',
  /** VLM: steps whose completion was not an action of the format (they end the episode as a failure). */
  formatErrors: 'rollout/format_errors',
  episodeLength: 'episode/length',
  rolloutS: 'perf/rollout_s',
  batchEpisodes: 'batch/episodes',
  batchSteps: 'batch/steps',
  /** 1 when the iteration submitted a job, 0 when every group had zero reward std. */
  submitted: 'remote/submitted',
  /** The job's local id (awb jobs status ID). */
  job: 'remote/job',
  uploadS: 'remote/upload_s',
  queueS: 'remote/queue_s',
  trainS: 'remote/train_s',
  switchS: 'remote/switch_s',
  iterationS: 'remote/iteration_s',
} as const;
/** The trainer's own metric events: the last value of each, under this prefix (e.g. trainer/loss/grpo). */
export const TRAINER_METRIC_PREFIX = 'trainer/';

export interface OnlineIteration {
  /** 1-based. */
  iteration: number;
  metrics: Record<string, number>;
  /** The iteration's job; null when no group had a reward spread (nothing was submitted). */
  job: { localId: number; remoteId: string } | null;
  /** The policy the next iteration rolls out with: a checkpoint path (builtin) or the served model name (vlm). */
  policy: string;
}

export interface OnlineGrpoHooks {
  /** The training run was created (after the checks and the trainer's preflight, before the first rollout): the workbench links to it at once. */
  onRun?: (runId: number) => void;
  onIteration?: (it: OnlineIteration) => void;
  /** Progress lines (rollouts done, job submitted, switched…). */
  onLog?: (line: string) => void;
  signal?: AbortSignal;
}

/** One finished rollout as the loop scores it. */
export interface ScoredRollout {
  group: number;
  rollout: number;
  result: EpisodeResult;
  /** Outcome reward: 1 / 0, NaN for an episode that ended in an error (left out of the statistics). */
  reward: number;
}

/** One iteration's rollouts, as a driver hands them to the loop (core/rl/grpo-loop.ts). */
export interface OnlineRollouts extends GrpoRollouts<ScoredRollout> {
  /** Each episode's steps, for the advantages: builtin its policy steps; vlm 1, as the trainer takes one advantage per episode. */
  steps: number[][];
  /** What the iteration trains on, given the advantages: the job's bundle. */
  batch(advantages: GrpoAdvantages): OnlineBatch;
}

export interface OnlineBatch {
  /** The bundle to write, or null when every group was skipped (zero reward std). */
  bundle: Omit<BundleInput, 'file' | 'createdAt'> | null;
  /** Episodes and steps the bundle trains on. */
  batchEpisodes: number;
  batchSteps: number;
  /** Driver-specific metrics (format errors). */
  extra: Record<string, number>;
}

/** The policy-specific half of an iteration. */
export interface OnlineDriver {
  readonly jobKind: 'builtin-grpo' | 'vlm-grpo';
  /** What the current policy is (checkpoint path, served model). */
  readonly current: string;
  /** G episodes per instance with the current policy. */
  rollout(iteration: number, signal?: AbortSignal): Promise<OnlineRollouts>;
  /** The job config of iteration k, given the previous job (null for the first job). */
  jobConfig(iteration: number, previous: RemoteJob | null): Record<string, unknown>;
  /** After a succeeded job: fetch what it produced and make it the current policy; returns `current`. */
  switchTo(iteration: number, job: RemoteJob, signal?: AbortSignal): Promise<string>;
  /** After the last iteration: the final policy (builtin registers its checkpoint). */
  finish(last: RemoteJob | null): string;
  close(): void;
}
