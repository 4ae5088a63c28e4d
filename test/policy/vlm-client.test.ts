import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { startFakeChat, type FakeChat, type FakeChatRequest } from '../helpers/fake-chat.js';
import { MissingApiKeyError, VLM_FORMATS, VlmClient, VlmEndpointError, VlmEndpointSettings, type VlmFormatId } from '../../core/policy/vlm/index.js';
import { Semaphore, SemaphoreLimitError, endpointSemaphore } from '../../core/llm/semaphore.js';
import { redact, redactDeep } from '../../core/llm/redact.js';

const fixture = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/vlm/${name}`, import.meta.url), 'utf8'));

/** Serves a recorded response file as the endpoint wrote it (status, JSON body or raw text). */
function serveRecorded(res: ServerResponse, rec: { status: number; body?: unknown; raw?: string }) {
  res.writeHead(rec.status, { 'content-type': rec.raw ? 'text/html' : 'application/json' }).end(rec.raw ?? JSON.stringify(rec.body));
}

let fake: FakeChat | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

// Each test uses its own path prefix, so the process-wide semaphores of different tests are distinct.
let n = 0;
const settings = (url: string, extra: Record<string, unknown> = {}) => VlmEndpointSettings.parse({
  baseUrl: `${url}/t${n++}/v1`, model: 'test-model', timeoutMs: 2000, retries: 2, backoffMs: 1, ...extra,
});
const msgs = [{ role: 'user' as const, content: 'hi' }];
const noSleep = { sleep: async () => {} };

describe('VlmClient against recorded responses', () => {
  for (const [file, format] of [
    ['vllm-androidworld.json', 'androidworld'], ['vllm-ui-tars.json', 'ui-tars'], ['vllm-mobilerl.json', 'mobilerl'], ['vllm-qwen-mobile-use.json', 'qwen-mobile-use'],
  ] as const) {
    it(`recorded responses: a vLLM completion in the ${format} format parses to the recorded action`, async () => {
      const rec = fixture(file);
      fake = await startFakeChat((_r, res) => serveRecorded(res, rec));
      const client = new VlmClient(settings(fake.url));
      const c = await client.complete(msgs, { temperature: 0, max_tokens: 64 });
      expect(c.attempts).toBe(1);
      expect(c.text).toBe(rec.body.choices[0].message.content);
      const parsed = VLM_FORMATS[format as VlmFormatId].parse(c.text, { screen: { width: 1080, height: 2400 }, coordinates: 'screen' });
      expect(parsed.action).toEqual(rec.expected);
      expect(fake.requests[0]!.body).toMatchObject({ model: 'test-model', temperature: 0, max_tokens: 64, messages: msgs });
      expect(fake.requests[0]!.path).toMatch(/\/v1\/chat\/completions$/);
    });
  }

  it('recorded responses: vLLM 500s are retried, then a VlmEndpointError with the attempts', async () => {
    const rec = fixture('vllm-500.json');
    fake = await startFakeChat((_r, res) => serveRecorded(res, rec));
    const e = await new VlmClient(settings(fake.url, { retries: 2 }), noSleep).complete(msgs, {}).catch((x) => x);
    expect(e).toBeInstanceOf(VlmEndpointError);
    expect(e).toMatchObject({ kind: 'endpoint', attempts: 3 });
    expect(e.message).toMatch(/HTTP 500: .*EngineCore/);
    expect(fake.requests).toHaveLength(3);
  });

  it('recorded responses: a 500 then a completion succeeds on the second attempt', async () => {
    const bad = fixture('vllm-500.json');
    const good = fixture('vllm-ui-tars.json');
    fake = await startFakeChat((_r, res) => serveRecorded(res, fake!.requests.length === 1 ? bad : good));
    const c = await new VlmClient(settings(fake.url), noSleep).complete(msgs, {});
    expect(c.attempts).toBe(2);
    expect(c.text).toMatch(/open_app/);
  });

  it('recorded responses: a 400 (context too long) is not retried', async () => {
    fake = await startFakeChat((_r, res) => serveRecorded(res, fixture('vllm-400-context.json')));
    const e = await new VlmClient(settings(fake.url), noSleep).complete(msgs, {}).catch((x) => x);
    expect(e).toBeInstanceOf(VlmEndpointError);
    expect(e).toMatchObject({ kind: 'endpoint', attempts: 1 });
    expect(e.message).toMatch(/maximum context length/);
    expect(fake.requests).toHaveLength(1);
  });

  it('recorded responses: garbage (an HTML page with 200) is a reply error, not retried', async () => {
    fake = await startFakeChat((_r, res) => serveRecorded(res, fixture('proxy-html.json')));
    const e = await new VlmClient(settings(fake.url), noSleep).complete(msgs, {}).catch((x) => x);
    expect(e).toBeInstanceOf(VlmEndpointError);
    expect(e).toMatchObject({ kind: 'reply', attempts: 1 });
    expect(e.message).toMatch(/not JSON/);
  });

  it('recorded responses: tool_calls with null content (vLLM --tool-call-parser hermes) is the call in <tool_call> markup, which qwen-mobile-use parses', async () => {
    const rec = fixture('vllm-tool-calls-null-content.json');
    fake = await startFakeChat((_r, res) => serveRecorded(res, rec));
    const c = await new VlmClient(settings(fake.url), noSleep).complete(msgs, {});
    expect(c.text).toBe('<tool_call>\n{"name":"mobile_use","arguments":{"action":"click","coordinate":[10,10]}}\n</tool_call>');
    const ctx = { screen: { width: 1092, height: 2408 }, coordinates: 'smart-resize' as const };
    expect(VLM_FORMATS['qwen-mobile-use'].parse(c.text, ctx).action).toEqual({ action_type: 'click', x: 10, y: 10 });
  });

  it('tool_calls: text beside the calls is kept before them; two calls are a format error; neither text nor calls is a reply error', async () => {
    const call = (args: string) => ({ id: 'c', type: 'function', function: { name: 'mobile_use', arguments: args } });
    const bodies = [
      { choices: [{ message: { content: 'Tap Save.', tool_calls: [call('{"action": "system_button", "button": "Menu"}')] } }] },
      { choices: [{ message: { content: null, tool_calls: [call('{"action": "click", "coordinate": [1, 1]}'), call('{"action": "wait", "time": 1}')] } }] },
      { choices: [{ message: { content: null, tool_calls: [] } }] },
    ];
    let k = 0;
    fake = await startFakeChat((_r, res) => serveRecorded(res, { status: 200, body: bodies[k++] }));
    const client = new VlmClient(settings(fake.url), noSleep);
    const ctx = { screen: { width: 1092, height: 2408 }, coordinates: 'smart-resize' as const };
    const one = await client.complete(msgs, {});
    expect(one.text).toMatch(/^Tap Save\.\n<tool_call>\n/);
    expect(VLM_FORMATS['qwen-mobile-use'].parse(one.text, ctx)).toEqual({ action: { action_type: 'press_key', key: 'APP_SWITCH' }, thought: 'Tap Save.' });
    const two = await client.complete(msgs, {});
    expect(() => VLM_FORMATS['qwen-mobile-use'].parse(two.text, ctx)).toThrow(/2 tool calls/);
    const none = await client.complete(msgs, {}).catch((x) => x);
    expect(none).toMatchObject({ name: 'VlmEndpointError', kind: 'reply' });
    expect(none.message).toMatch(/no choices\[0\]\.message\.content or tool_calls/);
  });

  it('a hung endpoint times out on every attempt: VlmEndpointError naming the timeout', async () => {
    fake = await startFakeChat(() => {});
    const t0 = performance.now();
    const e = await new VlmClient(settings(fake.url, { timeoutMs: 80, retries: 1 }), noSleep).complete(msgs, {}).catch((x) => x);
    expect(e).toBeInstanceOf(VlmEndpointError);
    expect(e.message).toMatch(/no answer within 80 ms.*after 2 attempts/);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(150);
  });

  it('an unreachable endpoint is a VlmEndpointError after the retries', async () => {
    fake = await startFakeChat(() => {});
    const url = fake.url;
    await fake.close();
    fake = null;
    const e = await new VlmClient(settings(url, { retries: 1 }), noSleep).complete(msgs, {}).catch((x) => x);
    expect(e).toMatchObject({ name: 'VlmEndpointError', kind: 'endpoint', attempts: 2 });
    expect(e.message).toMatch(/request failed/);
  });

  it('retry delays double from backoffMs and are capped by maxBackoffMs', async () => {
    fake = await startFakeChat((_r, res) => serveRecorded(res, fixture('vllm-500.json')));
    const waits: number[] = [];
    await new VlmClient(settings(fake.url, { retries: 4, backoffMs: 100, maxBackoffMs: 300 }), { sleep: async (ms: number) => void waits.push(ms) })
      .complete(msgs, {}).catch(() => {});
    expect(waits).toEqual([100, 200, 300, 300]);
  });
});

describe('API key handling', () => {
  const KEY = 'sk-test-7f3a9c2e-DO-NOT-LEAK';
  const echoAuth = (status: number) => (r: FakeChatRequest, res: ServerResponse) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'error', message: `Invalid token: ${r.auth}`, code: status }));

  it('the key is sent as a bearer token and redacted from errors that echo it (401 and 500)', async () => {
    for (const status of [401, 500]) {
      fake = await startFakeChat(echoAuth(status));
      const e = await new VlmClient(settings(fake.url, { apiKey: KEY }), noSleep).complete(msgs, {}).catch((x) => x);
      expect(fake.requests[0]!.auth).toBe(`Bearer ${KEY}`);
      expect(e).toBeInstanceOf(VlmEndpointError);
      expect(e.message).not.toContain(KEY);
      expect(e.reason).not.toContain(KEY);
      expect(e.message).toContain('Bearer [redacted]');
      expect(JSON.stringify(e)).not.toContain(KEY);
      await fake.close();
      fake = null;
    }
  });

  it('apiKeyEnv reads the key from the environment; unset is a MissingApiKeyError naming the variable', async () => {
    fake = await startFakeChat((_r, res) => serveRecorded(res, fixture('vllm-ui-tars.json')));
    await new VlmClient(settings(fake.url, { apiKeyEnv: 'AWB_TEST_VLM_KEY' }), { env: { AWB_TEST_VLM_KEY: KEY } }).complete(msgs, {});
    expect(fake.requests[0]!.auth).toBe(`Bearer ${KEY}`);
    expect(() => new VlmClient(settings(fake!.url, { apiKeyEnv: 'AWB_TEST_VLM_KEY' }), { env: {} })).toThrow(MissingApiKeyError);
    expect(() => new VlmClient(settings(fake!.url, { apiKeyEnv: 'AWB_TEST_VLM_KEY' }), { env: {} })).toThrow(/\$AWB_TEST_VLM_KEY/);
  });

  it('settings refuse a key and a key variable together', () => {
    expect(VlmEndpointSettings.safeParse({ baseUrl: 'http://x/v1', model: 'm', apiKey: 'k', apiKeyEnv: 'K' }).success).toBe(false);
  });

  it('redact replaces every occurrence, in nested data too', () => {
    expect(redact('a k1 b k1', ['k1'])).toBe('a [redacted] b [redacted]');
    expect(redactDeep({ a: ['x k1'], b: { c: 'k1' }, d: 3 }, ['k1', undefined])).toEqual({ a: ['x [redacted]'], b: { c: '[redacted]' }, d: 3 });
  });
});

describe('concurrency limit per endpoint', () => {
  it('never more requests in flight than maxConcurrency, across clients of one endpoint', async () => {
    let inFlight = 0;
    let peak = 0;
    const rec = fixture('vllm-androidworld.json');
    fake = await startFakeChat((_r, res) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => {
        inFlight--;
        serveRecorded(res, rec);
      }, 40);
    });
    const s = settings(fake.url, { maxConcurrency: 2 });
    const clients = [new VlmClient(s), new VlmClient(s), new VlmClient(s)];
    expect(clients[0]!.semaphore).toBe(clients[2]!.semaphore);
    await Promise.all(Array.from({ length: 7 }, (_, i) => clients[i % 3]!.complete(msgs, {})));
    expect(fake.requests).toHaveLength(7);
    expect(peak).toBe(2);
  });

  it('the semaphore queues in order, releases on failure, and honours an abort while waiting', async () => {
    const s = new Semaphore(1);
    const order: number[] = [];
    let release!: () => void;
    const first = s.run(() => new Promise<void>((r) => (release = r)));
    const second = s.run(async () => void order.push(2));
    const ac = new AbortController();
    const third = s.run(async () => void order.push(3), ac.signal);
    ac.abort(new Error('stop'));
    await expect(third).rejects.toThrow('stop');
    release();
    await first;
    await second;
    await expect(s.run(async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(s.inFlight).toBe(0);
    expect(order).toEqual([2]);
    expect(() => new Semaphore(0)).toThrow(SemaphoreLimitError);
  });

  it('endpointSemaphore is one per base URL, and a new limit updates it', () => {
    const a = endpointSemaphore('http://sem-test:1/v1/', 3);
    expect(endpointSemaphore('http://sem-test:1/v1', 5)).toBe(a);
    expect(a.limit).toBe(5);
    expect(endpointSemaphore('http://sem-test:2/v1', 5)).not.toBe(a);
  });
});
