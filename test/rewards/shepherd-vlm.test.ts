import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseVlmJudgeConfig, VlmJudge, VlmJudgeConfigError } from '../../core/rewards/shepherd/vlm.js';
import type { JudgeInput } from '../../core/rewards/shepherd/judge.js';
import { chatCompletion, replyChat, startFakeChat, type FakeChat } from '../helpers/fake-chat.js';

/** A fake OpenAI-compatible endpoint whose behaviour the path prefix picks: /good, /slow, /garbage, /flaky, /http400. */
let fake: FakeChat;
let base = '';
let flakyCalls = 0;

beforeAll(async () => {
  fake = await startFakeChat((req, res) => {
    const mode = req.path.split('/')[1];
    res.setHeader('content-type', 'application/json');
    switch (mode) {
      case 'good': {
        const tokens = ['{"', 'result', '":', ' ', '1', ',', ' "reason": "opens the right app"}'];
        return replyChat(res, '{"result": 1, "reason": "opens the right app"}', {
          content: tokens.map((t) => ({ token: t, logprob: -0.01, ...(t === '1' ? { top_logprobs: [{ token: '1', logprob: Math.log(0.8) }, { token: '0', logprob: Math.log(0.2) }] } : {}) })),
        });
      }
      case 'nologprobs':
        return replyChat(res, '```json\n{"result": 0, "reason": "wrong toggle"}\n```');
      case 'slow':
        return setTimeout(() => res.end(chatCompletion('{"result": 1, "reason": "late"}')), 400);
      case 'garbage':
        return replyChat(res, 'I think the agent is doing fine!');
      case 'notjson':
        return res.end('<html>proxy error</html>');
      case 'flaky':
        flakyCalls++;
        if (flakyCalls < 3) {
          res.statusCode = 503;
          return res.end('{"error": "overloaded"}');
        }
        return replyChat(res, '{"result": 1, "reason": "ok"}');
      case 'http400':
        res.statusCode = 400;
        return res.end('{"error": "bad image"}');
      default:
        res.statusCode = 404;
        return res.end('{}');
    }
  });
  base = fake.url;
});
afterAll(() => fake.close());

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]);
const step: JudgeInput = {
  instruction: 'Turn on Wi-Fi', step: 1, action: { action_type: 'open_app', app_name: 'Settings' }, elements: [],
  foreground: { package: 'com.google.android.apps.nexuslauncher', activity: 'Launcher' },
  history: [{ action: { action_type: 'navigate_home' }, description: 'Go home' }], screenshot: PNG,
};
const sleeps: number[] = [];
const judge = (path: string, extra: Record<string, unknown> = {}) =>
  new VlmJudge(parseVlmJudgeConfig({ baseUrl: `${base}/${path}`, model: 'fake-vl', timeoutMs: 150, backoffMs: 10, ...extra }), {
    sleep: async (ms) => void sleeps.push(ms),
  });

describe('VLM judge against a fake OpenAI-compatible endpoint', () => {
  it('good: sends the prompt with the screenshot as a base64 PNG image part and reads P(correct) from the log-probs', async () => {
    const [v] = await judge('good').judge([step]);
    expect(v).toMatchObject({ p: expect.closeTo(0.8, 6) });
    expect(v!.p !== null && v!.explanation).toMatch(/correct.*log-probs.*opens the right app/);
    const req = fake.requests.at(-1)!;
    expect(req.path).toBe('/good/chat/completions');
    expect(req.body).toMatchObject({ model: 'fake-vl', temperature: 0, logprobs: true });
    expect(req.body.messages[0].content).toMatch(/Expert Evaluator for an Android GUI Agent/);
    const parts = req.body.messages[1].content;
    expect(parts[0].text).toMatch(/Instruction: Turn on Wi-Fi[\s\S]*1\. Go home[\s\S]*open app "Settings"/);
    expect(parts[1]).toEqual({ type: 'image_url', image_url: { url: `data:image/png;base64,${Buffer.from(PNG).toString('base64')}` } });
  });

  it('an answer without log-probs (in a code fence) gives the hard verdict as p', async () => {
    const [v] = await judge('nologprobs').judge([step]);
    expect(v).toMatchObject({ p: 0 });
    expect(v!.p !== null && v!.explanation).toMatch(/incorrect.*no log-probs.*wrong toggle/);
  });

  it('down: a refused connection is retried with exponential backoff, then the step is unjudged with the reason', async () => {
    sleeps.length = 0;
    const down = new VlmJudge(parseVlmJudgeConfig({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', retries: 3, backoffMs: 100 }), { sleep: async (ms) => void sleeps.push(ms) });
    const [v] = await down.judge([step]);
    expect(v).toMatchObject({ p: null, reason: expect.stringMatching(/^unjudged: request failed.*127\.0\.0\.1:1/) });
    expect(sleeps).toEqual([100, 200, 400]);
  });

  it('slow: each attempt times out, the step is unjudged saying so', async () => {
    sleeps.length = 0;
    const before = fake.requests.length;
    const [v] = await judge('slow', { retries: 1 }).judge([step]);
    expect(v).toMatchObject({ p: null, reason: expect.stringMatching(/no answer within 150 ms/) });
    expect(fake.requests.length - before).toBe(2);
    expect(sleeps).toEqual([10]);
  });

  it('garbage: an answer without the JSON verdict, or a reply that is not JSON, is unjudged at once (no retry), never p = 0', async () => {
    const before = fake.requests.length;
    const [g] = await judge('garbage').judge([step]);
    expect(g).toMatchObject({ p: null, reason: expect.stringMatching(/no JSON object in the answer "I think/) });
    const [h] = await judge('notjson').judge([step]);
    expect(h).toMatchObject({ p: null, reason: expect.stringMatching(/not JSON.*proxy error/) });
    expect(fake.requests.length - before).toBe(2);
  });

  it('a 503 is retried until the endpoint answers; a 400 is not retried', async () => {
    const [v] = await judge('flaky', { retries: 3 }).judge([step]);
    expect(v).toMatchObject({ p: 1 });
    expect(flakyCalls).toBe(3);
    const before = fake.requests.length;
    const [b] = await judge('http400').judge([step]);
    expect(b).toMatchObject({ p: null, reason: expect.stringMatching(/HTTP 400.*bad image/) });
    expect(fake.requests.length - before).toBe(1);
  });

  it('a step without a screenshot is unjudged without a request; an aborted caller gets the abort, not a verdict', async () => {
    const before = fake.requests.length;
    const { screenshot: _drop, ...noShot } = step;
    const [v] = await judge('good').judge([noShot]);
    expect(v).toMatchObject({ p: null, reason: expect.stringMatching(/no screenshot/) });
    expect(fake.requests.length).toBe(before);
    const ac = new AbortController();
    ac.abort(new Error('stopped by user'));
    await expect(judge('slow').judge([step], ac.signal)).rejects.toThrow(/stopped by user/);
  });

  it('judges many steps in order with bounded concurrency', async () => {
    const vs = await judge('good', { concurrency: 2 }).judge(Array.from({ length: 5 }, (_, i) => ({ ...step, step: i })));
    expect(vs).toHaveLength(5);
    expect(vs.every((v) => v.p !== null && Math.abs(v.p - 0.8) < 1e-6)).toBe(true);
  });

  it('refuses a bad config listing every problem', () => {
    try {
      parseVlmJudgeConfig({ baseUrl: 'not a url', model: '', retries: -1 });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(VlmJudgeConfigError);
      expect((e as VlmJudgeConfigError).problems).toHaveLength(3);
    }
  });
});
