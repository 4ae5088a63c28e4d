import { ChatClient, type ChatClientDeps, type ChatChoice, type TokenUsage } from '../../llm/chat-client.js';
import { redact } from '../../llm/redact.js';
import { endpointSemaphore, type Semaphore } from '../../llm/semaphore.js';
import { MissingApiKeyError, VlmEndpointError } from './errors.js';
import { recoverToolCallReply } from './recover.js';
import type { VlmServer } from './server.js';
import type { ChatMessage } from './prompt.js';
import type { VlmEndpointSettings } from './settings.js';

export interface Completion {
  text: string;
  attempts: number;
  /** Wall time of the request including retries, not the wait for a permit. */
  latencyMs: number;
  /** Time spent waiting for the endpoint's concurrency permit. */
  queuedMs: number;
  /** The server's token counts, when its reply had `usage`. */
  usage?: TokenUsage;
  /** Set when the server failed to hand the reply back and it was put together from what it did send (recover.ts). */
  recovered?: string;
}

/**
 * The completion as the model wrote it. A server's tool parser (vLLM --tool-call-parser hermes) cut
 * each `<tool_call>{"name": …, "arguments": …}</tool_call>` out of the text into `tool_calls`; they
 * are put back in that markup (Qwen2.5-VL's chat template, the one hermes reads) after the text that
 * is left, so the format's parser reads the same text whether or not the server parses tool calls,
 * and a reply with two calls is two calls. Arguments that are not JSON stay a string, for the parser to refuse.
 */
export function completionText(choice: ChatChoice): string {
  if (!choice.message.tool_calls) return choice.message.content;
  const calls = choice.message.tool_calls.map((c) => {
    let args: unknown = c.function.arguments;
    if (typeof args === 'string') {
      try {
        args = JSON.parse(args);
      } catch {
        // kept as the string the server sent
      }
    }
    return `<tool_call>\n${JSON.stringify({ name: c.function.name, arguments: args })}\n</tool_call>`;
  });
  return [choice.message.content.trim(), ...calls].filter(Boolean).join('\n');
}

/** The key the settings resolve to: given, or read from the named variable (MissingApiKeyError when unset). */
export function resolveApiKey(e: Pick<VlmEndpointSettings, 'apiKey' | 'apiKeyEnv'>, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (e.apiKey) return e.apiKey;
  if (!e.apiKeyEnv) return undefined;
  const v = env[e.apiKeyEnv];
  if (!v) throw new MissingApiKeyError(e.apiKeyEnv);
  return v;
}

/**
 * One VLM endpoint: the shared ChatClient (timeouts, retries with capped exponential backoff),
 * under the endpoint's process-wide semaphore, with every failure turned into a VlmEndpointError
 * whose message has the API key redacted (an endpoint may echo the Authorization header back).
 */
export class VlmClient {
  readonly label: string;
  readonly semaphore: Semaphore;
  private readonly chat: ChatClient;
  private readonly apiKey: string | undefined;
  private readonly server: VlmServer;

  constructor(settings: VlmEndpointSettings, deps: ChatClientDeps & { env?: NodeJS.ProcessEnv } = {}) {
    this.apiKey = resolveApiKey(settings, deps.env);
    this.server = settings.server;
    this.label = `${settings.baseUrl.replace(/\/+$/, '')} (${settings.model})`;
    this.semaphore = endpointSemaphore(settings.baseUrl, settings.maxConcurrency);
    this.chat = new ChatClient({
      baseUrl: settings.baseUrl, model: settings.model, apiKey: this.apiKey, timeoutMs: settings.timeoutMs,
      retries: settings.retries, backoffMs: settings.backoffMs, maxBackoffMs: settings.maxBackoffMs,
    }, deps);
  }

  /** Redacts this endpoint's key from any text leaving the client. */
  scrub(text: string): string {
    return redact(text, [this.apiKey]);
  }

  /**
   * `transformers serve` is asked to stream: its own tool-call parsing fails a reply whose `<tool_call>` is not JSON,
   * and only a stream keeps the text (recover.ts). Such a reply comes back as the model's text, for the format to
   * refuse as any malformed reply; every other failure is a VlmEndpointError.
   */
  async complete(messages: ChatMessage[], params: Record<string, unknown>, signal?: AbortSignal): Promise<Completion> {
    const queued = performance.now();
    const stream = this.server === 'transformers' && params.stream === undefined ? { stream: true } : {};
    return this.semaphore.run(async () => {
      const t0 = performance.now();
      const r = await this.chat.complete({ messages, ...params, ...stream }, signal);
      const latencyMs = performance.now() - t0;
      if (!r.ok && r.kind === 'reply' && r.stream) {
        const text = recoverToolCallReply(r.stream);
        if (text !== undefined) return { text: this.scrub(text), attempts: r.attempts, latencyMs, queuedMs: t0 - queued, recovered: this.scrub(r.reason) };
      }
      if (!r.ok) throw new VlmEndpointError(this.label, r.kind, this.scrub(r.reason), r.attempts);
      return { text: this.scrub(completionText(r.choice)), attempts: r.attempts, latencyMs, queuedMs: t0 - queued, ...(r.usage ? { usage: r.usage } : {}) };
    }, signal);
  }
}
