import { z } from 'zod';

/**
 * One client for OpenAI-compatible chat endpoints (POST {baseUrl}/chat/completions: vLLM, llama.cpp
 * server, OpenAI), shared by ADMIRE's LLM distiller and GUI-Shepherd's VLM judge. It owns the HTTP,
 * the per-attempt timeout, retries with exponential backoff and reading the reply; callers own the
 * request body, what the answer means and how a failure is reported (the distiller throws its named
 * errors, the judge leaves the step unjudged with the reason).
 *
 * Retried: a network error, a timeout, 408, 429 and 5xx. Not retried: other HTTP statuses (our
 * request is wrong) and a reply that is not a chat completion (at temperature 0 it would come back).
 * A request with `"stream": true` is read as server-sent events and put together into one completion
 * (assembleStream); a stream the server ends with its error event is a `reply` failure carrying the text so far.
 */

/** The endpoint fields of a caller's config schema, with that caller's defaults. */
export function chatEndpointFields(defaults: { timeoutMs: number; retries: number; backoffMs: number }) {
  return {
    baseUrl: z.url().describe('Endpoint root, e.g. http://127.0.0.1:8000/v1'),
    model: z.string().min(1).describe('Model name sent in the request'),
    apiKey: z.string().optional().describe('Bearer token, when the endpoint wants one'),
    timeoutMs: z.int().min(1).max(600_000).default(defaults.timeoutMs).describe(`Per-attempt timeout (default ${defaults.timeoutMs} ms)`),
    retries: z.int().min(0).max(10).default(defaults.retries).describe(`Further attempts after a timeout, a network error, 408, 429 or 5xx (default ${defaults.retries})`),
    backoffMs: z.int().min(0).max(60_000).default(defaults.backoffMs).describe(`First retry delay; doubled after each attempt (default ${defaults.backoffMs} ms)`),
  };
}

export interface ChatEndpoint {
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  timeoutMs: number;
  retries: number;
  backoffMs: number;
  /** Cap on one retry delay (none when absent). */
  maxBackoffMs?: number;
}

const TokenLogprob = z.object({ token: z.string(), logprob: z.number() });
/** An OpenAI tool call; `arguments` is JSON text (some servers send the object itself). */
const ToolCall = z.object({
  function: z.object({ name: z.string(), arguments: z.union([z.string(), z.record(z.string(), z.unknown())]) }),
});
export type ToolCall = z.infer<typeof ToolCall>;
/**
 * A server running a tool parser (vLLM --tool-call-parser hermes, SGLang) moves the model's tool calls
 * out of the text into `tool_calls` and may send `content: null`: that is still a completion, whose
 * text is '' and whose calls are in `tool_calls`. Neither text nor calls is not a completion.
 */
const ChatMessage = z.object({ content: z.string().nullish(), tool_calls: z.array(ToolCall).nullish() })
  .refine((m) => typeof m.content === 'string' || (m.tool_calls?.length ?? 0) > 0)
  .transform((m) => ({ content: m.content ?? '', ...(m.tool_calls?.length ? { tool_calls: m.tool_calls } : {}) }));
const ChatCompletion = z.object({
  choices: z.array(z.object({
    message: ChatMessage,
    logprobs: z.object({ content: z.array(TokenLogprob.extend({ top_logprobs: z.array(TokenLogprob).optional() })).nullish() }).nullish(),
  })).min(1),
  // Optional in the OpenAI schema; a malformed one is dropped rather than failing an otherwise good completion.
  usage: z.object({ prompt_tokens: z.int().min(0), completion_tokens: z.int().min(0) }).nullish().catch(undefined),
});
export type ChatChoice = z.infer<typeof ChatCompletion>['choices'][number];

/** The server's token counts for one completion (its `usage`), when it sent them. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

/**
 * A finished exchange: the first choice, or why there is none. `endpoint`: unreachable, too slow or
 * an HTTP error (after the retries when retryable); `reply`: the endpoint answered something that is
 * not a chat completion (`body` holds it).
 */
export type ChatResult =
  | { ok: true; choice: ChatChoice; attempts: number; usage?: TokenUsage }
  | { ok: false; kind: 'endpoint'; reason: string; attempts: number }
  | { ok: false; kind: 'reply'; reason: string; attempts: number; body: string; stream?: StreamFailure };

/** A streamed reply that ended with the server's error event: the text streamed before it, and the event's message. */
export interface StreamFailure {
  content: string;
  error: string;
}

/**
 * A streamed completion (`stream: true`, server-sent events) put together: the content deltas joined, tool calls
 * by index, the last usage. A server that fails mid-stream sends `data: {"error": …}` (transformers serve writes its
 * message into that line unescaped, so the event is read as text, not JSON): the text so far and that message.
 */
