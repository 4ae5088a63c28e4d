import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadCheckpoint } from '../policy/checkpoint.js';
import type { WritableDB } from '../store/db.js';
import {
  asRemoteJobLocalId, getRemoteJob, getRemoteJobByRemoteId, insertRemoteJob, listRemoteJobs, updateRemoteJob,
  type DownloadedArtifact, type RemoteJob,
} from '../store/remote-jobs.js';
import type { Bundle } from './bundle.js';
import type { JobBackend } from './backend.js';
import { TrainerClient, type UploadResult } from './client.js';
import { ArtifactNotFoundError, RemoteJobNotFoundError, RemoteJobStateError, TrainerProfileError } from './errors.js';
import type { Job, JobEvent } from './protocol.js';
import { DEFAULT_RAY_GPUS, profileKind, TrainerProfiles, type TrainerProfile } from './profiles.js';
import { RayJobsClient } from './ray.js';
import { assertNever } from '../util/errors.js';
import { copyFileAtomic } from '../util/atomic-write.js';
import type { SecretStore } from '../util/secret-store.js';

/**
 * The workbench's side of remote jobs, shared by `awb jobs` and the workbench API: submit a bundle
 * to a trainer profile (upload → record the idempotency key → post), follow events into the store,
 * on the awb trainer service or a Ray cluster (the profile's kind picks the JobBackend),
 * cancel, download artifacts under <dataDir>/jobs/, register a builtin policy under
 * <dataDir>/policies/ where `awb eval --policy` and the Agent view load it.
 */
export interface RemoteJobsDeps {
  db: WritableDB;
  dataDir: string;
  profiles?: TrainerProfiles;
  /** Where the trainers' tokens are kept (the app's keychain); default <dataDir>/secrets.json. Unused with `profiles`. */
  secrets?: SecretStore;
  /** Builds the client of a trainer service profile (tests pass short timeouts). */
  clientFor?: (p: TrainerProfile) => TrainerClient;
  /** Builds the client of a ray profile (tests pass a short poll). */
  rayClientFor?: (p: TrainerProfile) => RayJobsClient;
  now?: () => number;
  newKey?: () => string;
}

export interface SubmitOptions {
  trainer: string;
  kind: string;
  bundle: Pick<Bundle, 'file' | 'sha256' | 'size'>;
  config: Record<string, unknown>;
  name?: string;
  signal?: AbortSignal;
  onUpload?: (sent: number, total: number) => void;
}

const toLocalStatus = (j: Job) => j.status;

/** The directory a job's artifacts are downloaded to. */
export const jobDir = (dataDir: string, j: Pick<RemoteJob, 'trainer' | 'remoteId' | 'id'>) => join(dataDir, 'jobs', j.trainer, j.remoteId ?? `local-${j.id}`);
/** Where a registered builtin policy goes. */
export const policyFile = (dataDir: string, j: Pick<RemoteJob, 'trainer' | 'remoteId'>) => join(dataDir, 'policies', `${j.trainer}-${j.remoteId}.json`);

export class RemoteJobs {
  readonly profiles: TrainerProfiles;
  private readonly clients = new Map<string, JobBackend>();

  constructor(private readonly deps: RemoteJobsDeps) {
    this.profiles = deps.profiles ?? new TrainerProfiles(deps.dataDir, deps.secrets);
  }

