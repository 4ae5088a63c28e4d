import { WorkbenchError } from '../util/errors.js';
import { httpRequest, TransportError } from './http.js';
import { profileKind, type TrainerProfile, type TrainerProfileKind } from './profiles.js';

/**
 * Whether a trainer profile answers, checked in one short request before anything depends on it:
 * a profile is saved, a job is submitted (before its bundle is hashed and uploaded). The awb trainer
 * service answers GET /v1/health (docs/trainer-protocol.md); a Ray head's dashboard answers GET
 * /api/version (what Ray's JobSubmissionClient checks before anything else).
 */

/** Long enough for a busy service across a network, short enough that a dead URL is said at once. */
export const REACH_TIMEOUT_MS = 3_000;

const PROBE: Record<TrainerProfileKind, { path: string; start: string }> = {
  trainer: { path: '/v1/health', start: 'start it (python3 -m awb_trainer serve)' },
  ray: { path: '/api/version', start: 'start the cluster (ray start --head --dashboard-host 0.0.0.0)' },
};

/** The profile did not answer its health check; `tried` is the request, `next` what to do. */
export class TrainerCheckError extends WorkbenchError {
  override name = 'TrainerCheckError';
  constructor(readonly trainer: string, readonly baseUrl: string, readonly tried: string, readonly problem: string, readonly next: string) {
    super(`Trainer "${trainer}" at ${baseUrl} did not answer ${tried}: ${problem}. ${next}`);
  }
}

/** A transport failure in plain words. */
function transportWords(reason: string, timeoutMs: number): string {
  if (/ECONNREFUSED/.test(reason)) return 'connection refused (nothing listens at that port)';
  if (/ENOTFOUND|EAI_AGAIN/.test(reason)) return 'no such host';
  if (/no data for|ETIMEDOUT|TimeoutError|aborted/i.test(reason)) return `no answer within ${timeoutMs / 1000} s`;
  if (/ECONNRESET|EPIPE/.test(reason)) return 'the connection was reset';
  if (/EHOSTUNREACH|ENETUNREACH/.test(reason)) return 'the host cannot be reached from here';
  return reason;
}

/**
 * Throws TrainerCheckError unless the profile's service answers its health request with 2xx within
 * `timeoutMs`. `then` ends the message with what else the caller offers (e.g. "or save anyway").
 */
export async function checkTrainerReachable(profile: TrainerProfile, opts: { timeoutMs?: number; then?: string } = {}): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? REACH_TIMEOUT_MS;
  const kind = profileKind(profile);
  const probe = PROBE[kind];
  const tried = `GET ${probe.path}`;
  const fail = (problem: string, next: string): never => {
    throw new TrainerCheckError(profile.name, profile.baseUrl, tried, problem, `${next}${opts.then ? `; ${opts.then}` : ''}`);
  };
  let status: number;
  try {
    // One try, bounded as a whole (the socket's idle timeout alone would let a slow trickle go on).
    status = (await httpRequest(profile.baseUrl, profile.token ?? '', { method: 'GET', path: probe.path, timeoutMs, signal: AbortSignal.timeout(timeoutMs) })).status;
  } catch (e) {
    const reason = e instanceof TransportError ? e.reason : `${(e as Error).name}: ${(e as Error).message}`;
    return fail(transportWords(reason, timeoutMs), `${probe.start} or correct the URL`);
  }
  if (status >= 200 && status < 300) return;
  if (status === 401 || status === 403) return fail(`it refused the token (HTTP ${status})`, 'give the token the service printed when it started');
  if (status === 404) return fail(`HTTP 404: no ${kind === 'ray' ? 'Ray dashboard' : 'awb trainer service'} there`, `check the URL (${kind === 'ray' ? 'the dashboard, port 8265 by default' : 'the service, port 8470 by default'})`);
  return fail(`HTTP ${status}`, `${probe.start} or correct the URL`);
}
