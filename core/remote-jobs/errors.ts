import { WorkbenchError } from '../util/errors.js';

/**
 * Named errors of the job client. None of them carries the token: messages name the trainer's base
 * URL, the request path, the HTTP status, the protocol's error code and the job id where there is one.
 */

/** The service answered with a non-2xx status (its `{ error: { code, message } }` body, parsed when present). */
export class TrainerHttpError extends WorkbenchError {
  override name = 'TrainerHttpError';
  constructor(
    readonly baseUrl: string, readonly method: string, readonly path: string, readonly status: number,
    readonly code: string, readonly serverMessage: string, readonly jobId: string | null = null,
  ) {
    super(`Trainer ${baseUrl}: ${method} ${path} → ${status} ${code}${jobId ? ` (job ${jobId})` : ''}: ${serverMessage}`);
  }
}

/** The service could not be reached, or the connection dropped, after every retry. */
export class TrainerUnreachableError extends WorkbenchError {
  override name = 'TrainerUnreachableError';
  constructor(readonly baseUrl: string, readonly method: string, readonly path: string, readonly attempts: number, readonly causeMessage: string) {
    super(`Trainer ${baseUrl} unreachable: ${method} ${path} failed ${attempts} time(s); last: ${causeMessage}`);
  }
}

/**
 * An upload made no progress for the client's whole stall budget while the trainer answered (typically 409: it still
 * receives this bundle on a connection whose client vanished, and has not released it yet).
 */
export class UploadStalledError extends WorkbenchError {
  override name = 'UploadStalledError';
  constructor(readonly baseUrl: string, readonly sha256: string, readonly offset: number, readonly size: number, readonly stalledMs: number, readonly causeMessage: string) {
    super(`Upload of ${sha256.slice(0, 12)}… to ${baseUrl} made no progress for ${Math.round(stalledMs / 1000)} s at ${offset} of ${size} bytes; `
      + `the trainer is up but answered: ${causeMessage}. Try again later (it resumes from ${offset})`);
  }
}

/** The service answered with something that is not the protocol (wrong JSON shape, not JSON). */
export class TrainerProtocolError extends WorkbenchError {
  override name = 'TrainerProtocolError';
  constructor(readonly baseUrl: string, readonly path: string, readonly problem: string) {
    super(`Trainer ${baseUrl}: ${path} answered outside the protocol: ${problem}`);
  }
}

/** A downloaded artifact's bytes do not hash to what the job record says (the partial file is deleted). */
export class ArtifactChecksumError extends WorkbenchError {
  override name = 'ArtifactChecksumError';
  constructor(readonly jobId: string, readonly artifact: string, readonly expected: string, readonly got: string) {
    super(`Artifact ${artifact} of job ${jobId}: sha256 ${got}, expected ${expected}; the download was deleted`);
  }
}

/** The job finished without the artifact asked for (or is not finished). */
export class ArtifactNotFoundError extends WorkbenchError {
  override name = 'ArtifactNotFoundError';
  constructor(readonly jobId: string, readonly artifact: string, readonly available: readonly string[]) {
    super(`Job ${jobId} has no artifact ${JSON.stringify(artifact)}${available.length ? ` (it has ${available.join(', ')})` : ' (it has none yet)'}`);
  }
}

/** A trainer profile name that is not in the settings file, or a bad profile. */
export class TrainerProfileError extends WorkbenchError {
  override name = 'TrainerProfileError';
  constructor(readonly profile: string, reason: string) {
    super(`Trainer profile ${JSON.stringify(profile)}: ${reason}`);
  }
}

/** A local remote-job record that does not exist. */
export class RemoteJobNotFoundError extends WorkbenchError {
  override name = 'RemoteJobNotFoundError';
  constructor(readonly ref: string) {
    super(`No remote job ${JSON.stringify(ref)} in the store (awb jobs list shows them)`);
  }
}

/** The job's state does not allow the operation (register before download, submit of a finished record…). */
export class RemoteJobStateError extends WorkbenchError {
  override name = 'RemoteJobStateError';
  constructor(readonly ref: string, reason: string) {
    super(`Remote job ${ref}: ${reason}`);
  }
}

/** Dataset bundle building refused its input. */
export class BundleError extends WorkbenchError {
  override name = 'BundleError';
  constructor(readonly kind: string, reason: string) {
    super(`Dataset bundle for ${kind}: ${reason}`);
  }
}

/** A Ray cluster's Jobs API answered with a non-2xx status (Ray's answers are plain text: the message is it). */
export class RayHttpError extends WorkbenchError {
  override name = 'RayHttpError';
  constructor(
    readonly baseUrl: string, readonly method: string, readonly path: string, readonly status: number, readonly rayMessage: string,
    readonly jobId: string | null = null,
  ) {
    super(`Ray cluster ${baseUrl}: ${method} ${path} → ${status}${jobId ? ` (job ${jobId})` : ''}: ${rayMessage}`);
  }
}

/** The Ray head's dashboard could not be reached after every retry; while following a job, its record ends failed. */
export class RayUnreachableError extends WorkbenchError {
  override name = 'RayUnreachableError';
  constructor(readonly baseUrl: string, readonly method: string, readonly path: string, readonly attempts: number, readonly causeMessage: string) {
    super(`Ray cluster ${baseUrl} unreachable: ${method} ${path} failed ${attempts} time(s); last: ${causeMessage}`);
  }
}

/** The Ray Jobs API answered with something outside its documented shapes. */
export class RayProtocolError extends WorkbenchError {
  override name = 'RayProtocolError';
  constructor(readonly baseUrl: string, readonly path: string, readonly problem: string) {
    super(`Ray cluster ${baseUrl}: ${path} answered outside the Jobs API: ${problem}`);
  }
}

/** A finished Ray job's results folder (RESULTS/<job id>, on shared storage) is missing or unreadable here. */
export class RayResultsError extends WorkbenchError {
  override name = 'RayResultsError';
  constructor(readonly jobId: string, readonly folder: string, reason: string) {
    super(`Ray job ${jobId}: results folder ${folder}: ${reason}`);
  }
}

/** The Ray job package (awb_trainer + the job) cannot be built. */
export class RayPackageError extends WorkbenchError {
  override name = 'RayPackageError';
  constructor(readonly what: string, reason: string) {
    super(`Ray package ${what}: ${reason}`);
  }
}
