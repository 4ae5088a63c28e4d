import { closeSync, createWriteStream, openSync, readSync, renameSync, rmSync, statSync, createReadStream } from 'node:fs';
import { createHash, randomInt } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { abortableSleep } from '../llm/chat-client.js';
import { ArtifactChecksumError, TrainerHttpError, TrainerProtocolError, TrainerUnreachableError, UploadStalledError } from './errors.js';
import {
  backoffDelayMs, header, httpRequest, openRequest, parseJsonBody, readBody, requestWithRetries, retryableStatus, TransportError, type HttpResult, type HttpSpec,
} from './http.js';
import {
  ErrorBodySchema, HealthSchema, isFinalStatus, JobEventSchema, JobListSchema, JobSchema,
  type Artifact, type Health, type Job, type JobEvent,
} from './protocol.js';
import type { JobBackend } from './backend.js';

/**
 * The client side of docs/trainer-protocol.md. Every call has an idle timeout and retries transport
 * failures and 408/429/5xx with exponential backoff (backoffMs · 2^k, capped); other statuses are
 * TrainerHttpError at once. Retrying is safe everywhere: reads are reads, uploads continue from the
 * server's offset, submissions carry the caller's idempotency key, cancel is idempotent. Backoff has
 * "equal jitter" (half the delay fixed, half random): retries of parallel uploads, or of a client and
 * its own stalled connection, do not stay in step.
 */

export const DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024;

export interface TrainerClientOptions {
  baseUrl: string;
  token: string;
  /** Idle timeout of one request (default 30 s). */
  timeoutMs?: number;
  /** Consecutive failed attempts tolerated without progress (default 5). */
  retries?: number;
  backoffMs?: number;
  maxBackoffMs?: number;
  chunkBytes?: number;
  /** Idle timeout of an event stream: a quiet job is reconnected after this (default 120 s). */
  streamIdleMs?: number;
  /**
   * An upload gives up after this much backoff without the server's offset moving (default 180 s): longer than the
   * trainer takes to release a chunk whose client vanished (its --upload-read-timeout, 30 s), bounded all the same.
   */
  uploadStallMs?: number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Uniform in [0, 1) for the backoff's jitter (default: node:crypto). */
  random?: () => number;
}

export interface SubmitRequest {
  idempotencyKey: string;
  kind: string;
  dataset: string;
  config: Record<string, unknown>;
  name?: string;
}

export interface UploadResult {
  size: number;
  /** Bytes the server already had when this upload began (a resumed upload). */
  resumedFrom: number;
  /** Transport failures recovered from. */
  reconnects: number;
}

export interface EventsOptions {
  /** Replay events after this seq (0 = from the start). */
  after?: number;
  signal?: AbortSignal;
  /** Called before each reconnect with the last seq seen (for logs and tests). */
  onReconnect?: (lastSeq: number, reason: string) => void;
}

export class TrainerClient implements JobBackend {
  readonly baseUrl: string;
  private readonly token: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;
  readonly chunkBytes: number;
  private readonly streamIdleMs: number;
  private readonly uploadStallMs: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly random: () => number;

  constructor(o: TrainerClientOptions) {
    this.baseUrl = o.baseUrl.replace(/\/+$/, '');
    this.token = o.token;
    this.timeoutMs = o.timeoutMs ?? 30_000;
    this.retries = o.retries ?? 5;
    this.backoffMs = o.backoffMs ?? 250;
    this.maxBackoffMs = o.maxBackoffMs ?? 10_000;
    this.chunkBytes = o.chunkBytes ?? DEFAULT_CHUNK_BYTES;
    this.streamIdleMs = o.streamIdleMs ?? 120_000;
    this.uploadStallMs = o.uploadStallMs ?? 180_000;
    this.sleep = o.sleep ?? abortableSleep;
    this.random = o.random ?? (() => randomInt(0, 2 ** 32) / 2 ** 32);
  }

  /** Sleeps backoffDelayMs after the k-th failure in a row; returns the milliseconds slept. */
  private async backoff(failures: number, signal?: AbortSignal): Promise<number> {
    const ms = backoffDelayMs(failures, this.backoffMs, this.maxBackoffMs, this.random());
    await this.sleep(ms, signal);
    return ms;
  }

