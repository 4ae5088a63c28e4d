import type { PublicTrainerProfile } from '../../jobs/profiles.js';
import type { DownloadedArtifact, RemoteJobStatus } from '../../store/remote-jobs.js';

/**
 * The plain data of remote trainer jobs for the API and the Jobs view (core/jobs does the work;
 * docs/jobs.md). Tokens never appear here: a trainer profile is shown as name + URL + whether a
 * token is set.
 */
export type { PublicTrainerProfile, RemoteJobStatus };

/** The job kinds the workbench builds bundles for from the UI (VLM kinds need episodes and a served model: CLI). */
export const REMOTE_SUBMIT_KINDS = ['builtin-sft', 'builtin-grpo'] as const;
export type RemoteSubmitKind = (typeof REMOTE_SUBMIT_KINDS)[number];

export interface RemoteJobInfo {
  /** The local record's id. */
  id: number;
  trainer: string;
  /** The service's job id (null while the submission is unanswered). */
  remoteId: string | null;
  kind: string;
  name: string | null;
  status: RemoteJobStatus;
  datasetSha256: string;
  datasetSize: number;
  config: Record<string, unknown>;
  error: { code: string; message: string } | null;
  createdAt: number;
  finishedAt: number | null;
  lastSeq: number;
  /** Downloaded artifacts (under <data folder>/jobs/<trainer>/<remote id>/). */
  artifacts: DownloadedArtifact[];
  /** Where the trained builtin policy was registered, if it was. */
  policyPath: string | null;
}

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
