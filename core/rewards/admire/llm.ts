import { z } from 'zod';
import { WorkbenchError } from '../../util/errors.js';
import type { DistillInput, MilestoneDistiller } from './distill.js';
import { initPrompt, updatePrompt } from './prompts.js';

/** Where and how to call an OpenAI-compatible chat endpoint (`POST {baseUrl}/chat/completions`). */
export const LlmDistillerConfigSchema = z.strictObject({
  baseUrl: z.url().describe('Endpoint root, e.g. http://127.0.0.1:8000/v1 (the paper used GPT-4o)'),
  model: z.string().min(1).describe('Model name sent in the request'),
  apiKey: z.string().optional().describe('Bearer token, when the endpoint needs one'),
  timeoutMs: z.int().min(1).max(600_000).default(60_000).describe('Per-attempt timeout'),
  retries: z.int().min(0).max(10).default(3).describe('Further attempts after a timeout, a network error, 429 or 5xx'),
  backoffMs: z.int().min(0).max(60_000).default(1000).describe('First retry delay; doubled after each attempt'),
  maxMilestones: z.int().min(1).max(100).default(30).describe('An answer with more items is refused as garbage'),
});
export type LlmDistillerConfig = z.infer<typeof LlmDistillerConfigSchema>;

/** The endpoint could not be reached or kept failing after the retries. */
export class LlmEndpointError extends WorkbenchError {
  override name = 'LlmEndpointError';
  constructor(readonly url: string, readonly attempts: number, readonly last: string) {
    super(`Milestone LLM at ${url} failed after ${attempts} attempt(s): ${last}`);
  }
}

/** The endpoint answered, but not with a JSON array of milestone strings. */
export class MilestoneAnswerError extends WorkbenchError {
  override name = 'MilestoneAnswerError';
  constructor(readonly answer: string, reason: string) {
    super(`Milestone LLM answer is not a usable JSON array of strings (${reason}): ${JSON.stringify(answer.slice(0, 300))}`);
  }
}

/** Status codes worth another attempt: rate limiting and server trouble. Other 4xx are our fault. */
const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

/**
 * Parses the model's answer: a strict JSON array of non-empty strings, optionally inside a ```json
 * fence (chat models add one despite the prompt). Anything else is a MilestoneAnswerError.
 */
export function parseMilestoneAnswer(answer: string, maxMilestones = 30): string[] {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/i.exec(answer);
  const text = (fenced ? fenced[1]! : answer).trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new MilestoneAnswerError(answer, 'not JSON');
  }
  if (!Array.isArray(parsed)) throw new MilestoneAnswerError(answer, 'not an array');
  if (parsed.length === 0) throw new MilestoneAnswerError(answer, 'empty array');
  if (parsed.length > maxMilestones) throw new MilestoneAnswerError(answer, `${parsed.length} items, at most ${maxMilestones}`);
  const items = parsed.map((x) => (typeof x === 'string' ? x.trim() : null));
  if (items.some((x) => !x || x.length > 300)) throw new MilestoneAnswerError(answer, 'an item is not a non-empty string of at most 300 characters');
  return items as string[];
}

const sleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  if (signal?.aborted) return reject(signal.reason);
  const t = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
  const onAbort = () => { clearTimeout(t); reject(signal!.reason); };
  signal?.addEventListener('abort', onAbort, { once: true });
});

/**
 * ADMIRE's Φ through an OpenAI-compatible chat endpoint: P_init for a template's first milestones,
 * P_update (keep unless the new success shows a better path) afterwards, temperature 0. Each attempt
 * has its own timeout; timeouts, network errors, 429 and 5xx are retried with exponential backoff
 * (backoffMs, 2·backoffMs, …); a garbage answer is not retried (at temperature 0 it would come back).
 */
export class LlmDistiller implements MilestoneDistiller {
  readonly kind = 'llm' as const;
  readonly config: LlmDistillerConfig;
  constructor(config: z.input<typeof LlmDistillerConfigSchema>) {
    this.config = LlmDistillerConfigSchema.parse(config);
  }

  async distill(input: DistillInput, signal?: AbortSignal): Promise<string[]> {
    const prompt = input.existing && input.existing.length ? updatePrompt(input, input.existing) : initPrompt(input);
    return parseMilestoneAnswer(await this.chat(prompt, signal), this.config.maxMilestones);
  }

  /** One chat completion with retries; returns the first choice's message content. */
  async chat(prompt: string, signal?: AbortSignal): Promise<string> {
    const { baseUrl, model, apiKey, timeoutMs, retries, backoffMs } = this.config;
    const url = `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const body = JSON.stringify({ model, temperature: 0, messages: [{ role: 'user', content: prompt }] });
    let last = '';
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) await sleep(backoffMs * 2 ** (attempt - 1), signal);
      const timeout = AbortSignal.timeout(timeoutMs);
      const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
      let res: Response;
      try {
        res = await fetch(url, { method: 'POST', headers, body, signal: both });
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        last = timeout.aborted ? `timed out after ${timeoutMs} ms` : `${(e as Error).name}: ${(e as Error).message}`;
        continue;
      }
      let text: string;
      try {
        text = await res.text();
      } catch (e) {
        if (signal?.aborted) throw signal.reason;
        last = timeout.aborted ? `timed out after ${timeoutMs} ms reading the body` : `reading the body: ${(e as Error).message}`;
        continue;
      }
      if (!res.ok) {
        last = `HTTP ${res.status}: ${text.slice(0, 200)}`;
        if (retryable(res.status)) continue;
        throw new LlmEndpointError(url, attempt + 1, last);
      }
      return chatContent(text);
    }
    throw new LlmEndpointError(url, retries + 1, last);
  }
}

const ChatResponse = z.object({ choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1) });

function chatContent(body: string): string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new MilestoneAnswerError(body, 'the response body is not JSON');
  }
  const parsed = ChatResponse.safeParse(json);
  if (!parsed.success) throw new MilestoneAnswerError(body, 'no choices[0].message.content in the response');
  return parsed.data.choices[0]!.message.content;
}
