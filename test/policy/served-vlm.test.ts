import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { main } from '../../core/cli/main.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { runEpisode } from '../../core/episode/runner.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { createRun, exportEpisodes, importEpisodes, loadTrajectory, openStore, StoreRecorder, type EpisodeId } from '../../core/store/index.js';
import { pngSize, smartResize, VlmPolicy, type ChatMessage, type VlmPolicySettingsInput } from '../../core/policy/vlm/index.js';
import { startFakeChat, type FakeChat } from '../helpers/fake-chat.js';
import { tempDir } from '../store/helpers.js';
import { startServedVlm, tokenIds, type ServedVlm } from './served-vlm.js';

/**
 * The VLM policy against a REAL OpenAI-compatible server: `transformers serve` with the tiny random
 * Qwen2.5-VL on loopback (one server for the file). The model is untrained, so its outputs are
 * garbage: every step must be a recorded format error with the server's usage and the request time,
 * never a crash. A small proxy (fake-chat) stands in only for what the real server cannot produce on
 * demand (a reply that is not JSON or has no choices); the last test kills the real server mid-episode.
 */
let served: ServedVlm;
let tmp: ReturnType<typeof tempDir>;
const devices: SimDroid[] = [];

beforeAll(async () => {
  tmp = tempDir('awb-served-vlm-');
  served = await startServedVlm();
}, 180_000);

afterAll(async () => {
  await served?.stop();
  for (const d of devices.splice(0)) d.close();
  tmp?.cleanup();
});

async function awb(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err, json: () => JSON.parse(out.at(-1)!) };
}

const MAX_TOKENS = 16;
const vlmFlags = (baseUrl: string, model: string, format: string) => [
  '--policy', 'vlm', '--base-url', baseUrl, '--model', model, '--format', format, '--server', 'transformers',
  '--max-tokens', String(MAX_TOKENS), '--retries', '0', '--timeout-ms', '60000',
];