  private httpError(spec: Pick<HttpSpec, 'method' | 'path'>, r: HttpResult, jobId: string | null): TrainerHttpError {
    let code = 'http_error';
    let message = r.body.toString('utf8').slice(0, 300) || `HTTP ${r.status}`;
    try {
      const parsed = ErrorBodySchema.safeParse(JSON.parse(r.body.toString('utf8')));
      if (parsed.success) ({ code, message } = parsed.data.error);
    } catch {
      // not JSON (a proxy's HTML page): the raw text is the message
    }
    return new TrainerHttpError(this.baseUrl, spec.method, spec.path, r.status, code, message, jobId);
  }

  /**
   * Sends with retries. `accept` lists non-2xx statuses the caller handles itself (an upload's 409);
   * anything else non-2xx is thrown as TrainerHttpError, after retries when retryable.
   */
  private async call(spec: Omit<HttpSpec, 'timeoutMs'>, opts: { jobId?: string; accept?: readonly number[] } = {}): Promise<HttpResult> {
    return requestWithRetries({
      baseUrl: this.baseUrl, token: this.token, spec, timeoutMs: this.timeoutMs, retries: this.retries,
      backoff: (k, signal) => this.backoff(k, signal),
      accept: (status) => opts.accept?.includes(status) ?? false,
      httpError: (r) => this.httpError(spec, r, opts.jobId ?? null),
      unreachable: (attempts, last) => new TrainerUnreachableError(this.baseUrl, spec.method, spec.path, attempts, last),
    });
  }

  private json<S extends z.ZodType>(r: HttpResult, path: string, schema: S): z.infer<S> {
    return parseJsonBody(r, schema, (detail) => new TrainerProtocolError(this.baseUrl, path, detail));
  }

  async health(signal?: AbortSignal): Promise<Health> {
    const path = '/v1/health';
    return this.json(await this.call({ method: 'GET', path, ...(signal ? { signal } : {}) }), path, HealthSchema);
  }

  /** How much of the bundle `sha256` the server holds. */
  async uploadStatus(sha256: string, signal?: AbortSignal): Promise<{ offset: number; complete: boolean }> {
    const path = `/v1/uploads/${sha256}`;
    const r = await this.call({ method: 'HEAD', path, ...(signal ? { signal } : {}) });
    const offset = Number(header(r.headers, 'upload-offset') ?? 'NaN');
    if (!Number.isInteger(offset) || offset < 0) throw new TrainerProtocolError(this.baseUrl, path, `Upload-Offset ${header(r.headers, 'upload-offset')}`);
    return { offset, complete: header(r.headers, 'upload-complete') === '?1' };
  }

  /**
   * Uploads `file` (whose sha256 is `sha256`) in chunks, asking the server where to continue before
   * each one: an upload cut at any byte resumes from what arrived, and a bundle already there is not
   * sent again. A checksum mismatch (422) is thrown: the server deleted the partial file.
   */
  async upload(file: string, sha256: string, opts: { signal?: AbortSignal; onProgress?: (sent: number, total: number) => void } = {}): Promise<UploadResult> {
    const size = statSync(file).size;
    const path = `/v1/uploads/${sha256}`;
    const signal = opts.signal ? { signal: opts.signal } : {};
    let failures = 0;
    let reconnects = 0;
    let resumedFrom: number | null = null;
    // Bounded by backoff slept without progress, not by attempts: a trainer still holding a vanished connection's
    // chunk answers 409 until it releases it, and a flaky link may fail many times while the upload still advances.
    let stalledMs = 0;
    let lastOffset = -1;
    const fd = openSync(file, 'r');
    const wait = async (reason: string, unreachable: boolean) => {
      stalledMs += await this.backoff(++failures, opts.signal);
      if (stalledMs <= this.uploadStallMs) return;
      if (unreachable) throw new TrainerUnreachableError(this.baseUrl, 'PUT', path, failures, reason);
      throw new UploadStalledError(this.baseUrl, sha256, Math.max(0, lastOffset), size, stalledMs, reason);
    };
    try {
      for (;;) {
        const st = await this.uploadStatus(sha256, opts.signal);
        resumedFrom ??= st.offset;
        opts.onProgress?.(st.offset, size);
        if (st.complete) return { size, resumedFrom, reconnects };
        if (st.offset !== lastOffset) {
          lastOffset = st.offset;
          stalledMs = 0;
          failures = 0;
        }
        if (st.offset > size) throw new TrainerProtocolError(this.baseUrl, path, `server holds ${st.offset} bytes of a ${size}-byte file`);
        const end = Math.min(size, st.offset + this.chunkBytes);
        const chunk = Buffer.alloc(end - st.offset);
        readSync(fd, chunk, 0, chunk.length, st.offset);
        let r: HttpResult;
        try {
          r = await httpRequest(this.baseUrl, this.token, {
            method: 'PUT', path, body: chunk, timeoutMs: this.timeoutMs, ...signal,
            headers: { 'content-type': 'application/octet-stream', 'content-range': `bytes ${st.offset}-${end - 1}/${size}` },
          });
        } catch (e) {
          if (!(e instanceof TransportError)) throw e;
          reconnects++;
          await wait(e.reason, true);
          continue;
        }
        if (r.status === 201) {
          opts.onProgress?.(size, size);
          return { size, resumedFrom, reconnects };
        }
        if (r.status >= 200 && r.status < 300) continue;
        const err = this.httpError({ method: 'PUT', path }, r, null);
        // 409: the trainer is still receiving this upload on another connection (wait, with jitter, for its release),
        // or our offset was stale (a retried chunk that did arrive): HEAD tells the truth next round.
        if (r.status === 409) {
          await wait(`${r.status} ${err.code}: ${err.serverMessage}`, false);
          continue;
        }
        if (!retryableStatus(r.status)) throw err;
        await wait(err.message, true);
      }
    } finally {
      closeSync(fd);
    }
  }

