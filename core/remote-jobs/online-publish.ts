import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { abortableSleep } from '../llm/chat-client.js';
import { redact } from '../llm/redact.js';
import { AdapterNotServedError, PublishedAdapterError } from './online-errors.js';
import { formatIssues } from '../util/zod-issues.js';

/**
 * The serving side of an online VLM iteration: what the trainer reports it published
 * (published.json, written after its POST /v1/load_lora_adapter to vLLM succeeded) and the check
 * that the endpoint now serves that adapter (GET /v1/models) before the next rollouts ask for it.
 */

/** published.json of a vlm job with config.publish (docs/trainer-protocol.md). */
export const PublishedSchema = z.object({
  name: z.string().min(1),
  baseUrl: z.string().min(1),
  adapterPath: z.string().min(1),
  job: z.string().min(1),
  model: z.string().min(1),
});
export type Published = z.infer<typeof PublishedSchema>;

/**
 * The server root vLLM's management routes hang off: an OpenAI-compatible base URL is
 * `http://host:8000/v1` (chat completions at `/v1/chat/completions`), and the trainer posts to
 * `<root>/v1/load_lora_adapter`, so a trailing `/v1` is dropped.
 */
export function servingRoot(endpointBaseUrl: string): string {
  return endpointBaseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
}

/** Reads and checks published.json: it must name `expectedName` (the loop's `<name>-<job id>`). */
export function readPublished(path: string, iteration: number, jobId: string, expectedName: string): Published {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new PublishedAdapterError(iteration, jobId, `does not read: ${(e as Error).message}`);
  }
  const r = PublishedSchema.safeParse(json);
  if (!r.success) throw new PublishedAdapterError(iteration, jobId, `is not {name, baseUrl, adapterPath, job, model}: ${formatIssues(r.error.issues)}`);
  if (r.data.name !== expectedName) throw new PublishedAdapterError(iteration, jobId, `names adapter ${JSON.stringify(r.data.name)}, expected ${JSON.stringify(expectedName)}`);
  return r.data;
}

const ModelList = z.object({ data: z.array(z.object({ id: z.string() })) });

export interface WaitServedOptions {
  iteration: number;
  /** Bearer key of the endpoint (sent to the endpoint only; redacted from messages). */
  apiKey?: string | undefined;
  tries?: number;
  delayMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
}

/**
 * Asks `<root>/v1/models` until it lists `adapter` (vLLM's load is synchronous, so the first answer
 * normally has it; a proxy or a second replica may lag, hence a few tries with a doubling delay).
 * Returns the listed ids; AdapterNotServedError after the last try.
 */
export async function waitUntilServed(root: string, adapter: string, o: WaitServedOptions): Promise<string[]> {
  const tries = o.tries ?? 5;
  const doFetch = o.fetch ?? fetch;
  const sleep = o.sleep ?? abortableSleep;
  let models: string[] | null = null;
  let problem: string | null = null;
  for (let k = 0; k < tries; k++) {
    if (k > 0) await sleep((o.delayMs ?? 500) * 2 ** (k - 1), o.signal);
    try {
      const res = await doFetch(`${root}/v1/models`, {
        headers: o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}, signal: o.signal ? AbortSignal.any([o.signal, AbortSignal.timeout(30_000)]) : AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      if (!res.ok) {
        problem = `HTTP ${res.status}: ${redact(text.slice(0, 200), [o.apiKey])}`;
        continue;
      }
      const parsed = ModelList.safeParse(JSON.parse(text));
      if (!parsed.success) {
        problem = `not a model list: ${redact(text.slice(0, 200), [o.apiKey])}`;
        continue;
      }
      models = parsed.data.data.map((m) => m.id);
      problem = null;
      if (models.includes(adapter)) return models;
    } catch (e) {
      o.signal?.throwIfAborted();
      problem = redact((e as Error).message, [o.apiKey]);
    }
  }
  throw new AdapterNotServedError(o.iteration, adapter, root, tries, models, problem);
}
