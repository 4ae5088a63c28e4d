import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { z } from 'zod';
import { formatIssues } from '../util/zod-issues.js';

/**
 * One HTTP exchange with the trainer over node:http (not fetch: an upload must know how far a
 * dropped PUT got — the server tells us — and a stream must notice a cut socket at once). No
 * keep-alive agent: each request gets its own connection, so a dropped one never poisons the next.
 * The bearer token goes in a header only; nothing here logs.
 */

export interface HttpResult {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface HttpSpec {
  method: 'GET' | 'HEAD' | 'PUT' | 'POST';
  /** Path and query, e.g. `/v1/jobs/abc/events?after=3`. */
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Socket idle timeout: no byte in either direction for this long ends the request. */
  timeoutMs: number;
  signal?: AbortSignal;
}

/** A transport failure: no status (refused, reset, timed out, cut mid-body). Always retryable. */
export class TransportError extends Error {
  override name = 'TransportError';
  constructor(readonly path: string, readonly reason: string) {
    super(`${path}: ${reason}`);
  }
}

function requestFn(url: URL): typeof http.request {
  if (url.protocol === 'http:') return http.request;
  if (url.protocol === 'https:') return https.request;
  throw new TransportError(url.pathname, `unsupported protocol ${url.protocol}`);
}

/** Opens a request and resolves with the response head; the body is the caller's to read (streams, downloads). */
export function openRequest(baseUrl: string, token: string, spec: HttpSpec): Promise<IncomingMessage> {
  const url = new URL(spec.path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  // A base URL with a path prefix (a reverse proxy's /trainer/) keeps it: spec.path is absolute, so join by hand.
  const base = new URL(baseUrl);
  if (base.pathname !== '/' && base.pathname !== '') url.pathname = `${base.pathname.replace(/\/$/, '')}${spec.path.split('?')[0]}`;
  return new Promise((resolve, reject) => {
    if (spec.signal?.aborted) {
      reject(spec.signal.reason);
      return;
    }
    // No token, no header: a Ray dashboard without token auth (the trainer service always has one).
    const headers: Record<string, string | number> = { ...spec.headers, ...(token ? { authorization: `Bearer ${token}` } : {}), connection: 'close' };
    if (spec.body) headers['content-length'] = spec.body.length;
    const req = requestFn(url)(url, { method: spec.method, headers, agent: false });
    const onAbort = () => req.destroy(spec.signal!.reason instanceof Error ? spec.signal!.reason : new Error('aborted'));
    spec.signal?.addEventListener('abort', onAbort, { once: true });
    req.setTimeout(spec.timeoutMs, () => req.destroy(new TransportError(spec.path, `no data for ${spec.timeoutMs} ms`)));
    req.on('error', (e) => {
      spec.signal?.removeEventListener('abort', onAbort);
      if (spec.signal?.aborted) reject(spec.signal.reason);
      else reject(e instanceof TransportError ? e : new TransportError(spec.path, (e as NodeJS.ErrnoException).code ?? e.message));
    });
    req.on('response', (res) => {
      // The response keeps the same idle timeout while its body is read.
      res.on('close', () => spec.signal?.removeEventListener('abort', onAbort));
      resolve(res);
    });
    req.end(spec.body);
  });
}

/** Reads a response body to the end; a cut connection is a TransportError. */
export function readBody(res: IncomingMessage, path: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', (e) => reject(e instanceof TransportError ? e : new TransportError(path, e.message)));
    res.on('aborted', () => reject(new TransportError(path, 'connection closed mid-response')));
  });
}

export async function httpRequest(baseUrl: string, token: string, spec: HttpSpec): Promise<HttpResult> {
  const res = await openRequest(baseUrl, token, spec);
  const body = spec.method === 'HEAD' ? Buffer.alloc(0) : await readBody(res, spec.path);
  if (spec.method === 'HEAD') res.resume();
  return { status: res.statusCode ?? 0, headers: res.headers, body };
}

/**
 * The delay after the k-th failure in a row: min(max, base·2^(k−1)) · (½ + ½u), "equal jitter" (half fixed, half random),
 * so retries of parallel requests, or of a client and its own stalled connection, do not stay in step.
 */
export const backoffDelayMs = (failures: number, baseMs: number, maxMs: number, u: number): number =>
  Math.round(Math.min(maxMs, baseMs * 2 ** Math.max(0, failures - 1)) * (0.5 + 0.5 * u));

export interface RetryingRequest {
  baseUrl: string;
  token: string;
  spec: Omit<HttpSpec, 'timeoutMs'>;
  timeoutMs: number;
  /** Retries after the first attempt. */
  retries: number;
  /** Waits before attempt k+1 after k failures (backoffDelayMs, slept). */
  backoff(failures: number, signal?: AbortSignal): Promise<unknown>;
  /** A status to return as it is (2xx always is). */
  accept?: (status: number) => boolean;
  /** The named error of a status not accepted (thrown at once unless retryable). */
  httpError(r: HttpResult): Error;
  /** The named error once every attempt failed. */
  unreachable(attempts: number, lastReason: string): Error;
}

/** Sends with retries of transport failures and retryable statuses (the trainer client's and the Ray client's one loop). */
export async function requestWithRetries(o: RetryingRequest): Promise<HttpResult> {
  let last = '';
  for (let attempt = 1; attempt <= o.retries + 1; attempt++) {
    if (attempt > 1) await o.backoff(attempt - 1, o.spec.signal);
    let r: HttpResult;
    try {
      r = await httpRequest(o.baseUrl, o.token, { ...o.spec, timeoutMs: o.timeoutMs });
    } catch (e) {
      if (!(e instanceof TransportError)) throw e;
      last = e.reason;
      continue;
    }
    if ((r.status >= 200 && r.status < 300) || o.accept?.(r.status)) return r;
    const err = o.httpError(r);
    if (!retryableStatus(r.status)) throw err;
    last = err.message;
  }
  throw o.unreachable(o.retries + 1, last);
}

/** Statuses worth retrying: the service is restarting, overloaded or timed out (as the chat client does). */
export const retryableStatus = (status: number): boolean => status === 408 || status === 429 || status >= 500;

export function header(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * A response body read as JSON and checked against `schema`; what is wrong (not JSON, or the schema's issues) goes to
 * `protocolError`, which names the server (the trainer service's or Ray's protocol error).
 */
export function parseJsonBody<S extends z.ZodType>(r: HttpResult, schema: S, protocolError: (detail: string) => Error): z.infer<S> {
  let v: unknown;
  try {
    v = JSON.parse(r.body.toString('utf8'));
  } catch (e) {
    throw protocolError(`not JSON (${(e as Error).message})`);
  }
  const p = schema.safeParse(v);
  if (!p.success) throw protocolError(formatIssues(p.error.issues));
  return p.data;
}