  /** The store the records live in (a submit from stored episodes reads them here). */
  get db(): WritableDB {
    return this.deps.db;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  client(trainer: string): JobBackend {
    let c = this.clients.get(trainer);
    if (!c) {
      const p = this.profiles.get(trainer);
      c = this.backendFor(p);
      this.clients.set(trainer, c);
    }
    return c;
  }

  private backendFor(p: TrainerProfile): JobBackend {
    const kind = profileKind(p);
    switch (kind) {
      case 'trainer':
        return this.deps.clientFor?.(p) ?? new TrainerClient({ baseUrl: p.baseUrl, token: p.token! });
      case 'ray':
        return this.deps.rayClientFor?.(p) ?? new RayJobsClient({ baseUrl: p.baseUrl, ...(p.token ? { token: p.token } : {}), resultsDir: p.resultsDir!, gpus: p.gpus ?? DEFAULT_RAY_GPUS });
      default:
        return assertNever(kind, 'trainer profile kind');
    }
  }

  /** The awb trainer service of a profile (what only it offers: health, online GRPO); a ray profile is refused. */
  trainerService(trainer: string): TrainerClient {
    const c = this.client(trainer);
    if (!(c instanceof TrainerClient)) throw new TrainerProfileError(trainer, 'is a Ray cluster: this needs the awb trainer service (python3 -m awb_trainer serve)');
    return c;
  }

  /** A job by local id ("12") or by the service's id. */
  resolve(ref: string): RemoteJob {
    if (/^\d+$/.test(ref)) {
      const j = getRemoteJob(this.db, asRemoteJobLocalId(Number(ref)));
      if (j) return j;
    }
    const hit = listRemoteJobs(this.db).find((j) => j.remoteId === ref);
    if (!hit) throw new RemoteJobNotFoundError(ref);
    return hit;
  }

  list(trainer?: string): RemoteJob[] {
    return listRemoteJobs(this.db, trainer === undefined ? {} : { trainer });
  }

  /**
   * Uploads the bundle (resumable), records the submission with a fresh idempotency key, then posts
   * it. A failure after the record was written leaves it 'submitting'; `resubmit` posts the same key
   * again and gets the same job back, never a second one.
   */
  async submit(o: SubmitOptions): Promise<{ job: RemoteJob; upload: UploadResult }> {
    const client = this.client(o.trainer);
    const upload = await client.upload(o.bundle.file, o.bundle.sha256, { ...(o.signal ? { signal: o.signal } : {}), ...(o.onUpload ? { onProgress: o.onUpload } : {}) });
    const row = insertRemoteJob(this.db, {
      trainer: o.trainer, idempotencyKey: (this.deps.newKey ?? randomUUID)(), kind: o.kind, name: o.name ?? null,
      datasetSha256: o.bundle.sha256, datasetSize: o.bundle.size, config: o.config, createdAt: this.now(),
    });
    return { job: await this.post(row, o.signal), upload };
  }

  /**
   * Posts a 'submitting' record again under its own key (after a crash or a failed post): the service answers with the
   * job it has for that key, never a second one. A job its trainer lost while it ran (the service stopped:
   * `interrupted`; its Ray cluster went away: `unreachable`) is submitted again as a new job, under a new key, with the
   * same dataset (still uploaded on the service) and config; the lost one stays recorded as it ended.
   */
  async resubmit(ref: string, signal?: AbortSignal): Promise<RemoteJob> {
    const row = this.resolve(ref);
    if (row.status === 'submitting') return this.post(row, signal);
    if (row.status === 'failed' && (row.error?.code === 'interrupted' || row.error?.code === 'unreachable')) {
      const again = insertRemoteJob(this.db, {
        trainer: row.trainer, idempotencyKey: (this.deps.newKey ?? randomUUID)(), kind: row.kind, name: row.name,
        datasetSha256: row.datasetSha256, datasetSize: row.datasetSize, config: row.config, createdAt: this.now(),
      });
      return this.post(again, signal);
    }
    throw new RemoteJobStateError(ref, `is ${row.status}${row.error ? ` (${row.error.code})` : ''}: only a submission that got no answer, or a job its trainer lost while it ran (interrupted), is submitted again`);
  }

  private async post(row: RemoteJob, signal?: AbortSignal): Promise<RemoteJob> {
    const { job } = await this.client(row.trainer).submit({
      idempotencyKey: row.idempotencyKey, kind: row.kind, dataset: row.datasetSha256, config: row.config, ...(row.name ? { name: row.name } : {}),
    }, signal);
    return this.apply(row, job);
  }

  private apply(row: RemoteJob, job: Job): RemoteJob {
    return updateRemoteJob(this.db, row.id, {
      remoteId: job.id, status: toLocalStatus(job), error: job.error, finishedAt: job.finishedAt,
    });
  }

  private remote(ref: string): { row: RemoteJob; id: string } {
    const row = this.resolve(ref);
    if (!row.remoteId) throw new RemoteJobStateError(ref, 'was never accepted by the trainer (awb jobs submit --retry it)');
    return { row, id: row.remoteId };
  }

  /** Asks the service for the job and stores its status. */
  async refresh(ref: string, signal?: AbortSignal): Promise<{ row: RemoteJob; job: Job }> {
    const { row, id } = this.remote(ref);
    const job = await this.client(row.trainer).getJob(id, signal);
    return { row: this.apply(row, job), job };
  }

  async cancel(ref: string, signal?: AbortSignal): Promise<RemoteJob> {
    const { row, id } = this.remote(ref);
    return this.apply(row, await this.client(row.trainer).cancel(id, signal));
  }

  /**
   * The job's events (from the start, or after the last one seen with `resume`), live until it
   * finishes; status events and the last seq are written to the store as they come.
   */
  async *follow(ref: string, opts: { resume?: boolean; signal?: AbortSignal; onReconnect?: (seq: number, reason: string) => void } = {}): AsyncGenerator<JobEvent> {
    const start = this.remote(ref);
    let row = start.row;
    const id = start.id;
    const client = this.client(row.trainer);
    try {
      for await (const ev of client.events(id, {
        after: opts.resume ? row.lastSeq : 0, ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.onReconnect ? { onReconnect: opts.onReconnect } : {}),
      })) {
        row = updateRemoteJob(this.db, row.id, {
          lastSeq: ev.seq,
          ...(ev.type === 'status' ? { status: ev.status, error: ev.error ?? null, ...(ev.status === 'queued' || ev.status === 'running' ? {} : { finishedAt: ev.time }) } : {}),
        });
        yield ev;
      }
    } catch (e) {
      // The job died with its cluster: the record ends failed, saying why (a later `awb jobs status` that reaches
      // the cluster again writes whatever it reports: a finished status may replace another).
      if (client.jobLost(e)) updateRemoteJob(this.db, row.id, { status: 'failed', error: { code: 'unreachable', message: e.message }, finishedAt: this.now() });
      throw e;
    }
  }

