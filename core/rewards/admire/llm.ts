import { z } from 'zod';
import { assertNever, WorkbenchError } from '../../util/errors.js';
import { ChatClient, chatEndpointFields, type ChatClientDeps } from '../../llm/chat-client.js';
import type { DistillInput, MilestoneDistiller } from './distill.js';
import { initPrompt, updatePrompt } from './prompts.js';

/** Where and how to call an OpenAI-compatible chat endpoint (`POST {baseUrl}/chat/completions`; the paper used GPT-4o). */
export const LlmDistillerConfigSchema = z.strictObject({
  ...chatEndpointFields({ timeoutMs: 60_000, retries: 3, backoffMs: 1000 }),
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

/**
 * ADMIRE's Φ through an OpenAI-compatible chat endpoint: P_init for a template's first milestones,
 * P_update (keep unless the new success shows a better path) afterwards, temperature 0. The shared
 * ChatClient retries timeouts, network errors, 408, 429 and 5xx with exponential backoff; an endpoint
 * that keeps failing is an LlmEndpointError, a reply or answer that is not usable a MilestoneAnswerError.
 */
export class LlmDistiller implements MilestoneDistiller {
  readonly kind = 'llm' as const;
  readonly config: LlmDistillerConfig;
  private readonly client: ChatClient;
  constructor(config: z.input<typeof LlmDistillerConfigSchema>, deps: ChatClientDeps = {}) {
    this.config = LlmDistillerConfigSchema.parse(config);
    this.client = new ChatClient(this.config, deps);
  }

  async distill(input: DistillInput, signal?: AbortSignal): Promise<string[]> {
    const prompt = input.existing && input.existing.length ? updatePrompt(input, input.existing) : initPrompt(input);
    return parseMilestoneAnswer(await this.chat(prompt, signal), this.config.maxMilestones);
  }

  /** One chat completion (core/llm/chat-client.ts: timeout, retries, backoff); the first choice's content. */
  async chat(prompt: string, signal?: AbortSignal): Promise<string> {
    const r = await this.client.complete({ temperature: 0, messages: [{ role: 'user', content: prompt }] }, signal);
    if (r.ok) return r.choice.message.content;
    switch (r.kind) {
      case 'endpoint':
        throw new LlmEndpointError(this.client.url, r.attempts, r.reason);
      case 'reply':
        throw new MilestoneAnswerError(r.body, r.reason);
      default:
        return assertNever(r, 'chat result');
    }
  }
}
