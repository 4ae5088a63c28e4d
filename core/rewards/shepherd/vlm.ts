import { z } from 'zod';
import type { JudgeInput, JudgeVerdict, StepJudge } from './judge.js';
import { SHEPHERD_SYSTEM_PROMPT, shepherdUserText } from './vlm-prompt.js';

/**
 * A remote VLM as GUI-Shepherd's judge through an OpenAI-compatible chat endpoint
 * (POST {baseUrl}/chat/completions; vLLM, llama.cpp server, OpenAI). The paper serves its PRM
 * through vLLM and parses the output (digest 002 §3.1). Every failure is a null verdict with the
 * reason (never p = 0): an endpoint that is down, slow or answers garbage leaves the step unjudged.
 */
export const VlmJudgeConfigSchema = z.strictObject({
  baseUrl: z.url().describe('Endpoint root, e.g. http://127.0.0.1:8000/v1'),
  model: z.string().min(1).describe('Model name sent in the request'),
  apiKey: z.string().optional().describe('Bearer token, when the endpoint wants one'),
  timeoutMs: z.int().min(1).max(600_000).default(30_000).describe('Per-attempt timeout (default 30 s)'),
  retries: z.int().min(0).max(10).default(2).describe('Retries after a timeout, network error, 429 or 5xx (default 2)'),
  backoffMs: z.int().min(0).max(60_000).default(500).describe('First retry delay; doubles each retry (default 500 ms)'),
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
  if (!r.success) throw new VlmJudgeConfigError(input, r.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`));
  return r.data;
}

const TokenLogprob = z.object({ token: z.string(), logprob: z.number() });
const ChatResponse = z.object({
  choices: z.array(z.object({
    message: z.object({ content: z.string() }),
    logprobs: z.object({ content: z.array(TokenLogprob.extend({ top_logprobs: z.array(TokenLogprob).optional() })).nullish() }).nullish(),
  })).min(1),
});
type ChatChoice = z.infer<typeof ChatResponse>['choices'][number];

/** Outcome of one request: a parsed verdict, or why not and whether trying again may help. */
type Attempt = { ok: true; verdict: JudgeVerdict } | { ok: false; reason: string; retry: boolean };

export interface VlmJudgeDeps {
  fetch?: typeof fetch;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
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
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(readonly config: VlmJudgeConfig, deps: VlmJudgeDeps = {}) {
    this.name = `vlm:${config.model}`;
    this.fetchImpl = deps.fetch ?? fetch;
    this.sleep = deps.sleep ?? abortableSleep;
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

  /** One step: up to 1 + retries attempts with exponential backoff, then a null verdict with the last reason. */
  async judgeOne(input: JudgeInput, signal?: AbortSignal): Promise<JudgeVerdict> {
    if (!input.screenshot) return { p: null, reason: 'unjudged: no screenshot recorded for this step (the VLM judge needs the screen)' };
    const body = JSON.stringify(this.request(input));
    const c = this.config;
    let last = '';
    for (let attempt = 0; attempt <= c.retries; attempt++) {
      if (attempt > 0) await this.sleep(Math.min(c.maxBackoffMs, c.backoffMs * 2 ** (attempt - 1)), signal);
      signal?.throwIfAborted();
      const r = await this.attempt(body, signal);
      if (r.ok) return r.verdict;
      last = r.reason;
      if (!r.retry) break;
    }
    return { p: null, reason: `unjudged: ${last} (${this.name} at ${c.baseUrl})` };
  }

  private request(input: JudgeInput): unknown {
    const png = Buffer.from(input.screenshot!).toString('base64');
    return {
      model: this.config.model,
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

  private async attempt(body: string, signal?: AbortSignal): Promise<Attempt> {
    const c = this.config;
    const timeout = AbortSignal.timeout(c.timeoutMs);
    const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response;
    let text: string;
    try {
      res = await this.fetchImpl(`${c.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(c.apiKey ? { authorization: `Bearer ${c.apiKey}` } : {}) },
        body,
        signal: both,
      });
      text = await res.text();
    } catch (e) {
      signal?.throwIfAborted();
      if (timeout.aborted) return { ok: false, reason: `no answer within ${c.timeoutMs} ms`, retry: true };
      return { ok: false, reason: `request failed: ${(e as Error).message}${(e as { cause?: Error }).cause ? ` (${(e as { cause: Error }).cause.message})` : ''}`, retry: true };
    }
    if (!res.ok) return { ok: false, reason: `HTTP ${res.status}: ${text.slice(0, 120)}`, retry: res.status === 429 || res.status >= 500 };
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return { ok: false, reason: `the endpoint's reply is not JSON: ${JSON.stringify(text.slice(0, 120))}`, retry: false };
    }
    const parsed = ChatResponse.safeParse(json);
    if (!parsed.success) return { ok: false, reason: `the reply is not a chat completion: ${JSON.stringify(json).slice(0, 120)}`, retry: false };
    const choice = parsed.data.choices[0]!;
    const answer = parseAnswer(choice.message.content);
    if (typeof answer === 'string') return { ok: false, reason: answer, retry: false };
    const fromLogprobs = resultProbability(choice);
    const p = fromLogprobs ?? answer.result;
    const source = fromLogprobs === undefined ? 'no log-probs: p is the verdict' : 'p from log-probs';
    return { ok: true, verdict: { p, explanation: `${answer.result ? 'correct' : 'incorrect'} (${source}, P = ${p.toFixed(2)}): ${answer.reason}` } };
  }
}