  /** Submits (or finds, by idempotency key) a job: `created` false means the key was already known. */
  async submit(req: SubmitRequest, signal?: AbortSignal): Promise<{ job: Job; created: boolean }> {
    const path = '/v1/jobs';
    const r = await this.call({
      method: 'POST', path, body: Buffer.from(JSON.stringify(req)), headers: { 'content-type': 'application/json' }, ...(signal ? { signal } : {}),
    });
    return { job: this.json(r, path, JobSchema), created: r.status === 201 };
  }

  async getJob(id: string, signal?: AbortSignal): Promise<Job> {
    const path = `/v1/jobs/${encodeURIComponent(id)}`;
    return this.json(await this.call({ method: 'GET', path, ...(signal ? { signal } : {}) }, { jobId: id }), path, JobSchema);
  }

  async listJobs(signal?: AbortSignal): Promise<Job[]> {
    const path = '/v1/jobs';
    return this.json(await this.call({ method: 'GET', path, ...(signal ? { signal } : {}) }), path, JobListSchema).jobs;
  }

  async cancel(id: string, signal?: AbortSignal): Promise<Job> {
    const path = `/v1/jobs/${encodeURIComponent(id)}/cancel`;
    return this.json(await this.call({ method: 'POST', path, body: Buffer.from('{}'), headers: { 'content-type': 'application/json' }, ...(signal ? { signal } : {}) }, { jobId: id }), path, JobSchema);
  }