describe('awb run --policy vlm against transformers serve (tiny Qwen2.5-VL)', () => {
  for (const format of ['qwen-mobile-use', 'androidworld'] as const) {
    it(`${format}: a whole episode of the untrained model's garbage, each step a recorded format error with usage and request time`, async () => {
      const db = join(tmp.dir, `${format}.db`);
      const r = await awb('run', '--task', 'ClockStopwatchRun', '--seed', '0', ...vlmFlags(served.baseUrl, served.model, format),
        '--max-steps', '3', '--on-malformed', 'continue', '--db', db, '--json');
      expect(r.code, r.err.join('\n')).toBe(0);
      const s = r.json();
      expect(s).toMatchObject({ status: 'failure', terminatedBy: 'max_steps', steps: 3, policy: `vlm:${served.model}` });
      for (const a of s.actions) {
        expect(a.error.name).toBe('ActionParseError');
        expect(a.error.message).toMatch(/"vlm_format_error":"(VlmFormatError|VlmCoordinateError): /);
        expect(a.usage.completionTokens).toBeGreaterThan(0);
        expect(a.usage.completionTokens).toBeLessThanOrEqual(MAX_TOKENS);
        expect(a.requestMs).toBeGreaterThan(0);
      }
      // The store keeps the completion verbatim, the usage and the request time; the export carries them.
      const store = openStore(db);
      try {
        const t = loadTrajectory(store, s.episode as EpisodeId);
        expect(t.steps.map((x) => x.usage)).toEqual(s.actions.map((a: { usage: unknown }) => a.usage));
        expect(t.steps.every((x) => x.thought !== undefined && x.thought === (x.raw as { output: string }).output)).toBe(true);
        expect(t.steps.every((x) => x.timings.requestMs! > 0 && x.timings.requestMs! <= x.timings.policyMs)).toBe(true);
        const dir = join(tmp.dir, `${format}-export`);
        exportEpisodes(store, [s.episode as EpisodeId], dir);
        const line = JSON.parse(readFileSync(join(dir, 'episodes.jsonl'), 'utf8').trim());
        expect(line.steps[0].usage).toEqual({ prompt_tokens: t.steps[0]!.usage!.promptTokens, completion_tokens: t.steps[0]!.usage!.completionTokens });
        expect(line.steps[0].timings.request_ms).toBe(t.steps[0]!.timings.requestMs);
        // … and an import reads them back.
        const other = openStore(':memory:');
        const { imported } = await importEpisodes(other, dir);
        expect(loadTrajectory(other, imported[0]!).steps.map((x) => [x.usage, x.timings.requestMs])).toEqual(t.steps.map((x) => [x.usage, x.timings.requestMs]));
        other.close();
      } finally {
        store.close();
      }
      expect(served.log()).toContain(`[Request received] Model: ${served.model}@main`);
    }, 120_000);
  }

  it('the screenshot reaches the server resized with the settings\' pixel bounds: the prompt grows by exactly the image tokens', async () => {
    const device = new SimDroid({ serial: 'simdroid-served-bounds' });
    devices.push(device);
    const instance = instantiate(getTemplate('ClockStopwatchRun'), 0);
    const bounds = { minPixels: 3136, maxPixels: 200_704 };
    // The same step's request, as sent and without its image part, straight to the server.
    const sent: ChatMessage[][] = [];
    const settings: VlmPolicySettingsInput = {
      endpoint: { baseUrl: served.baseUrl, model: served.model, server: 'transformers', retries: 0 }, format: 'qwen-mobile-use', maxTokens: 1, ...bounds,
    };
    const policy = new VlmPolicy(settings, { onRequest: (_k, m) => sent.push(structuredClone(m as ChatMessage[])) });
    const result = await runEpisode({ device, instance, policy, screenshots: 'half', maxSteps: 1 });
    const usage = result.steps[0]!.usage!;
    const png = Buffer.from((sent[0]!.at(-1)!.content as Array<{ type: string; image_url?: { url: string } }>).find((p) => p.type === 'image_url')!.image_url!.url.split(',')[1]!, 'base64');
    const withoutImage = sent[0]!.map((m) => ({ ...m, content: typeof m.content === 'string' ? m.content : m.content.filter((p) => p.type === 'text') }));
    const direct = async (extra: Record<string, unknown>) => {
      const r = await fetch(`${served.baseUrl}/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: served.model, messages: withoutImage, max_tokens: 1, temperature: 0, ...extra }),
      });
      return ((await r.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
    };
    const textOnly = await direct({ chat_template_kwargs: { min_pixels: bounds.minPixels, max_pixels: bounds.maxPixels } });
    const resized = smartResize(pngSize(png)!, bounds.minPixels, bounds.maxPixels);
    // One token per 28×28 merged patch, plus <|vision_start|> and <|vision_end|>.
    expect(usage.promptTokens - textOnly).toBe((resized.width * resized.height) / (28 * 28) + 2);
    expect(resized.width * resized.height).toBeGreaterThan(100_000); // not the model's own 12544-pixel cap
  }, 120_000);
});

/**
 * `transformers serve` parses a Qwen2.5-VL reply's `<tool_call>` itself (its response parser for the model type).
 * The untrained model never writes one, so the request's `generation_config` steers greedy decoding with a sequence
 * bias onto a chosen completion (each token, given the ones before it, gets a bias; the first token's bias holds at
 * every position, so the later ones get more), then the end-of-turn token.
 */
describe("transformers serve's own tool-call parsing of qwen-mobile-use replies", () => {
  const WELL_FORMED = '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "open", "text": "Clock"}}\n</tool_call>';
  const NOT_JSON = '<tool_call>\n{"name": "mobile_use", "arguments": {"action": \n</tool_call>';
  const BEFORE_NOT_JSON = 'I open the clock.\n<tool_call>\n{"name": "mobile_use", "arguments": {"action": "open", "text": "Clock"}\n</tool_call>';
  const steered = new Map<string, string>();
  beforeAll(() => {
    // Both completions' token ids and the end-of-turn id (<|im_end|>) from the model folder's tokenizer, in one Python run.
    const { ids, eos } = tokenIds(served.model, [WELL_FORMED, NOT_JSON, BEFORE_NOT_JSON]);
    [WELL_FORMED, NOT_JSON, BEFORE_NOT_JSON].forEach((completion, k) => {
      const chain = [...ids[k]!, eos];
      // Biases must be floats in the JSON (transformers refuses integers), hence the .5.
      steered.set(completion, JSON.stringify({ do_sample: false, eos_token_id: eos, max_new_tokens: chain.length + 4, sequence_bias: chain.map((_, i) => [chain.slice(0, i + 1), 40.5 + 2 * i]) }));
    });
  }, 60_000);
  const step = async (completion: string) => {
    const device = new SimDroid({ serial: `simdroid-served-tool-${devices.length}` });
    devices.push(device);
    const policy = new VlmPolicy({
      endpoint: { baseUrl: served.baseUrl, model: served.model, server: 'transformers', retries: 0 }, format: 'qwen-mobile-use', maxTokens: 64,
      extraBody: { generation_config: steered.get(completion)! },
    });
    const r = await runEpisode({ device, instance: instantiate(getTemplate('ClockStopwatchRun'), 0), policy, screenshots: 'half', maxSteps: 1, onMalformed: 'continue' });
    return Object.assign(r, { exchanges: policy.takeExchanges() });
  };

  it('a well-formed call comes back as tool_calls (content stripped) and is executed as the text it was: open Clock', async () => {
    const r = await step(WELL_FORMED);
    expect(r.steps[0]!.error).toBeUndefined();
    expect(r.steps[0]!.action).toEqual({ action_type: 'open_app', app_name: 'Clock' });
    // The recorded completion is the call written back as text by VlmClient (compact JSON), not the model's own
    // spaced text: the server moved the call into tool_calls.
    expect(r.steps[0]!.thought).toContain('<tool_call>');
    expect(r.steps[0]!.thought).toContain('"arguments":{"action":"open","text":"Clock"}');
    expect(r.steps[0]!.thought).not.toContain('{"name": "mobile_use"');
  }, 60_000);

  it('a call that is not JSON: the server fails on it, the reply is recovered from its stream and is a format error the episode continues from', async () => {
    const r = await step(NOT_JSON);
    // One step (maxSteps 1), recorded as the format's error, not a policy error: --on-malformed continue goes on.
    expect(r).toMatchObject({ terminatedBy: 'max_steps' });
    expect(r.error).toBeUndefined();
    expect(r.steps[0]!.error!.name).toBe('ActionParseError');
    expect(r.steps[0]!.error!.message).toMatch(/VlmFormatError/);
    // The reply as the model wrote it: the region verbatim in its tags.
    expect(r.steps[0]!.thought).toBe(NOT_JSON);
    // The server did fail on it: its stream ended with its parser's error, which the exchange keeps.
    expect(r.exchanges[0]!.recovered).toMatch(/json parser could not parse region as JSON/);
  }, 60_000);

  it('text before a broken call is kept too', async () => {
    const r = await step(BEFORE_NOT_JSON);
    expect(r.error).toBeUndefined();
    expect(r.steps[0]!.thought).toBe(BEFORE_NOT_JSON);
    expect(r.steps[0]!.error!.name).toBe('ActionParseError');
  }, 60_000);
});

describe('a preset against transformers serve', () => {
  it('ui-tars-1.5-7b: the official request shape (system, prompt, earlier replies after their screenshots) is served, and each step records it', async () => {
    const db = join(tmp.dir, 'preset.db');
    const r = await awb('run', '--task', 'ClockStopwatchRun', '--seed', '0', '--policy', 'vlm', '--base-url', served.baseUrl, '--model', served.model,
      '--preset', 'ui-tars-1.5-7b', '--server', 'transformers', '--max-tokens', '8', '--retries', '0', '--max-steps', '3', '--on-malformed', 'continue', '--db', db, '--json');
    expect(r.code, r.err.join('\n')).toBe(0);
    expect(r.json()).toMatchObject({ terminatedBy: 'max_steps', steps: 3 });
    const store = openStore(db);
    const t = loadTrajectory(store, r.json().episode as EpisodeId);
    store.close();
    const images = t.steps.map((s) => s.request!.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content)).filter((p) => p.type === 'image').map((p) => (p as { step: number }).step));
    expect(images).toEqual([[0], [0, 1], [0, 1, 2]]);
    expect(t.steps.every((s) => s.usage!.promptTokens > 0)).toBe(true);
  }, 120_000);
});

describe("docs/policy-vlm.md's transformers serve commands", () => {
  it('the /load_model curl, as the docs write it, loads a model folder (its last event is ready)', () => {
    const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'policy-vlm.md'), 'utf8');
    const line = doc.split('\n').find((l) => l.startsWith('curl') && l.includes('/load_model'))!;
    const command = line.split('   #')[0]!.replace('http://127.0.0.1:8011', served.url).replace('/path/to/model-folder', served.model);
    const out = execFileSync('bash', ['-c', command], { encoding: 'utf8', timeout: 60_000 });
    const events = out.split('\n').filter((l) => l.startsWith('data: ')).map((l) => JSON.parse(l.slice(6)) as { status: string });
    expect(events.at(-1)?.status, out.slice(0, 300)).toBe('ready');
  }, 60_000);
});

describe('bad answers end the episode cleanly, keeping what was recorded', () => {
  let proxy: FakeChat | null = null;
  afterAll(async () => proxy?.close());

  /** Forwards requests to the real server, but answers request `k` (0-based) with `bad` instead. */
  async function proxyWith(k: number, bad: (res: ServerResponse) => void) {
    await proxy?.close();
    let n = 0;
    proxy = await startFakeChat((req, res) => {
      if (n++ === k) return bad(res);
      void fetch(`${served.url}${req.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(req.body) })
        .then(async (r) => res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' }).end(await r.text()));
    });
    return proxy;
  }

  let runs = 0;
  async function runVia(baseUrl: string, model: string, extra: string[] = []) {
    const db = join(tmp.dir, `bad-${runs++}.db`);
    const r = await awb('run', '--task', 'ClockStopwatchRun', '--seed', '0', ...vlmFlags(baseUrl, model, 'qwen-mobile-use'),
      '--max-steps', '3', '--on-malformed', 'continue', '--db', db, '--json', ...extra);
    expect(r.code, r.err.join('\n')).toBe(0);
    const s = r.json();
    const store = openStore(db);
    const t = loadTrajectory(store, s.episode as EpisodeId);
    store.close();
    return { s, t };
  }

  it('a model folder the server does not have: its real HTTP 500, one line, the episode an error', async () => {
    const { s, t } = await runVia(served.baseUrl, join(tmp.dir, 'no-such-model'));
    expect(s).toMatchObject({ status: 'error', terminatedBy: 'policy_error', steps: 0 });
    expect(s.error.name).toBe('VlmEndpointError');
    expect(s.error.message).toMatch(/HTTP 500: Internal Server Error \(after 1 attempt\)$/);
    expect(s.error.message).not.toContain('\n');
    expect(t.episode.status).toBe('error');
  }, 60_000);

  it('vLLM\'s pixel field sent to transformers serve: its real 422 names the field (not retried)', async () => {
    const { s } = await runVia(served.baseUrl, served.model, ['--server', 'vllm', '--retries', '2']);
    expect(s).toMatchObject({ status: 'error', terminatedBy: 'policy_error' });
    expect(s.error.message).toMatch(/HTTP 422: .*Unexpected fields in the request: .*mm_processor_kwargs.*\(after 1 attempt\)$/);
  }, 60_000);

  type Bad = (res: ServerResponse) => void;
  for (const [what, bad, message] of [
    ['not JSON', (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>502 Bad Gateway</html>'), /the endpoint's reply is not JSON/],
    ['JSON without choices', (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"object":"error","message":"overloaded"}'), /not a chat completion \(no choices/],
    ['a 500', (res: ServerResponse) => res.writeHead(500).end('boom'), /HTTP 500: boom/],
  ] as Array<[string, Bad, RegExp]>) {
    it(`a reply that is ${what} at the second step: the first step (a real completion) is kept, the error is one line`, async () => {
      const p = await proxyWith(1, bad);
      const { s, t } = await runVia(`${p.url}/v1`, served.model);
      expect(s).toMatchObject({ status: 'error', terminatedBy: 'policy_error', steps: 1 });
      expect(s.error.name).toBe('VlmEndpointError');
      expect(s.error.message).toMatch(message);
      expect(s.error.message).not.toContain('\n');
      expect(t.steps).toHaveLength(1);
      expect(t.steps[0]!.usage!.promptTokens).toBeGreaterThan(0);
      // The request body carried the bounds in transformers serve's field.
      expect(p.requests[0]!.body.chat_template_kwargs).toEqual({ min_pixels: 3136, max_pixels: 12_845_056 });
      expect(p.requests[0]!.body.mm_processor_kwargs).toBeUndefined();
      expect(p.requests[0]!.body.max_tokens).toBe(MAX_TOKENS);
    }, 60_000);
  }

  it('the server killed mid-episode: the episode ends as a policy error, the steps before stay in the store', async () => {
    const device = new SimDroid({ serial: 'simdroid-served-kill' });
    devices.push(device);
    const store = openStore(join(tmp.dir, 'kill.db'));
    try {
      const run = createRun(store, { kind: 'single', name: 'kill', config: {} });
      const recorder = new StoreRecorder(store, run.id);
      const policy = new VlmPolicy({
        endpoint: { baseUrl: served.baseUrl, model: served.model, server: 'transformers', retries: 1, backoffMs: 1 }, format: 'androidworld', maxTokens: MAX_TOKENS,
      });
      const result = await runEpisode({
        device, instance: instantiate(getTemplate('ClockStopwatchRun'), 0), policy, screenshots: 'half', maxSteps: 5, onMalformed: 'continue', recorder,
        onStepDone: async (step) => {
          if (step.index === 1) await served.kill();
        },
      });
      expect(result).toMatchObject({ status: 'error', terminatedBy: 'policy_error' });
      expect(result.steps).toHaveLength(2);
      expect(result.error!.name).toBe('VlmEndpointError');
      expect(result.error!.message).toMatch(/request failed: fetch failed \(.*ECONNREFUSED.*\) \(after 2 attempts\)$/);
      const t = loadTrajectory(store, recorder.episodeId!);
      expect(t.episode.status).toBe('error');
      expect(t.steps.map((x) => x.usage !== undefined)).toEqual([true, true]);
    } finally {
      store.close();
    }
  }, 60_000);
});