export function assembleStream(body: string): { completion: unknown } | { failure: StreamFailure } {
  let content = '';
  const calls = new Map<number, { name: string; arguments: string }>();
  let usage: unknown;
  for (const event of body.split(/\r?\n\r?\n/)) {
    // The error event's message may hold raw newlines (continuation lines without `data:`): it is read whole.
    const error = /^data: ?\{\s*"error"\s*:\s*"([\s\S]*)"\s*\}\s*$/.exec(event.trim());
    if (error) return { failure: { content, error: error[1]! } };
    const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
    if (!data || data === '[DONE]') continue;
    let chunk: { choices?: Array<{ delta?: { content?: string | null; tool_calls?: Array<{ index?: number; function?: { name?: string; arguments?: string } }> } }>; usage?: unknown };
    try {
      chunk = JSON.parse(data) as typeof chunk;
    } catch {
      return { failure: { content, error: `an event that is not JSON: ${data.slice(0, 200)}` } };
    }
    if (chunk.usage) usage = chunk.usage;
    const delta = chunk.choices?.[0]?.delta;
    if (typeof delta?.content === 'string') content += delta.content;
    for (const [k, t] of (delta?.tool_calls ?? []).entries()) {
      const i = t.index ?? k;
      const c = calls.get(i) ?? { name: '', arguments: '' };
      calls.set(i, { name: c.name + (t.function?.name ?? ''), arguments: c.arguments + (t.function?.arguments ?? '') });
    }
  }
  const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, f]) => ({ function: f }));
  return { completion: { choices: [{ message: { content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) } }], ...(usage ? { usage } : {}) } };
}

export interface ChatClientDeps {
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(t);
      reject(signal!.reason);
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}

const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

type Attempt = { done: ChatResult } | { retry: string };

export class ChatClient {
  readonly url: string;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(readonly endpoint: ChatEndpoint, deps: ChatClientDeps = {}) {
    this.url = `${endpoint.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.fetchImpl = deps.fetch ?? fetch;
    this.sleep = deps.sleep ?? abortableSleep;
  }

  /**
   * Sends `{model, ...request}` up to 1 + retries times, waiting backoffMs · 2^(attempt−1) (capped by
   * maxBackoffMs) before each retry. A caller's abort is thrown (its reason), never turned into a result.
   */
  async complete(request: Record<string, unknown>, signal?: AbortSignal): Promise<ChatResult> {
    const e = this.endpoint;
    const body = JSON.stringify({ model: e.model, ...request });
    let last = '';
    for (let attempt = 1; attempt <= e.retries + 1; attempt++) {
      if (attempt > 1) await this.sleep(Math.min(e.maxBackoffMs ?? Infinity, e.backoffMs * 2 ** (attempt - 2)), signal);
      signal?.throwIfAborted();
      const r = await this.attempt(body, request.stream === true, attempt, signal);
      if ('done' in r) return r.done;
      last = r.retry;
    }
    return { ok: false, kind: 'endpoint', reason: last, attempts: e.retries + 1 };
  }

  private async attempt(body: string, streamed: boolean, attempts: number, signal?: AbortSignal): Promise<Attempt> {
    const e = this.endpoint;
    const timeout = AbortSignal.timeout(e.timeoutMs);
    const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response;
    let text: string;
    try {
      res = await this.fetchImpl(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(e.apiKey ? { authorization: `Bearer ${e.apiKey}` } : {}) },
        body,
        signal: both,
      });
      text = await res.text();
    } catch (err) {
      signal?.throwIfAborted();
      if (timeout.aborted) return { retry: `no answer within ${e.timeoutMs} ms` };
      const cause = (err as { cause?: Error }).cause;
      return { retry: `request failed: ${(err as Error).message}${cause ? ` (${cause.message})` : ''}` };
    }
    if (!res.ok) {
      const reason = `HTTP ${res.status}: ${text.slice(0, 200)}`;
      return retryable(res.status) ? { retry: reason } : { done: { ok: false, kind: 'endpoint', reason, attempts } };
    }
    let json: unknown;
    // A server that does not stream answers plain JSON (or an error page): read as any other reply.
    if (streamed && /^data:/m.test(text)) {
      const r = assembleStream(text);
      if ('failure' in r) return { done: { ok: false, kind: 'reply', reason: `the stream ended with the server's error: ${r.failure.error.slice(0, 300)}`, attempts, body: text, stream: r.failure } };
      json = r.completion;
    } else {
      try {
        json = JSON.parse(text);
      } catch {
        return { done: { ok: false, kind: 'reply', reason: `the endpoint's reply is not JSON: ${JSON.stringify(text.slice(0, 120))}`, attempts, body: text } };
      }
    }
    const parsed = ChatCompletion.safeParse(json);
    if (!parsed.success) {
      return { done: { ok: false, kind: 'reply', reason: `the reply is not a chat completion (no choices[0].message.content or tool_calls): ${JSON.stringify(json).slice(0, 120)}`, attempts, body: text } };
    }
    const u = parsed.data.usage;
    const usage = u ? { usage: { promptTokens: u.prompt_tokens, completionTokens: u.completion_tokens } } : {};
    return { done: { ok: true, choice: parsed.data.choices[0]!, attempts, ...usage } };
  }
}
