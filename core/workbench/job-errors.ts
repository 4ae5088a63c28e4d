import { WorkbenchError } from '../util/errors.js';
import type { JobKind, JobState, TrainerKind } from '../api/training-types.js';
import { parseIssueLine } from '../util/zod-issues.js';

/** The named errors of the workbench's background jobs (training and adaptation). */
export class TrainingConfigError extends WorkbenchError {
  override name = 'TrainingConfigError';
  /** The problems by field path (as ApiInputError's, so the form can mark each field). */
  readonly issues: Array<{ path: string; message: string }>;
  constructor(readonly kind: TrainerKind, readonly problems: string[]) {
    super(`Invalid ${kind} config (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${problems.join('; ')}`);
    this.issues = problems.map(parseIssueLine);
  }
}

/** One background job of any kind runs at a time: a training run and an adaptation compete for the same cores. */
export class TrainingBusyError extends WorkbenchError {
  override name = 'TrainingBusyError';
  constructor(readonly jobId: string, readonly state: JobState, readonly kind: JobKind) {
    super(`${kind === 'adapt' ? 'Adaptation' : 'Training'} job ${jobId} is ${state}: one background job (training or adaptation) runs at a time; stop it first`);
  }
}

export class TrainingJobNotFoundError extends WorkbenchError {
  override name = 'TrainingJobNotFoundError';
  constructor(readonly jobId: string) {
    super(`No training job ${JSON.stringify(jobId)} in this workbench`);
  }
}

export class TrainingStateError extends WorkbenchError {
  override name = 'TrainingStateError';
  constructor(readonly jobId: string, readonly state: JobState, readonly wanted: string, hint = '') {
    super(`Cannot ${wanted} training job ${jobId}: it is ${state}${hint ? `; ${hint}` : ''}`);
  }
}

/** A job id of another kind than the call is for (an adaptation's report of a GRPO job). */
export class JobKindError extends WorkbenchError {
  override name = 'JobKindError';
  constructor(readonly jobId: string, readonly kind: JobKind, readonly wanted: JobKind) {
    super(`Job ${jobId} is a ${kind} job, not an ${wanted} job`);
  }
}

export class TrainingStoreError extends WorkbenchError {
  override name = 'TrainingStoreError';
  constructor(readonly dbPath: string) {
    super(`Training needs a trajectory store file its worker can open too, got ${JSON.stringify(dbPath)}`);
  }
}