  /**
   * The job's events from `after` on, live, ending after the final status event. A dropped stream
   * (cut socket, idle timeout, a server restart) is reopened with `after` = the last seq yielded; a
   * half-received line is dropped and comes again, and a seq already yielded is skipped, so the
   * consumer sees each event exactly once, in order.
   */
  async *events(id: string, opts: EventsOptions = {}): AsyncGenerator<JobEvent> {
    let last = opts.after ?? 0;
    let failures = 0;
    const base = `/v1/jobs/${encodeURIComponent(id)}/events`;
    for (;;) {
      const path = `${base}?after=${last}`;
      let reason: string;
      let res: IncomingMessage | null = null;
      try {
        res = await openRequest(this.baseUrl, this.token, { method: 'GET', path, timeoutMs: this.streamIdleMs, ...(opts.signal ? { signal: opts.signal } : {}) });
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          const r: HttpResult = { status, headers: res.headers, body: await readBody(res, path) };
          const err = this.httpError({ method: 'GET', path }, r, id);
          if (!retryableStatus(status)) throw err;
          reason = err.message;
        } else {
          let pending = '';
          reason = 'stream ended before the final status';
          try {
            for await (const chunk of res as AsyncIterable<Buffer>) {
              pending += chunk.toString('utf8');
              let nl: number;
              while ((nl = pending.indexOf('\n')) >= 0) {
                const line = pending.slice(0, nl).trim();
                pending = pending.slice(nl + 1);
                if (!line) continue;
                const ev = this.parseEvent(line, path);
                if (ev.seq <= last) continue;
                last = ev.seq;
                failures = 0;
                yield ev;
                if (ev.type === 'status' && isFinalStatus(ev.status)) return;
              }
            }
          } catch (e) {
            if (opts.signal?.aborted) throw e;
            reason = e instanceof TransportError ? e.reason : (e as Error).message;
          }
        }
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
        reason = e.reason;
      } finally {
        res?.destroy();
      }
      if (++failures > this.retries) throw new TrainerUnreachableError(this.baseUrl, 'GET', path, failures, reason);
      opts.onReconnect?.(last, reason);
      await this.backoff(failures, opts.signal);
    }
  }

  private parseEvent(line: string, path: string): JobEvent {
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      throw new TrainerProtocolError(this.baseUrl, path, `event line is not JSON (${(e as Error).message}): ${line.slice(0, 200)}`);
    }
    const p = JobEventSchema.safeParse(v);
    if (!p.success) throw new TrainerProtocolError(this.baseUrl, path, `bad event ${line.slice(0, 200)}: ${p.error.issues.map((i) => i.message).join('; ')}`);
    return p.data;
  }

  /** The service lists a finished job's artifacts in the job itself. */
  async artifacts(job: Job): Promise<Artifact[]> {
    return job.artifacts;
  }

  /** The service keeps its jobs (a restart marks a running one failed/interrupted): following never gives a job up. */
  jobLost(_e: unknown): _e is Error {
    return false;
  }

  /**
   * Downloads an artifact to `dest`, continuing a `dest.partial` left by a cut download with a Range
   * request; the whole file's sha256 must match the job's record, else the partial file is deleted
   * and ArtifactChecksumError thrown. The file appears at `dest` only once verified.
   */
  async download(jobId: string, artifact: Artifact, dest: string, signal?: AbortSignal): Promise<{ path: string; size: number; resumedFrom: number }> {
    const partial = `${dest}.partial`;
    const path = `/v1/jobs/${encodeURIComponent(jobId)}/artifacts/${artifact.name.split('/').map(encodeURIComponent).join('/')}`;
    const sizeOf = () => { try { return statSync(partial).size; } catch { return 0; } }; // absent: start from 0
    if (sizeOf() > artifact.size) rmSync(partial, { force: true });
    const resumedFrom = sizeOf();
    let failures = 0;
    while (sizeOf() < artifact.size) {
      const have = sizeOf();
      try {
        const res = await openRequest(this.baseUrl, this.token, {
          method: 'GET', path, timeoutMs: this.timeoutMs, headers: have > 0 ? { range: `bytes=${have}-` } : {}, ...(signal ? { signal } : {}),
        });
        const status = res.statusCode ?? 0;
        if (status === 200 || status === 206) {
          // 200 to a Range request: the server sent the whole file, so start over.
          await pipeTo(res, partial, status === 206 && have > 0, path);
          failures = 0;
          continue;
        }
        const r: HttpResult = { status, headers: res.headers, body: await readBody(res, path) };
        const err = this.httpError({ method: 'GET', path }, r, jobId);
        if (!retryableStatus(status)) throw err;
        if (++failures > this.retries) throw new TrainerUnreachableError(this.baseUrl, 'GET', path, failures, err.message);
      } catch (e) {
        if (!(e instanceof TransportError)) throw e;
        if (++failures > this.retries) throw new TrainerUnreachableError(this.baseUrl, 'GET', path, failures, e.reason);
      }
      await this.backoff(failures, signal);
    }
    const got = await sha256File(partial);
    if (got !== artifact.sha256) {
      rmSync(partial, { force: true });
      throw new ArtifactChecksumError(jobId, artifact.name, artifact.sha256, got);
    }
    renameSync(partial, dest);
    return { path: dest, size: artifact.size, resumedFrom };
  }
}

/** Writes a response body to `file` (appending or from scratch); bytes received before a cut stay written. */
function pipeTo(res: IncomingMessage, file: string, append: boolean, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(file, { flags: append ? 'a' : 'w' });
    let failed: Error | null = null;
    res.on('data', (c: Buffer) => out.write(c));
    res.on('aborted', () => { failed = new TransportError(path, 'connection closed mid-download'); });
    res.on('error', (e) => { failed ??= e instanceof TransportError ? e : new TransportError(path, e.message); });
    res.on('close', () => out.end());
    out.on('finish', () => (failed || !res.complete ? reject(failed ?? new TransportError(path, 'connection closed mid-download')) : resolve()));
    out.on('error', reject);
  });
}

export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(file).on('data', (c) => h.update(c)).on('end', () => resolve(h.digest('hex'))).on('error', reject);
  });
}
