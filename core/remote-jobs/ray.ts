import { copyFileSync, existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import { join } from 'node:path';
import { z } from 'zod';
import { abortableSleep } from '../llm/chat-client.js';
import { assertNever } from '../util/errors.js';
import { formatIssues } from '../util/zod-issues.js';
import type { JobBackend } from './backend.js';
import { sha256File, type EventsOptions, type SubmitRequest, type UploadResult } from './client.js';
import { ArtifactChecksumError, RayHttpError, RayPackageError, RayProtocolError, RayResultsError, RayUnreachableError } from './errors.js';
import { backoffDelayMs, parseJsonBody, requestWithRetries, type HttpResult, type HttpSpec } from './http.js';
import { ArtifactSchema, type Artifact, type Job, type JobEvent, type JobStatus } from './protocol.js';
import { buildRayPackage, jobIdOf, rayEntrypoint, submissionId } from './ray-package.js';

/**
 * A Ray cluster as a JobBackend, through the head's Jobs REST API (Ray's dashboard/modules/job/job_head.py):
 *   GET|PUT /api/packages/gcs/<pkg>   the job package (ray-package.ts), uploaded once per content
 *   POST /api/jobs/                   {entrypoint, submission_id, runtime_env, metadata, entrypoint_num_gpus}
 *   GET  /api/jobs/<id>               {status: PENDING|RUNNING|STOPPED|SUCCEEDED|FAILED, message, start_time, end_time, …}
 *   GET  /api/jobs/<id>/logs          {logs}: the entrypoint's stdout+stderr so far
 *   POST /api/jobs/<id>/stop          {stopped}
 * Events are read from the log, polled: the job prints `@awb-event {json}` lines (awb_trainer --events stdout). Their
 * seq is fixed by the log itself, so a replay or a resumed follow numbers them the same: seq 1 is `running`, log line
 * k (from 0) is seq k + 2, and the final status is seq (lines + 2), once Ray says the job ended (its log is complete).
 * Artifacts come from the results folder on shared storage (Ray has no download API): RESULTS/<job id>/.
 */
export interface RayJobsClientOptions {
  baseUrl: string;
  /** Only for a dashboard that asks for one (Ray's token auth, or a proxy). */
  token?: string;
  resultsDir: string;
  /** GPUs each job reserves (entrypoint_num_gpus); > 1 runs torchrun. */
  gpus: number;
  /** The awb_trainer folder to package (default: the one beside the workbench). */
  trainerDir?: string;
  timeoutMs?: number;
  retries?: number;
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How often a followed job's status and log are read (default 1 s). */
  pollMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
  now?: () => number;
}

export const RAY_STATUSES = ['PENDING', 'RUNNING', 'STOPPED', 'SUCCEEDED', 'FAILED'] as const;
export type RayStatus = (typeof RAY_STATUSES)[number];
const terminal = (s: RayStatus) => s === 'STOPPED' || s === 'SUCCEEDED' || s === 'FAILED';

const RayJobSchema = z.object({
  submission_id: z.string().nullable(),
  status: z.enum(RAY_STATUSES),
  message: z.string().nullable().optional(),
  start_time: z.number().nullable().optional(),
  end_time: z.number().nullable().optional(),
  metadata: z.record(z.string(), z.string()).nullable().optional(),
});
type RayJob = z.infer<typeof RayJobSchema>;
const SubmitAnswerSchema = z.object({ submission_id: z.string() });
const StopAnswerSchema = z.object({ stopped: z.boolean() });
const LogsSchema = z.object({ logs: z.string() });
const ResultsRecordSchema = z.object({ status: z.string(), artifacts: z.array(ArtifactSchema) });

/** What the job prints on stdout (awb_trainer/jobs/context.py, --events stdout). */
export const EVENT_PREFIX = '@awb-event ';
const JobError = z.object({ code: z.string(), message: z.string() });
const StdoutEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('log'), level: z.string(), message: z.string() }),
  z.object({ type: z.literal('metric'), step: z.number(), metrics: z.record(z.string(), z.number()) }),
  z.object({ type: z.literal('result'), status: z.enum(['succeeded', 'failed', 'cancelled']), error: JobError.nullable().optional() }),
]);

export interface RayLog {
  /** Log and metric events, numbered by their line. */
  events: JobEvent[];
  /** The job's own result line, if it got that far. */
  result: { status: 'succeeded' | 'failed' | 'cancelled'; error: { code: string; message: string } | null } | null;
  /** Complete lines read (a line still being written is left for the next poll unless the log is complete). */
  lines: number;
  /** The job printed at least one event line: it ran. */
  ran: boolean;
}

export const RUNNING_SEQ = 1;
const lineSeq = (k: number) => k + 2;

