import type { IterationMetricsRow } from '../store/training.js';

/**
 * The plain data of the workbench's background jobs (the renderer imports these types only). A job
 * is one piece of long work in a worker thread with a state machine and per-iteration metrics:
 * training (GRPO, SFT) and per-app adaptation ('adapt', core/api/adaptation) share the record, the
 * worker and the one-job-at-a-time rule, so nothing here is specific to one trainer.
 */
export type { IterationMetricsRow };

/**
 * What a training job runs: the builtin policy's GRPO / AdaGRPO (core/rl/train-grpo.ts) or behaviour cloning
 * (core/rl/sft.ts), or the transformer policy's (docs/policy-transformer.md): SFT from oracle demonstrations
 * (core/rl/transformer-sft.ts) and GRPO / AdaGRPO from an SFT model folder (core/rl/transformer-grpo.ts).
 */
export const TRAINER_KINDS = ['grpo', 'sft', 'transformer-sft', 'transformer-grpo'] as const;
export type TrainerKind = (typeof TRAINER_KINDS)[number];

/** Every kind of background job: the trainers, and per-app adaptation (before → adapt → after). */
export const JOB_KINDS = [...TRAINER_KINDS, 'adapt'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/**
 * starting → running ⇄ (pausing →) paused, → stopping → stopped; running → finished | failed.
 * 'pausing' / 'stopping': asked, and taking effect when the current iteration ends.
 */
export const JOB_STATES = ['starting', 'running', 'pausing', 'paused', 'stopping', 'stopped', 'finished', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];

/** States after which nothing more happens (the worker is gone). */
export const ENDED_JOB_STATES: readonly JobState[] = ['stopped', 'finished', 'failed'];

export interface JobCheckpoint {
  /** The checkpoint's name (its folder under <data folder>/checkpoints). */
  name: string;
  /** The folder: policy.json (for eval and `--policy builtin`), and trainer.json for a GRPO run (resume). */
  dir: string;
  /** Iterations (GRPO) or epochs (SFT) it holds. */
  iteration: number;
}


export interface JobInfo {
  /** 'job-N', unique in this workbench process. */
  id: string;
  kind: JobKind;
  state: JobState;
  /** The training run in the trajectory store (its metrics); null until the worker has opened it. */
  runId: number | null;
  /** Iterations (GRPO) or epochs (SFT) completed, including those before a resume; for 'adapt', SFT epochs + GRPO iterations. */
  iteration: number;
  /** Iterations or epochs planned in total. */
  total: number | null;
  /** What it is doing now, when not obvious (e.g. "oracle demonstrations 3/20"). */
  detail: string | null;
  /**
   * The phase under way that is not counted in iterations (SFT's oracle demonstrations), with its progress and when it
   * began: the view shows a bar and an ETA at its pace so far. Null while iterations or epochs count the progress.
   */
  phase: JobPhase | null;
  /** The latest checkpoint written (a GRPO run writes one every checkpointEvery iterations and on stop); null for 'adapt'. */
  checkpoint: JobCheckpoint | null;
  /** Why it failed (named error), for state 'failed'. */
  error: { name: string; message: string } | null;
  /** The validated config it runs (defaults filled). */
  config: Record<string, unknown>;
  startedAt: number;
  endedAt: number | null;
}

export interface JobPhase {
  name: string;
  done: number;
  total: number | null;
  /** When the phase was first heard of (epoch ms), and how many were done then: its pace is (done − startDone) per elapsed time. */
  startedAt: number;
  startDone: number;
}

/** Streamed by onTraining: a state change of any job (an adaptation's too), or one finished training iteration with its metrics. */
export type TrainingEvent =
  | { kind: 'state'; job: JobInfo }
  | { kind: 'iteration'; job: JobInfo; iteration: number; metrics: Record<string, number> };

/** A training run recorded in the store (live or finished), with its checkpoint and live job if any. */
export interface TrainingRunInfo {
  runId: number;
  name: string;
  trainer: TrainerKind | null;
  /** The store's run status: 'running' also for a run whose process died (resume it from its checkpoint). */
  status: 'running' | 'finished' | 'interrupted';
  createdAt: number;
  finishedAt: number | null;
  /** Iterations with stored metrics. */
  iterations: number;
  /** The last iteration's metrics. */
  last: Record<string, number> | null;
  checkpoint: string | null;
  /** The job of this workbench process that runs it, if any. */
  job: { id: string; state: JobState } | null;
  /** The config it ran with, as the trainer validated it (defaults filled): the charts' config diff and advice read it. */
  config: Record<string, unknown>;
}

/** Which policy a checkpoint folder holds: the builtin scorer (policy.json) or a transformer model folder. */
export type CheckpointModel = 'builtin' | 'transformer';

export interface CheckpointInfo {
  name: string;
  dir: string;
  trainer: TrainerKind | null;
  model: CheckpointModel;
  /** What `awb eval --policy …` and `awb run` load: policy.json, or the transformer's model folder itself. */
  policy: string;
  iteration: number | null;
  /** trainer.json present: a GRPO run that resumeTraining can continue. */
  resumable: boolean;
  runId: number | null;
  /** policy.json's modification time (epoch ms). */
  updatedAt: number;
}

/** One leaf field of a trainer's config, as a form needs it (dotted path, label, input kind, default). */
export interface ConfigField {
  path: string;
  description: string;
  /**
   * 'json': an array or tuple, typed as JSON text. A number field with `options` also takes those
   * words (rolloutWorkers: 'auto' or an integer).
   */
  kind: 'boolean' | 'integer' | 'number' | 'choice' | 'text' | 'json';
  nullable: boolean;
  /** The field may be left out (no default: the trainer decides). */
  optional: boolean;
  options?: Array<string | number | boolean>;
  min?: number;
  max?: number;
  default: unknown;
}

/** A named partial config (tiny smoke runs, the MobileRL ablation rows). */
export interface ConfigPreset {
  name: string;
  label: string;
  description: string;
  config: Record<string, unknown>;
  /**
   * Starts from a warm start when one exists: the form sets `init` to the newest checkpoint (a fresh policy never
   * succeeds, so every group would be flat and GRPO would get no gradient).
   */
  warmStart?: boolean;
}

/** A metric worth a chart for this trainer. */
export interface ChartSpec {
  metric: string;
  label: string;
}

export interface TrainConfigDescription {
  kind: TrainerKind;
  fields: ConfigField[];
  presets: ConfigPreset[];
  charts: ChartSpec[];
}

export interface TrainingStart {
  kind: TrainerKind;
  /** Validated by the trainer's schema; an invalid one is refused with every problem listed. */
  config: unknown;
}

/** A paused job continues; a stopped (or failed) GRPO job, or a checkpoint by name, resumes from its checkpoint. */
export type TrainingResume =
  | { jobId: string; iterations?: number }
  | { checkpoint: string; iterations?: number };
