import { z } from 'zod';
import { ChatClient, chatEndpointFields, type ChatChoice, type ChatClientDeps } from '../../llm/chat-client.js';
import type { JudgeInput, JudgeVerdict, StepJudge } from './judge.js';
import { SHEPHERD_SYSTEM_PROMPT, shepherdUserText } from './vlm-prompt.js';
import { issueLines } from '../../util/zod-issues.js';

/**
 * A remote VLM as GUI-Shepherd's judge through an OpenAI-compatible chat endpoint
 * (POST {baseUrl}/chat/completions; vLLM, llama.cpp server, OpenAI). The paper serves its PRM
 * through vLLM and parses the output (digest 002 §3.1). HTTP, timeouts, retries and backoff are the
 * shared ChatClient's (core/llm/chat-client.ts). Every failure is a null verdict with the reason
 * (never p = 0): an endpoint that is down, slow or answers garbage leaves the step unjudged.
 */
export const VlmJudgeConfigSchema = z.strictObject({
  ...chatEndpointFields({ timeoutMs: 30_000, retries: 2, backoffMs: 500 }),
  maxBackoffMs: z.int().min(0).max(600_000).default(8_000).describe('Cap on one retry delay (default 8 s)'),
  concurrency: z.int().min(1).max(64).default(4).describe('Requests in flight at once (default 4)'),
  logprobs: z.boolean().default(true).describe('Ask for token log-probabilities to turn the verdict into P(correct)'),
  maxTokens: z.int().min(8).max(4096).default(256).describe('Answer length cap (the JSON with a short reason)'),
});
export type VlmJudgeConfig = z.infer<typeof VlmJudgeConfigSchema>;

export class VlmJudgeConfigError extends Error {
  override name = 'VlmJudgeConfigError';
  constructor(readonly input: unknown, readonly problems: string[]) {
    super(`Invalid VLM judge config: ${problems.join('; ')}`);
  }
}

export function parseVlmJudgeConfig(input: unknown): VlmJudgeConfig {
  const r = VlmJudgeConfigSchema.safeParse(input ?? {});
  if (!r.success) throw new VlmJudgeConfigError(input, issueLines(r.error.issues, { root: '(root)' }));
  return r.data;
}

/** The answer's JSON object: the first {...} in the text (models wrap it in code fences or prose). */
function parseAnswer(content: string): { result: 0 | 1; reason: string } | string {
  const start = content.indexOf('{');
  const end = content.lastIndexOf('}');
  if (start < 0 || end < start) return `no JSON object in the answer ${JSON.stringify(content.slice(0, 120))}`;
  let json: unknown;
  try {
    json = JSON.parse(content.slice(start, end + 1));
  } catch {
    return `the answer's JSON does not parse: ${JSON.stringify(content.slice(start, start + 120))}`;
  }
  const r = z.object({ result: z.union([z.literal(0), z.literal(1), z.literal('0'), z.literal('1'), z.boolean()]), reason: z.string().optional() }).safeParse(json);
  if (!r.success) return `the answer has no result 1 or 0: ${JSON.stringify(json).slice(0, 120)}`;
  const v = r.data.result;
  return { result: v === 1 || v === '1' || v === true ? 1 : 0, reason: r.data.reason ?? '' };
}

/**
 * P(result = 1) from the token log-probabilities at the position where the result is written:
 * p = e^{lp(1)} / (e^{lp(1)} + e^{lp(0)}) over the alternatives at that position (the paper ranks by
 * the positive token's logit, Eq. 6; normalising over the two answers gives a probability). When
 * only the chosen token's log-prob is known: p = e^{lp} for a 1, 1 − e^{lp} for a 0. Undefined when
 * the endpoint sent no log-probs or the result token is not found.
 */
export function resultProbability(choice: ChatChoice): number | undefined {
  const tokens = choice.logprobs?.content;
  if (!tokens) return undefined;
  let text = '';
  const isAnswer = (t: string) => /^\s*"?\s*(0|1|true|false)\b/i.test(t);
  const one = (t: string) => /^\s*"?\s*(1|true)\b/i.test(t);
  for (const tok of tokens) {
    if (/"result"\s*:\s*"?\s*$/.test(text) && !/^[\s"]*$/.test(tok.token)) {
      if (!isAnswer(tok.token)) return undefined;
      const alts = tok.top_logprobs?.length ? tok.top_logprobs : [tok];
      let p1 = 0;
      let p0 = 0;
      for (const a of alts) {
        if (!isAnswer(a.token)) continue;
        if (one(a.token)) p1 += Math.exp(a.logprob);
        else p0 += Math.exp(a.logprob);
      }
      if (p1 > 0 && p0 > 0) return p1 / (p1 + p0);
      const pc = Math.exp(tok.logprob);
      return one(tok.token) ? pc : 1 - pc;
    }
    text += tok.token;
  }
  return undefined;
}

export class VlmJudge implements StepJudge {
  readonly name: string;
  private readonly client: ChatClient;

  constructor(readonly config: VlmJudgeConfig, deps: ChatClientDeps = {}) {
    this.name = `vlm:${config.model}`;
    this.client = new ChatClient(config, deps);
  }

  async judge(inputs: readonly JudgeInput[], signal?: AbortSignal): Promise<JudgeVerdict[]> {
    const out: JudgeVerdict[] = new Array(inputs.length);
    let next = 0;
    const worker = async () => {
      while (next < inputs.length) {
        const i = next++;
        out[i] = await this.judgeOne(inputs[i]!, signal);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.config.concurrency, inputs.length) }, worker));
    return out;
  }

  /** One step through the shared ChatClient (timeout, retries, backoff); any failure is a null verdict with the reason. */
  async judgeOne(input: JudgeInput, signal?: AbortSignal): Promise<JudgeVerdict> {
    if (!input.screenshot) return { p: null, reason: 'unjudged: no screenshot recorded for this step (the VLM judge needs the screen)' };
    const r = await this.client.complete(this.request(input, input.screenshot), signal);
    const unjudged = (why: string): JudgeVerdict => ({ p: null, reason: `unjudged: ${why} (${this.name} at ${this.config.baseUrl})` });
    if (!r.ok) return unjudged(r.reason);
    const answer = parseAnswer(r.choice.message.content);
    if (typeof answer === 'string') return unjudged(answer);
    const fromLogprobs = resultProbability(r.choice);
    const p = fromLogprobs ?? answer.result;
    const source = fromLogprobs === undefined ? 'no log-probs: p is the verdict' : 'p from log-probs';
    return { p, explanation: `${answer.result ? 'correct' : 'incorrect'} (${source}, P = ${p.toFixed(2)}): ${answer.reason}` };
  }

  private request(input: JudgeInput, screenshot: Uint8Array): Record<string, unknown> {
    const png = Buffer.from(screenshot).toString('base64');
    return {
      temperature: 0,
      max_tokens: this.config.maxTokens,
      ...(this.config.logprobs ? { logprobs: true, top_logprobs: 5 } : {}),
      messages: [
        { role: 'system', content: SHEPHERD_SYSTEM_PROMPT },
        { role: 'user', content: [
          { type: 'text', text: shepherdUserText(input) },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${png}` } },
        ] },
      ],
    };
  }
}