/** Ray's log as events (the trainer service's runner reads the job's stdout by the same rules). */
export function parseRayLog(text: string, complete: boolean, time: number): RayLog {
  const parts = text.split('\n');
  if (!complete || parts.at(-1) === '') parts.pop(); // the text after the last newline: unfinished, or nothing
  const out: RayLog = { events: [], result: null, lines: parts.length, ran: false };
  parts.forEach((raw, k) => {
    const line = raw.replace(/\r$/, '');
    if (!line.trim()) return;
    const seq = lineSeq(k);
    if (!line.startsWith(EVENT_PREFIX)) {
      out.events.push({ seq, time, type: 'log', level: 'info', message: line });
      return;
    }
    out.ran = true;
    let parsed: z.infer<typeof StdoutEventSchema> | null = null;
    try {
      const r = StdoutEventSchema.safeParse(JSON.parse(line.slice(EVENT_PREFIX.length)));
      if (r.success) parsed = r.data;
    } catch {
      // not JSON: kept as a warning line below
    }
    if (!parsed) out.events.push({ seq, time, type: 'log', level: 'warning', message: line });
    else if (parsed.type === 'result') out.result = { status: parsed.status, error: parsed.error ?? null };
    else out.events.push({ seq, time, ...parsed });
  });
  return out;
}

/** Ray's status (and the job's own result line) in the trainer protocol's terms. */
export function jobStatusOf(status: RayStatus, log: RayLog | null, rayMessage: string | null): { status: JobStatus; error: Job['error'] } {
  switch (status) {
    case 'PENDING':
      return { status: 'queued', error: null };
    case 'RUNNING':
      return { status: 'running', error: null };
    case 'SUCCEEDED':
      return log?.result?.status === 'cancelled' ? { status: 'cancelled', error: null } : { status: 'succeeded', error: null };
    case 'FAILED':
      // The job's own error when it got to report one; else Ray's (the entrypoint could not start, the runtime env failed).
      return { status: 'failed', error: log?.result?.error ?? { code: 'internal', message: rayMessage ?? 'the Ray job failed' } };
    case 'STOPPED':
      return { status: 'cancelled', error: null };
    default:
      return assertNever(status, 'Ray job status');
  }
}

/** Ray's answer text for an error (a traceback's last lines: the exception is at the end). */
const rayText = (r: HttpResult): string => r.body.toString('utf8').trim().split('\n').slice(-3).join(' | ').slice(0, 500) || `HTTP ${r.status}`;

/** The seq of the last event a follow would yield now (what `awb jobs logs` without --follow prints up to). */
function lastSeqOf(r: RayJob, log: RayLog | null): number {
  if (!log) return 0;
  if (terminal(r.status)) return lineSeq(log.lines);
  return log.events.at(-1)?.seq ?? (r.status === 'RUNNING' || log.ran ? RUNNING_SEQ : 0);
}

export class RayJobsClient implements JobBackend {
  readonly baseUrl: string;
  private readonly token: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly pollMs: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;
  private readonly now: () => number;
  /** Bundles given to upload(), by sha256: the package is built at submit, when the job's id and config are known. */
  private readonly bundles = new Map<string, string>();

  constructor(private readonly o: RayJobsClientOptions) {
    this.baseUrl = o.baseUrl.replace(/\/+$/, '');
    this.token = o.token ?? '';
    this.timeoutMs = o.timeoutMs ?? 30_000;
    this.retries = o.retries ?? 5;
    this.pollMs = o.pollMs ?? 1000;
    this.sleep = o.sleep ?? abortableSleep;
    this.random = o.random ?? (() => randomInt(0, 2 ** 32) / 2 ** 32);
    this.now = o.now ?? Date.now;
  }

  private async call(spec: Omit<HttpSpec, 'timeoutMs'>, opts: { jobId?: string; accept?: (status: number) => boolean } = {}): Promise<HttpResult> {
    return requestWithRetries({
      baseUrl: this.baseUrl, token: this.token, spec, timeoutMs: this.timeoutMs, retries: this.retries,
      backoff: (k, signal) => this.sleep(backoffDelayMs(k, this.o.backoffMs ?? 250, this.o.maxBackoffMs ?? 10_000, this.random()), signal),
      ...(opts.accept ? { accept: opts.accept } : {}),
      httpError: (r) => new RayHttpError(this.baseUrl, spec.method, spec.path, r.status, rayText(r), opts.jobId ?? null),
      unreachable: (attempts, last) => new RayUnreachableError(this.baseUrl, spec.method, spec.path, attempts, last),
    });
  }

  private json<S extends z.ZodType>(r: HttpResult, path: string, schema: S): z.infer<S> {
    return parseJsonBody(r, schema, (detail) => new RayProtocolError(this.baseUrl, path, detail));
  }

