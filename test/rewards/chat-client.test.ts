import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatClient, type ChatEndpoint } from '../../core/llm/chat-client.js';
import { replyChat, startFakeChat, type FakeChat } from '../helpers/fake-chat.js';

/** Path prefix picks the behaviour: /ok, /status/CODE (always that status), /s408then (408 once, then ok). */
let fake: FakeChat;
let calls408 = 0;
beforeAll(async () => {
  fake = await startFakeChat((req, res) => {
    const [, mode, arg] = req.path.split('/');
    if (mode === 'ok') return replyChat(res, 'hello');
    if (mode === 'status') return res.writeHead(Number(arg)).end(`status ${arg}`);
    if (mode === 's408then' && calls408++ === 0) return res.writeHead(408).end('timeout');
    return replyChat(res, 'after 408');
  });
});
afterAll(() => fake.close());

const endpoint = (path: string, extra: Partial<ChatEndpoint> = {}): ChatEndpoint => ({
  baseUrl: `${fake.url}/${path}/`, model: 'm', apiKey: 'key', timeoutMs: 500, retries: 3, backoffMs: 100, ...extra,
});

describe('ChatClient', () => {
  it('posts {model, ...request} to {baseUrl}/chat/completions with the bearer token and returns the first choice', async () => {
    const r = await new ChatClient(endpoint('ok')).complete({ temperature: 0, messages: [{ role: 'user', content: 'hi' }] });
    expect(r).toMatchObject({ ok: true, attempts: 1, choice: { message: { content: 'hello' } } });
    expect(fake.requests.at(-1)).toMatchObject({ path: '/ok/chat/completions', auth: 'Bearer key', body: { model: 'm', temperature: 0 } });
  });

  it('retries a 408 like a 5xx', async () => {
    const sleeps: number[] = [];
    const r = await new ChatClient(endpoint('s408then'), { sleep: async (ms) => void sleeps.push(ms) }).complete({});
    expect(r).toMatchObject({ ok: true, attempts: 2 });
    expect(sleeps).toEqual([100]);
  });

  it('doubles the delay up to maxBackoffMs, then reports the endpoint failure with the last reason', async () => {
    const sleeps: number[] = [];
    const r = await new ChatClient(endpoint('status/503', { maxBackoffMs: 250 }), { sleep: async (ms) => void sleeps.push(ms) }).complete({});
    expect(sleeps).toEqual([100, 200, 250]);
    expect(r).toEqual({ ok: false, kind: 'endpoint', attempts: 4, reason: 'HTTP 503: status 503' });
  });

  it('does not retry a 404, and returns at once', async () => {
    const before = fake.requests.length;
    const r = await new ChatClient(endpoint('status/404')).complete({});
    expect(r).toMatchObject({ ok: false, kind: 'endpoint', attempts: 1, reason: expect.stringMatching(/^HTTP 404/) });
    expect(fake.requests.length - before).toBe(1);
  });

  it('throws the caller\'s abort reason instead of returning a result', async () => {
    const ac = new AbortController();
    const sleep = async () => ac.abort(new Error('user stop'));
    await expect(new ChatClient(endpoint('status/500'), { sleep }).complete({}, ac.signal)).rejects.toThrow('user stop');
  });
});
