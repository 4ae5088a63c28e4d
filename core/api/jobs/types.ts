import type { PublicTrainerProfile } from '../../jobs/profiles.js';
import type { RemoteJob, RemoteJobStatus } from '../../store/remote-jobs.js';

/**
 * The plain data of remote trainer jobs for the API and the Jobs view (core/jobs does the work;
 * docs/jobs.md). Tokens never appear here: a trainer profile is shown as name + URL + whether a
 * token is set.
 */
export type { PublicTrainerProfile, RemoteJobStatus };

/** The job kinds the workbench builds bundles for from the UI (VLM kinds need episodes and a served model: CLI). */
export const REMOTE_SUBMIT_KINDS = ['builtin-sft', 'builtin-grpo'] as const;
export type RemoteSubmitKind = (typeof REMOTE_SUBMIT_KINDS)[number];

/** A job as the API shows it: the store's record (core/store/remote-jobs.ts) with a plain id, without its idempotency key. */
export type RemoteJobInfo = Omit<RemoteJob, 'id' | 'idempotencyKey'> & { id: number };

export interface RemoteJobSubmit {
  trainer: string;
  kind: RemoteSubmitKind;
  /** The kind's config (docs/trainer-protocol.md); validated with core/jobs/protocol.ts, listing every problem. */
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

/** What onRemoteJob sends: a record change, or a job's log line / metrics as the service emits them. */
export type RemoteJobEvent =
  | { type: 'job'; job: RemoteJobInfo }
  | { type: 'log'; jobId: number; seq: number; time: number; level: string; message: string }
  | { type: 'metric'; jobId: number; seq: number; time: number; step: number; metrics: Record<string, number> };