  private signal = (signal?: AbortSignal) => (signal ? { signal } : {});

  /** Ray's record of the job, or null when Ray does not know it. */
  private async rayJob(id: string, signal?: AbortSignal): Promise<RayJob | null> {
    const path = `/api/jobs/${encodeURIComponent(id)}`;
    const r = await this.call({ method: 'GET', path, ...this.signal(signal) }, { jobId: id, accept: (s) => s === 404 });
    return r.status === 404 ? null : this.json(r, path, RayJobSchema);
  }

  private async mustRayJob(id: string, signal?: AbortSignal): Promise<RayJob> {
    const j = await this.rayJob(id, signal);
    if (!j) throw new RayHttpError(this.baseUrl, 'GET', `/api/jobs/${encodeURIComponent(id)}`, 404, `Job ${id} does not exist`, id);
    return j;
  }

  private async log(id: string, status: RayStatus, signal?: AbortSignal): Promise<RayLog> {
    if (status === 'PENDING') return parseRayLog('', false, this.now());
    const path = `/api/jobs/${encodeURIComponent(id)}/logs`;
    const { logs } = this.json(await this.call({ method: 'GET', path, ...this.signal(signal) }, { jobId: id }), path, LogsSchema);
    return parseRayLog(logs, terminal(status), this.now());
  }

  private toJob(id: string, r: RayJob, log: RayLog | null): Job {
    const { status, error } = jobStatusOf(r.status, log, r.message ?? null);
    return {
      id, kind: r.metadata?.['awb.kind'] ?? 'ray', name: r.metadata?.['awb.name'] ?? null, status,
      createdAt: r.start_time ?? 0, startedAt: r.status === 'PENDING' ? null : (r.start_time ?? null), finishedAt: terminal(r.status) ? (r.end_time ?? this.now()) : null,
      error, artifacts: status === 'succeeded' ? this.publishedArtifacts(id) ?? [] : [], lastSeq: lastSeqOf(r, log),
    };
  }

  private resultsFolder(id: string): string {
    return join(this.o.resultsDir, jobIdOf(id) ?? id);
  }

  /** The published record's artifacts, or null while the folder is not (or not yet) here. */
  private publishedArtifacts(id: string): Artifact[] | null {
    const file = join(this.resultsFolder(id), 'job.json');
    if (!existsSync(file)) return null;
    let v: unknown;
    try {
      v = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new RayResultsError(id, this.resultsFolder(id), `job.json is not JSON (${(e as Error).message})`);
    }
    const p = ResultsRecordSchema.safeParse(v);
    if (!p.success) throw new RayResultsError(id, this.resultsFolder(id), `job.json: ${formatIssues(p.error.issues)}`);
    return p.data.artifacts;
  }

  /** Nothing goes over the wire yet: the bundle is packed with the job at submit. */
  async upload(file: string, sha256: string): Promise<UploadResult> {
    if (!existsSync(file)) throw new RayPackageError('job/dataset.tar', `the bundle ${file} does not exist`);
    this.bundles.set(sha256, file);
    return { size: 0, resumedFrom: 0, reconnects: 0 };
  }

  /**
   * Packs and uploads the package (unless Ray has it), then posts the job under submission id awb-<idempotency key>.
   * Ray refuses a second job with a known submission id, so a post whose answer was lost (or a --retry after a crash)
   * finds the job Ray already has: created false.
   */
  async submit(req: SubmitRequest, signal?: AbortSignal): Promise<{ job: Job; created: boolean }> {
    const id = submissionId(req.idempotencyKey);
    const known = await this.rayJob(id, signal);
    if (known) return { job: this.toJob(id, known, await this.log(id, known.status, signal)), created: false };
    const bundle = this.bundles.get(req.dataset);
    if (!bundle) {
      throw new RayPackageError('job/dataset.tar', `Ray has no job ${id} and this process no longer has its bundle ${req.dataset.slice(0, 12)}…: submit it again (a new job)`);
    }
    const gpus = this.o.gpus;
    const pkg = buildRayPackage({
      record: { id: req.idempotencyKey, kind: req.kind, name: req.name ?? req.kind, config: req.config, dataset: req.dataset, createdAt: this.now(), gpus },
      datasetFile: bundle, ...(this.o.trainerDir ? { trainerDir: this.o.trainerDir } : {}),
    });
    const pkgPath = `/api/packages/gcs/${pkg.name}`;
    const have = await this.call({ method: 'GET', path: pkgPath, ...this.signal(signal) }, { accept: (s) => s === 404 });
    if (have.status === 404) {
      await this.call({ method: 'PUT', path: pkgPath, body: pkg.bytes, headers: { 'content-type': 'application/octet-stream' }, ...this.signal(signal) });
    }
    const body = {
      entrypoint: rayEntrypoint(gpus, this.o.resultsDir), submission_id: id,
      runtime_env: { working_dir: `gcs://${pkg.name}`, env_vars: { PYTHONUNBUFFERED: '1' } },
      metadata: { 'awb.job': req.idempotencyKey, 'awb.kind': req.kind, 'awb.name': req.name ?? req.kind },
      ...(gpus > 0 ? { entrypoint_num_gpus: gpus } : {}),
    };
    const path = '/api/jobs/';
    // Ray answers a second job under a known submission id with a 500 ("already exists"), like its other failures:
    // so after any refusal, ask whether the job is there (a first attempt that did arrive) before trying again.
    for (let failures = 0; ; failures++) {
      const r = await this.call({ method: 'POST', path, body: Buffer.from(JSON.stringify(body)), headers: { 'content-type': 'application/json' }, ...this.signal(signal) }, { accept: (s) => s >= 500 });
      if (r.status < 300) {
        this.json(r, path, SubmitAnswerSchema);
        break;
      }
      const there = await this.rayJob(id, signal);
      if (there) return { job: this.toJob(id, there, null), created: false };
      if (failures >= this.retries) throw new RayHttpError(this.baseUrl, 'POST', path, r.status, rayText(r), id);
      await this.sleep(backoffDelayMs(failures + 1, this.o.backoffMs ?? 250, this.o.maxBackoffMs ?? 10_000, this.random()), signal);
    }
    this.bundles.delete(req.dataset);
    return { job: this.toJob(id, await this.mustRayJob(id, signal), null), created: true };
  }