  /** Downloads the finished job's artifacts (all, or `names`), verified, under jobDir; recorded in the store. */
  async download(ref: string, opts: { names?: readonly string[]; signal?: AbortSignal } = {}): Promise<RemoteJob> {
    const { row, job } = await this.refresh(ref, opts.signal);
    if (job.status !== 'succeeded') throw new RemoteJobStateError(ref, `is ${job.status}; artifacts come with a succeeded job`);
    const client = this.client(row.trainer);
    const artifacts = await client.artifacts(job, opts.signal);
    const wanted = opts.names ?? artifacts.map((a) => a.name);
    const dir = jobDir(this.deps.dataDir, row);
    const got: DownloadedArtifact[] = [...row.artifacts];
    for (const name of wanted) {
      const a = artifacts.find((x) => x.name === name);
      if (!a) throw new ArtifactNotFoundError(job.id, name, artifacts.map((x) => x.name));
      // An artifact name comes from the service: it must stay inside the job's folder.
      if (name.split('/').some((seg) => seg === '' || seg === '.' || seg === '..')) throw new RemoteJobStateError(ref, `artifact name ${JSON.stringify(name)} leaves the job folder`);
      const dest = join(dir, ...name.split('/'));
      mkdirSync(dirname(dest), { recursive: true });
      await client.download(job.id, a, dest, opts.signal);
      const entry = { name, path: dest, sha256: a.sha256, size: a.size };
      const i = got.findIndex((x) => x.name === name);
      if (i >= 0) got[i] = entry;
      else got.push(entry);
    }
    return updateRemoteJob(this.db, row.id, { artifacts: got });
  }

  /**
   * Registers a downloaded builtin policy.json: checked with the checkpoint loader, then copied to
   * <dataDir>/policies/<trainer>-<remote id>.json (atomically), where eval and the Agent view load it.
   */
  registerPolicy(ref: string): RemoteJob {
    const row = this.resolve(ref);
    const art = row.artifacts.find((a) => a.name === 'policy.json');
    if (!art) throw new RemoteJobStateError(ref, 'has no downloaded policy.json (awb jobs download first)');
    loadCheckpoint(art.path);
    const dest = policyFile(this.deps.dataDir, row);
    mkdirSync(dirname(dest), { recursive: true });
    copyFileAtomic(art.path, dest);
    return updateRemoteJob(this.db, row.id, { policyPath: dest });
  }

  /** The local record of a remote id on a trainer, if any. */
  byRemoteId(trainer: string, remoteId: string): RemoteJob | null {
    return getRemoteJobByRemoteId(this.db, trainer, remoteId);
  }
}
