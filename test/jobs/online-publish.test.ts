import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AdapterNotServedError, PublishedAdapterError, ServedModelLoadError } from '../../core/remote-jobs/online-errors.js';
import { loadServedFolder, readPublished, servingRoot, unloadAdapter, waitUntilServed } from '../../core/remote-jobs/online-publish.js';
import { recordedMessages, UnknownRequestImageError } from '../../core/policy/vlm/prompt.js';

/** The serving half of an online VLM iteration, with a scripted fetch (no server). */
const dir = mkdtempSync(join(tmpdir(), 'awb-online-publish-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A fetch answering GET /v1/models from a script, one entry per call (the last repeats). */
function scripted(answers: Array<{ status: number; body: string } | Error>) {
  const calls: Array<{ url: string; auth: string | undefined; body?: unknown }> = [];
  const fetchImpl = (async (url: string, init?: RequestInit) => {
    calls.push({ url, auth: (init?.headers as Record<string, string> | undefined)?.authorization, ...(typeof init?.body === 'string' ? { body: JSON.parse(init.body) } : {}) });
    const a = answers[Math.min(calls.length - 1, answers.length - 1)]!;
    if (a instanceof Error) throw a;
    return new Response(a.body, { status: a.status });
  }) as typeof fetch;
  return { fetchImpl, calls };
}
const models = (...ids: string[]) => ({ status: 200, body: JSON.stringify({ object: 'list', data: ids.map((id) => ({ id })) }) });
const noSleep = async () => {};

describe('online GRPO: publish and switch helpers', () => {
  it('servingRoot drops the OpenAI /v1 suffix (the trainer and /v1/models hang off the server root)', () => {
    expect(servingRoot('http://gpu:8000/v1')).toBe('http://gpu:8000');
    expect(servingRoot('http://gpu:8000/v1/')).toBe('http://gpu:8000');
    expect(servingRoot('http://gpu:8000/prefix/v1')).toBe('http://gpu:8000/prefix');
    expect(servingRoot('http://gpu:8000')).toBe('http://gpu:8000');
  });

  it('waitUntilServed returns once /v1/models lists the adapter, tolerating a lagging list and a 503; the key goes only in the header', async () => {
    const { fetchImpl, calls } = scripted([{ status: 503, body: 'warming up sk-k' }, models('base'), models('base', 'wb-7')]);
    const listed = await waitUntilServed('http://gpu:8000', 'wb-7', { iteration: 2, apiKey: 'sk-k', fetch: fetchImpl, sleep: noSleep });
    expect(listed).toEqual(['base', 'wb-7']);
    expect(calls).toEqual(Array.from({ length: 3 }, () => ({ url: 'http://gpu:8000/v1/models', auth: 'Bearer sk-k' })));
  });

  it('an adapter never listed is AdapterNotServedError with the iteration, the name, what was listed; the key redacted', async () => {
    const { fetchImpl } = scripted([models('base')]);
    const err = await waitUntilServed('http://gpu:8000', 'wb-9', { iteration: 3, tries: 3, fetch: fetchImpl, sleep: noSleep }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterNotServedError);
    expect((err as Error).message).toBe('Online GRPO iteration 3: http://gpu:8000/v1/models did not list adapter "wb-9" after 3 tries (it lists "base")');
    const down = scripted([{ status: 401, body: 'bad key sk-secret' }]);
    const e2 = await waitUntilServed('http://gpu:8000', 'wb-9', { iteration: 1, tries: 2, apiKey: 'sk-secret', fetch: down.fetchImpl, sleep: noSleep }).catch((e: unknown) => e);
    expect((e2 as Error).message).toMatch(/after 2 tries; last: HTTP 401: bad key \[redacted\]$/);
    expect((e2 as Error).message).not.toContain('sk-secret');
  });

  it('readPublished checks the record and the adapter name', () => {
    const file = join(dir, 'published.json');
    const ok = { name: 'wb-000003-ab', baseUrl: 'http://gpu:8000', adapterPath: '/shared/jobs/000003-ab/artifacts/adapter', job: '000003-ab', model: 'awb-tiny-lm' };
    writeFileSync(file, JSON.stringify(ok));
    expect(readPublished(file, 1, '000003-ab', 'wb-000003-ab')).toEqual({ ...ok, server: 'vllm' }); // a record without server is vLLM's
    expect(() => readPublished(file, 1, '000003-ab', 'wb-other')).toThrow(PublishedAdapterError);
    writeFileSync(file, JSON.stringify({ ...ok, adapterPath: undefined }));
    expect(() => readPublished(file, 1, '000003-ab', 'wb-000003-ab')).toThrow(/published.json is not \{name, baseUrl, adapterPath, job, model\}: adapterPath/);
  });

  it('readPublished for transformers: the record must say so and name a servedPath folder called <name>-<job id>', () => {
    const file = join(dir, 'published-tf.json');
    const ok = { name: 'wb-000004-cd', baseUrl: 'http://gpu:8000', adapterPath: '/w/jobs/000004-cd/artifacts/adapter', job: '000004-cd', model: '/m/tiny', server: 'transformers', servedPath: '/w/jobs/000004-cd/served/wb-000004-cd' };
    writeFileSync(file, JSON.stringify(ok));
    expect(readPublished(file, 2, '000004-cd', 'wb-000004-cd', 'transformers')).toEqual(ok);
    expect(() => readPublished(file, 2, '000004-cd', 'wb-000004-cd', 'vllm')).toThrow(/published.json was published for transformers, the endpoint is vllm/);
    writeFileSync(file, JSON.stringify({ ...ok, servedPath: '/w/jobs/000004-cd/served/other' }));
    expect(() => readPublished(file, 2, '000004-cd', 'wb-000004-cd', 'transformers')).toThrow(/has servedPath "\/w\/jobs\/000004-cd\/served\/other", expected a folder named "wb-000004-cd"/);
    writeFileSync(file, JSON.stringify({ ...ok, servedPath: undefined }));
    expect(() => readPublished(file, 2, '000004-cd', 'wb-000004-cd', 'transformers')).toThrow(PublishedAdapterError);
  });

  it('unloadAdapter posts vLLM\'s {"lora_name"} to /v1/unload_lora_adapter; a refusal is returned (best effort), the key redacted', async () => {
    const ok = scripted([{ status: 200, body: "Success: LoRA adapter 'wb-1' removed successfully." }]);
    expect(await unloadAdapter('http://gpu:8000', 'wb-1', { apiKey: 'sk-k', fetch: ok.fetchImpl })).toBeNull();
    expect(ok.calls).toEqual([{ url: 'http://gpu:8000/v1/unload_lora_adapter', auth: 'Bearer sk-k', body: { lora_name: 'wb-1' } }]);
    const missing = scripted([{ status: 404, body: "The lora adapter 'wb-1' cannot be found. sk-k" }]);
    expect(await unloadAdapter('http://gpu:8000', 'wb-1', { apiKey: 'sk-k', fetch: missing.fetchImpl })).toBe("HTTP 404: The lora adapter 'wb-1' cannot be found. [redacted]");
    const down = scripted([new TypeError('fetch failed')]);
    expect(await unloadAdapter('http://gpu:8000', 'wb-1', { fetch: down.fetchImpl })).toBe('fetch failed');
  });

  it('loadServedFolder resets transformers serve, then loads the folder until its event stream says ready; an error event is ServedModelLoadError', async () => {
    const sse = (...events: object[]) => ({ status: 200, body: events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') });
    const ok = scripted([{ status: 200, body: '{"status":"ok"}' }, sse({ status: 'loading', stage: 'processor' }, { status: 'ready', model: '/w/s/wb-1@main', cached: false })]);
    await loadServedFolder('http://gpu:8000', '/w/s/wb-1', { iteration: 1, fetch: ok.fetchImpl });
    expect(ok.calls.map((c) => [c.url, c.body])).toEqual([['http://gpu:8000/reset', undefined], ['http://gpu:8000/load_model', { model: '/w/s/wb-1' }]]);
    const bad = scripted([{ status: 200, body: '{"status":"ok"}' }, sse({ status: 'loading' }, { status: 'error', message: 'Unrecognized model in /w/s/wb-1' })]);
    const err = await loadServedFolder('http://gpu:8000', '/w/s/wb-1', { iteration: 2, fetch: bad.fetchImpl }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServedModelLoadError);
    expect((err as Error).message).toBe('Online GRPO iteration 2: http://gpu:8000/load_model did not load "/w/s/wb-1": its last event is {"status":"error","message":"Unrecognized model in /w/s/wb-1"}');
    const noReset = scripted([{ status: 404, body: 'Not Found' }]);
    await expect(loadServedFolder('http://gpu:8000', '/w/s/wb-1', { iteration: 1, fetch: noReset.fetchImpl })).rejects.toThrow(/POST \/reset answered HTTP 404: Not Found/);
  });

  it('recordedMessages keeps the chat and turns every image part into the step whose screenshot it is', () => {
    const url = (b: string) => `data:image/png;base64,${b}`;
    const out = recordedMessages([
      { role: 'system', content: 'format rules' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: url('AAAA') } }, { type: 'text', text: 'Task: x' }, { type: 'image_url', image_url: { url: url('BBBB') } }] },
    ], new Map([[url('AAAA'), [{ step: 2 }]], [url('BBBB'), [{ step: 3, width: 10, height: 20 }]]]));
    expect(out).toEqual([{ role: 'system', content: 'format rules' }, { role: 'user', content: [{ type: 'image', step: 2 }, { type: 'text', text: 'Task: x' }, { type: 'image', step: 3, width: 10, height: 20 }] }]);
    expect(() => recordedMessages([{ role: 'user', content: [{ type: 'image_url', image_url: { url: url('CCCC') } }] }], new Map())).toThrow(UnknownRequestImageError);
  });
});