  async getJob(id: string, signal?: AbortSignal): Promise<Job> {
    const r = await this.mustRayJob(id, signal);
    // The log gives the last seq, and a finished job's result line says why it failed (or that it honoured a cancel).
    return this.toJob(id, r, await this.log(id, r.status, signal));
  }

  /** Ray stops the entrypoint (SIGTERM to its process group, SIGKILL after a grace): the job ends STOPPED → cancelled. */
  async cancel(id: string, signal?: AbortSignal): Promise<Job> {
    const path = `/api/jobs/${encodeURIComponent(id)}/stop`;
    this.json(await this.call({ method: 'POST', path, body: Buffer.from('{}'), headers: { 'content-type': 'application/json' }, ...this.signal(signal) }, { jobId: id }), path, StopAnswerSchema);
    return this.getJob(id, signal);
  }

  async *events(id: string, opts: EventsOptions = {}): AsyncGenerator<JobEvent> {
    let last = opts.after ?? 0;
    for (;;) {
      // Status first, then the log: a log read after Ray said "ended" is complete.
      const r = await this.mustRayJob(id, opts.signal);
      const log = await this.log(id, r.status, opts.signal);
      const now = this.now();
      const batch: JobEvent[] = [];
      if (r.status === 'RUNNING' || log.ran) batch.push({ seq: RUNNING_SEQ, time: r.start_time ?? now, type: 'status', status: 'running', error: null });
      batch.push(...log.events);
      if (terminal(r.status)) {
        const { status, error } = jobStatusOf(r.status, log, r.message ?? null);
        batch.push({ seq: lineSeq(log.lines), time: r.end_time ?? now, type: 'status', status, error });
      }
      for (const ev of batch) {
        if (ev.seq <= last) continue;
        last = ev.seq;
        yield ev;
      }
      if (terminal(r.status)) return;
      await this.sleep(this.pollMs, opts.signal);
    }
  }

  async artifacts(job: Job): Promise<Artifact[]> {
    const found = this.publishedArtifacts(job.id);
    if (found === null) {
      throw new RayResultsError(job.id, this.resultsFolder(job.id), 'not found here: the job publishes its results there, so this folder must be the cluster\'s shared storage, mounted at the same path on this machine');
    }
    return found;
  }

  /** A copy from the results folder, verified: the file appears at `dest` only when its sha256 is the record's. */
  async download(jobId: string, artifact: Artifact, dest: string): Promise<{ path: string; size: number }> {
    const src = join(this.resultsFolder(jobId), 'artifacts', ...artifact.name.split('/'));
    if (!existsSync(src)) throw new RayResultsError(jobId, this.resultsFolder(jobId), `artifacts/${artifact.name} is missing`);
    const partial = `${dest}.partial`;
    copyFileSync(src, partial);
    const got = await sha256File(partial);
    if (got !== artifact.sha256) {
      rmSync(partial, { force: true });
      throw new ArtifactChecksumError(jobId, artifact.name, artifact.sha256, got);
    }
    renameSync(partial, dest);
    return { path: dest, size: artifact.size };
  }

  jobLost(e: unknown): e is Error {
    return e instanceof RayUnreachableError;
  }
}
