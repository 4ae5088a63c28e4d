import { WorkbenchError } from '../util/errors.js';

/**
 * Named errors of the online GRPO loop (online.ts). Each names the iteration and, where there is
 * one, the job; none carries the endpoint's API key or the trainer's token.
 */

/** The loop's options refused before any rollout (the field and the bad value). */
export class OnlineGrpoConfigError extends WorkbenchError {
  override name = 'OnlineGrpoConfigError';
  constructor(readonly field: string, readonly value: unknown, reason: string) {
    super(`Online GRPO ${field} ${JSON.stringify(value)}: ${reason}`);
  }
}

/** An iteration's job ended failed or cancelled: the loop stops there. */
export class OnlineGrpoJobError extends WorkbenchError {
  override name = 'OnlineGrpoJobError';
  constructor(
    readonly iteration: number, readonly localId: number, readonly jobId: string, readonly status: string,
    readonly jobError: { code: string; message: string } | null,
  ) {
    super(`Online GRPO iteration ${iteration}: job ${jobId} (local ${localId}) ${status}${jobError ? ` — ${jobError.code}: ${jobError.message}` : ''}; the loop stopped`);
  }
}

/** The loop was stopped (its AbortSignal) during an iteration; a job in flight was cancelled. */
export class OnlineGrpoStoppedError extends WorkbenchError {
  override name = 'OnlineGrpoStoppedError';
  constructor(readonly iteration: number, readonly jobId: string | null, readonly reason: string) {
    super(`Online GRPO stopped in iteration ${iteration}${jobId ? ` (job ${jobId} cancelled)` : ''}: ${reason}`);
  }
}

/** The job's published.json is missing a field or names another adapter than the one asked for. */
export class PublishedAdapterError extends WorkbenchError {
  override name = 'PublishedAdapterError';
  constructor(readonly iteration: number, readonly jobId: string, reason: string) {
    super(`Online GRPO iteration ${iteration}: job ${jobId}'s published.json ${reason}`);
  }
}

/** The serving endpoint does not list the adapter the trainer says it loaded. */
export class AdapterNotServedError extends WorkbenchError {
  override name = 'AdapterNotServedError';
  constructor(readonly iteration: number, readonly adapter: string, readonly serverUrl: string, readonly tries: number, readonly models: readonly string[] | null, lastProblem: string | null) {
    super(`Online GRPO iteration ${iteration}: ${serverUrl}/v1/models did not list adapter ${JSON.stringify(adapter)} after ${tries} tries`
      + `${models ? ` (it lists ${models.length ? models.map((m) => JSON.stringify(m)).join(', ') : 'nothing'})` : ''}${lastProblem ? `; last: ${lastProblem}` : ''}`);
  }
}

/** transformers serve did not load the merged model folder the trainer published (POST /load_model said error, or no answer). */
export class ServedModelLoadError extends WorkbenchError {
  override name = 'ServedModelLoadError';
  constructor(readonly iteration: number, readonly model: string, readonly serverUrl: string, readonly problem: string) {
    super(`Online GRPO iteration ${iteration}: ${serverUrl}/load_model did not load ${JSON.stringify(model)}: ${problem}`);
  }
}
