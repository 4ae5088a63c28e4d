import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { z } from 'zod';
import { abortableSleep } from '../llm/chat-client.js';
import { redact } from '../llm/redact.js';
import { AdapterNotServedError, PublishedAdapterError, ServedModelLoadError } from './online-errors.js';
import { formatIssues } from '../util/zod-issues.js';

/**
 * The serving side of an online VLM iteration: what the trainer reports it published (published.json), and making
 * the endpoint serve it before the next rollouts ask for it. Per server (the endpoint's `server`):
 * - vllm: the trainer already POSTed /v1/load_lora_adapter; the loop waits until GET /v1/models lists the adapter,
 *   then unloads the previous version (POST /v1/unload_lora_adapter {lora_name}).
 * - transformers: the trainer wrote a merged model folder (`servedPath`); the loop unloads what the server holds
 *   (POST /reset: transformers serve has no per-model unload) and loads the folder (POST /load_model, whose
 *   server-sent events end in `ready` or `error`). Requests then name the folder as their model.
 */

/** published.json of a vlm job with config.publish (docs/trainer-protocol.md). */
export const PublishedSchema = z.object({
  name: z.string().min(1),
  baseUrl: z.string().min(1),
  adapterPath: z.string().min(1),
  job: z.string().min(1),
  model: z.string().min(1),
  /** How it was published (absent in records of trainers before publish.server: vllm). */
  server: z.enum(['vllm', 'transformers']).default('vllm'),
  /** transformers: the merged model folder on the trainer's (shared) disk, `.../served/<name>`. */
  servedPath: z.string().min(1).optional(),
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

/** Reads and checks published.json: it must name `expectedName` (the loop's `<name>-<job id>`) and be published for `server`. */
export function readPublished(path: string, iteration: number, jobId: string, expectedName: string, server: Published['server'] = 'vllm'): Published {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new PublishedAdapterError(iteration, jobId, `does not read: ${(e as Error).message}`);
  }
  const r = PublishedSchema.safeParse(json);
  if (!r.success) throw new PublishedAdapterError(iteration, jobId, `is not {name, baseUrl, adapterPath, job, model}: ${formatIssues(r.error.issues)}`);
  if (r.data.name !== expectedName) throw new PublishedAdapterError(iteration, jobId, `names adapter ${JSON.stringify(r.data.name)}, expected ${JSON.stringify(expectedName)}`);
  if (r.data.server !== server) throw new PublishedAdapterError(iteration, jobId, `was published for ${r.data.server}, the endpoint is ${server}`);
  if (server === 'transformers' && (!r.data.servedPath || basename(r.data.servedPath) !== expectedName)) {
    throw new PublishedAdapterError(iteration, jobId, `has servedPath ${JSON.stringify(r.data.servedPath)}, expected a folder named ${JSON.stringify(expectedName)}`);
  }
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

interface ServerCallOptions {
  apiKey?: string | undefined;
  fetch?: typeof fetch;
  signal?: AbortSignal;
  /** Per request (default 30 s; a model load may take minutes: loadServedFolder passes its own). */
  timeoutMs?: number;
}

async function post(url: string, body: unknown, o: ServerCallOptions): Promise<{ status: number; text: string }> {
  const timeout = AbortSignal.timeout(o.timeoutMs ?? 30_000);
  const res = await (o.fetch ?? fetch)(url, {
    method: 'POST', body: body === undefined ? undefined : JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) },
    signal: o.signal ? AbortSignal.any([o.signal, timeout]) : timeout,
  });
  return { status: res.status, text: await res.text() };
}

/**
 * vLLM: POST <root>/v1/unload_lora_adapter {"lora_name"} (vLLM's documented dynamic LoRA API). Best effort: returns
 * null when unloaded, else the problem — an old version left loaded only costs server memory, not the run.
 */
export async function unloadAdapter(root: string, adapter: string, o: ServerCallOptions = {}): Promise<string | null> {
  try {
    const r = await post(`${root}/v1/unload_lora_adapter`, { lora_name: adapter }, o);
    return r.status >= 200 && r.status < 300 ? null : `HTTP ${r.status}: ${redact(r.text.slice(0, 200), [o.apiKey])}`;
  } catch (e) {
    o.signal?.throwIfAborted();
    return redact((e as Error).message, [o.apiKey]);
  }
}

/**
 * transformers serve: unloads every model it holds (POST /reset — it has no per-model unload; an idle model also goes
 * after --model-timeout) and loads `folder` (POST /load_model, server-sent events `data: {"status": …}` ending in
 * `ready` or `error`). ServedModelLoadError when it does not end ready.
 */
export async function loadServedFolder(root: string, folder: string, o: ServerCallOptions & { iteration: number }): Promise<void> {
  const fail = (problem: string) => new ServedModelLoadError(o.iteration, folder, root, redact(problem, [o.apiKey]));
  let last: { status?: string; message?: string } | undefined;
  try {
    const reset = await post(`${root}/reset`, undefined, o);
    if (reset.status !== 200) throw fail(`POST /reset answered HTTP ${reset.status}: ${reset.text.slice(0, 200)}`);
    const r = await post(`${root}/load_model`, { model: folder }, { ...o, timeoutMs: o.timeoutMs ?? 600_000 });
    if (r.status !== 200) throw fail(`HTTP ${r.status}: ${r.text.slice(0, 200)}`);
    for (const line of r.text.split('\n')) {
      if (!line.startsWith('data: ')) continue;
      try {
        last = JSON.parse(line.slice(6)) as typeof last;
      } catch {
        // a progress line that is not JSON says nothing about the outcome
      }
    }
  } catch (e) {
    if (e instanceof ServedModelLoadError) throw e;
    o.signal?.throwIfAborted();
    throw fail((e as Error).message);
  }
  if (last?.status !== 'ready') throw fail(last ? `its last event is ${JSON.stringify(last).slice(0, 300)}` : 'no progress events');
}
