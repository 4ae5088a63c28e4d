import type { EventsOptions, SubmitRequest, UploadResult } from './client.js';
import type { Artifact, Job, JobEvent } from './protocol.js';

/**
 * What RemoteJobs asks of the place a job runs, in the trainer protocol's terms (Job, JobEvent, Artifact): the awb
 * trainer service (TrainerClient, client.ts) or a Ray cluster's Jobs API (RayJobsClient, ray.ts), chosen by the
 * trainer profile's kind. The store, the CLI, the workbench API and the Jobs view see only these shapes.
 */
export interface JobBackend {
  readonly baseUrl: string;
  /** Makes the bundle available to the next submit of it (the service: a resumable upload). */
  upload(file: string, sha256: string, opts?: { signal?: AbortSignal; onProgress?: (sent: number, total: number) => void }): Promise<UploadResult>;
  /** Submits under the request's idempotency key; `created` false: the key was known and its job is returned. */
  submit(req: SubmitRequest, signal?: AbortSignal): Promise<{ job: Job; created: boolean }>;
  getJob(id: string, signal?: AbortSignal): Promise<Job>;
  cancel(id: string, signal?: AbortSignal): Promise<Job>;
  /** The job's events after `opts.after`, live, ending after the final status event; each seq once, in order. */
  events(id: string, opts?: EventsOptions): AsyncGenerator<JobEvent>;
  /** The artifacts of a finished job (a named error where they cannot be reached). */
  artifacts(job: Job, signal?: AbortSignal): Promise<Artifact[]>;
  /** Fetches one artifact to `dest`, verified against its sha256 (ArtifactChecksumError), appearing only when whole. */
  download(jobId: string, artifact: Artifact, dest: string, signal?: AbortSignal): Promise<unknown>;
  /**
   * Whether `e`, thrown while following, means the job is gone for good and its record should end failed (a Ray job
   * dies with its cluster's head; the trainer service keeps its jobs across restarts, so never for it).
   */
  jobLost(e: unknown): e is Error;
}
