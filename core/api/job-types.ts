import type { PublicTrainerProfile } from '../remote-jobs/profiles.js';
import type { RemoteJob, RemoteJobStatus } from '../store/remote-jobs.js';

/**
 * The plain data of remote trainer jobs for the API and the Jobs view (core/remote-jobs does the work;
 * docs/jobs.md). Tokens never appear here: a trainer profile is shown as name + URL + whether a
 * token is set.
 */
export type { PublicTrainerProfile, RemoteJobStatus };

/** A trainer profile to save: the awb trainer service (token required) or, with kind 'ray', a Ray cluster (docs/jobs.md "Ray"). */
export interface TrainerSave {
  name: string;
  baseUrl: string;
  token?: string;
  kind?: 'trainer' | 'ray';
  /** ray: the shared folder finished jobs are published to, at the same path here and on the cluster. */
  resultsDir?: string;
  /** ray: GPUs each job reserves (default 1). */
  gpus?: number;
  /** Save without checking that the trainer answers (one that is off now): otherwise an unreachable one is refused (TrainerCheckError). */
  saveAnyway?: boolean;
}

/** The job kinds the workbench builds bundles for from the UI (VLM kinds need episodes and a served model: CLI). */
export const REMOTE_SUBMIT_KINDS = ['builtin-sft', 'builtin-grpo'] as const;
export type RemoteSubmitKind = (typeof REMOTE_SUBMIT_KINDS)[number];

/** A job as the API shows it: the store's record (core/store/remote-jobs.ts) with a plain id, without its idempotency key. */
export type RemoteJobInfo = Omit<RemoteJob, 'id' | 'idempotencyKey'> & { id: number };

export interface RemoteJobSubmit {
  trainer: string;
  kind: RemoteSubmitKind;
  /** The kind's config (docs/trainer-protocol.md); validated with core/remote-jobs/protocol.ts, listing every problem. */
  config?: unknown;
  name?: string;
  /** Task instances: a split part (default unseen-instance / train) … */
  split?: string;
  part?: string;
  /** … or those of stored episodes. */
  episodeIds?: number[];
  limit?: number;
  /** Starting checkpoint: a path under the data folder (default: a fresh model from `seed`). */
  init?: string;
  seed?: number;
  /** builtin-grpo rollouts: group size, sampling temperature, step budget. */
  groupSize?: number;
  temperature?: number;
  maxSteps?: number;
}

/** Online GRPO from the workbench (docs/online-grpo.md "In the workbench"): the loop's policy, by kind. */
export const ONLINE_POLICY_KINDS = ['builtin', 'vlm'] as const;
export type OnlinePolicyKindName = (typeof ONLINE_POLICY_KINDS)[number];

export type OnlineGrpoPolicyInput =
  /** `init`: a checkpoint by name (checkpoint:<name>, a bare checkpoint name, or a registered .json in <data folder>/policies); none: a fresh model from `seed`. */
  | { kind: 'builtin'; init?: string }
  /** `endpoint`: an endpoint profile's name (its key is read in the workbench, never sent through the API); `baseModel`: the trainer's model. */
  | { kind: 'vlm'; endpoint: string; baseModel: string };

export interface OnlineGrpoStart {
  trainer: string;
  policy: OnlineGrpoPolicyInput;
  /** Task instances of every iteration: a split part (default unseen-instance / train), the first `limit`. */
  split?: string;
  part?: string;
  limit?: number;
  iterations: number;
  /** Rollouts per instance (default 4), sampling temperature (default 1), step budget (default 20), run seed (default 0). */
  groupSize?: number;
  temperature?: number;
  maxSteps?: number;
  seed?: number;
  /** Trainer config overrides (builtin-grpo's fields; for vlm-grpo the loop owns model, resumeFrom and publish but `{ apiKeyEnv }`). */
  config?: Record<string, unknown>;
  name?: string;
}

export type OnlineGrpoState = 'running' | 'stopping' | 'finished' | 'stopped' | 'failed';

/** One finished iteration as the Jobs view lists it. */
export interface OnlineGrpoIterationView {
  iteration: number;
  successRate: number;
  rewardMean: number;
  groupsSkipped: number;
  /** The iteration's remote job (a normal record in the Jobs table), null when nothing was submitted (no reward spread). */
  job: { localId: number; remoteId: string } | null;
  /** What the next iteration rolls out with: a checkpoint path (builtin) or a served model name (vlm). */
  policy: string;
  metrics: Record<string, number>;
}

/** An online GRPO loop of this workbench: its training run (charted in the Training view), state, iterations and log tail. */
export interface OnlineGrpoRunInfo {
  runId: number;
  /** The onActivity id whose done / total counts the iterations. */
  activityId: string;
  name: string;
  trainer: string;
  policyKind: OnlinePolicyKindName;
  iterations: number;
  state: OnlineGrpoState;
  startedAt: number;
  finishedAt: number | null;
  /** The policy the rollouts use now. */
  policy: string;
  done: OnlineGrpoIterationView[];
  /** The loop's progress lines (the last ONLINE_LOG_TAIL). */
  log: string[];
  /** Why it failed or stopped ("Name: message"). */
  error: string | null;
  finalPolicy: string | null;
}

/** What onRemoteJob sends: a record change, a job's log line / metrics as the service emits them, or an online GRPO loop's new state. */
export type RemoteJobEvent =
  | { type: 'online'; run: OnlineGrpoRunInfo }
  | { type: 'job'; job: RemoteJobInfo }
  | { type: 'log'; jobId: number; seq: number; time: number; level: string; message: string }
  | { type: 'metric'; jobId: number; seq: number; time: number; step: number; metrics: Record<string, number> };
