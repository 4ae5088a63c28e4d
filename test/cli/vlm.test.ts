import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../core/cli/main.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { runEpisode } from '../../core/episode/runner.js';
import { instantiate } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { VlmPolicy } from '../../core/policy/vlm/index.js';
import { replyChat, startFakeChat, type FakeChat } from '../helpers/fake-chat.js';
import { tempDir } from '../store/helpers.js';

const AWB = fileURLToPath(new URL('../../bin/awb.js', import.meta.url));
const TRACE = fileURLToPath(new URL('../fixtures/vlm-traces/contacts-add-qwen-mobile-use.json', import.meta.url));

/** `awb …` as a user runs it: a child process through bin/awb.js (tsx), stdin piped in. */
function spawnAwb(argv: string[], stdin = ''): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [AWB, ...argv], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, out, err }));
    child.stdin.end(stdin);
  });
}

/** `awb …` in this process, stdin given as lines (the bad-input cases: no process start each). */
async function awb(argv: string[], stdin: string[] = []): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l), readLine: async () => stdin.shift() ?? null });
  return { code, out, err };
}

const click = (x: number, y: number) => `<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [${x}, ${y}]}}\n</tool_call>`;

let tmp: ReturnType<typeof tempDir>;
let parsed: Awaited<ReturnType<typeof spawnAwb>>;
let requested: Awaited<ReturnType<typeof spawnAwb>>;
beforeAll(async () => {
  tmp = tempDir('awb-vlm-cmd-');
  // Both user-level runs at once: each pays tsx's start-up.
  [parsed, requested] = await Promise.all([
    spawnAwb(['vlm', 'parse', '--format', 'qwen-mobile-use', '--screen', '1080x2400'], JSON.stringify([`I tap it.\n${click(475, 1009)}`, '<tool_call>{"name": "mobile_use"', click(600, 10)])),
    spawnAwb(['vlm', 'request', '--format', 'ui-tars', '--task', 'ContactsAddContact', '--seed', '0', '--step', '2', '--history-style', 'turns', '--history-images', '1', '--model', 'tars']),
  ]);
}, 60_000);
afterAll(() => tmp.cleanup());

describe('awb vlm parse', () => {
  it('prints one JSON line per reply: the device action in pixels, or the format error, and exits 0', () => {
    expect(parsed.code, parsed.err).toBe(0);
    const lines = parsed.out.trim().split('\n').map((l) => JSON.parse(l));
    // Qwen answers in the smart-resized half-scale screenshot: 540x1200 → 532x1204.
    expect(lines[0]).toEqual({ index: 0, action: { action_type: 'click', x: Math.round((475 * 1080) / 532), y: Math.round((1009 * 2400) / 1204) }, thought: 'I tap it.' });
    expect(lines[1]).toMatchObject({ index: 1, error: { name: 'VlmFormatError' } });
    expect(lines[2]).toMatchObject({ index: 2, error: { name: 'VlmCoordinateError', message: expect.stringContaining('outside the 1080x2400 screen') } });
    expect(lines).toHaveLength(3);
    expect(parsed.err).toContain("coordinates smart-resize (the model's frame 532x1204)");
  });

  it('reads one reply per line, and --image / --coordinates change the frame', async () => {
    const r = await awb(['vlm', 'parse', '--format', 'qwen-mobile-use', '--screen', '1080x2400', '--image', '1080x2400'], [click(475, 1009).replace(/\n/g, ' '), '']);
    expect(r.code).toBe(0);
    // The full screenshot smart-resizes to 1092x2408.
    expect(r.out.map((l) => JSON.parse(l))).toEqual([{ index: 0, action: { action_type: 'click', x: Math.round((475 * 1080) / 1092), y: Math.round((1009 * 2400) / 2408) } }]);
    const rel = await awb(['vlm', 'parse', '--format', 'qwen-mobile-use', '--screen', '1080x2400', '--coordinates', 'relative-1000'], [click(500, 1000).replace(/\n/g, ' ')]);
    expect(JSON.parse(rel.out[0]!).action).toEqual({ action_type: 'click', x: 540, y: 2399 });
  });

  it('refuses bad input with one named line and a non-zero code', async () => {
    const cases: Array<[string[], string[], RegExp]> = [
      [['--format', 'gpt', '--screen', '1080x2400'], ['x'], /^awb: Unknown VLM action format "gpt"; known: androidworld, ui-tars/],
      [['--format', 'ui-tars', '--screen', '1080'], ['x'], /^awb: --screen: must be WIDTHxHEIGHT in pixels/],
      [['--format', 'ui-tars'], ['x'], /^awb: --screen WxH is required/],
      [['--format', 'ui-tars', '--screen', '1080x2400'], [], /^awb: Replies from stdin: no replies/],
      [['--format', 'ui-tars', '--screen', '1080x2400'], ['["a",'], /^awb: Replies from stdin: starts with "\[" but is not a JSON array/],
    ];
    for (const [argv, stdin, msg] of cases) {
      const r = await awb(['vlm', 'parse', ...argv], stdin);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.err).toHaveLength(1);
      expect(r.err[0]).toMatch(msg);
      expect(r.out).toEqual([]);
    }
  });
});

describe('awb vlm request', () => {
  it("prints the request at step K after the oracle's steps, images elided with their sizes", () => {
    expect(requested.code, requested.err).toBe(0);
    const r = JSON.parse(requested.out);
    expect(r.task).toMatchObject({ template: 'ContactsAddContact', seed: 0 });
    expect(r.before).toEqual(['Open Contacts', 'Tap "Create contact" in Contacts']);
    expect(r.geometry).toMatchObject({ image: { width: 540, height: 1200 }, coordinates: 'relative-1000', frame: { width: 1000, height: 1000 } });
    const msgs = r.request.messages as Array<{ role: string; content: string | Array<{ type: string; text?: string; image_url?: { url: string } }> }>;
    // system, (user, assistant) per earlier step, then the current user turn.
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(msgs[2]!.content).toMatch(/open_app\(app_name=.Contacts.\)/);
    const urls = msgs.flatMap((m) => (typeof m.content === 'string' ? [] : m.content.flatMap((p) => (p.image_url ? [p.image_url.url] : []))));
    // --history-images 1: the last earlier turn's screenshot, and the current one.
    expect(urls).toHaveLength(2);
    for (const u of urls) expect(u).toMatch(/^data:image\/png;base64,<\d+ bytes>$/);
    expect(r.images).toEqual(urls.map((u: string) => expect.objectContaining({ width: 540, height: 1200, bytes: Number(/<(\d+) bytes>/.exec(u)![1]) })));
    expect(r.request).toMatchObject({ model: 'tars', temperature: 0, max_tokens: 512 });
  });

  it('is the request VlmPolicy sends to an endpoint (step 0, same settings)', async () => {
    let fake: FakeChat | null = null;
    const device = new SimDroid({ serial: 'simdroid-vlm-request' });
    try {
      fake = await startFakeChat((_req, res) => replyChat(res, 'Action: wait()'));
      const instance = instantiate(getTemplate('ClockStopwatchRun'), 3);
      const policy = new VlmPolicy({ endpoint: { baseUrl: `${fake.url}/v1`, model: 'm', retries: 0 }, format: 'mobilerl', maxPixels: 1_000_000 });
      await runEpisode({ device, instance, policy, screenshots: 'half', maxSteps: 1 });
      const sent = fake.requests[0]!.body;
      const r = await awb(['vlm', 'request', '--format', 'mobilerl', '--task', 'ClockStopwatchRun', '--seed', '3', '--model', 'm', '--max-pixels', '1000000']);
      expect(r.code, r.err.join('\n')).toBe(0);
      const printed = JSON.parse(r.out.join('\n')).request;
      const texts = (body: { messages: Array<{ content: unknown }> }) => JSON.stringify(body.messages, (k, v) => (k === 'url' ? 'IMAGE' : v));
      expect(texts(printed)).toBe(texts(sent));
      const { messages: _a, ...printedParams } = printed;
      const { messages: _b, ...sentParams } = sent;
      expect(printedParams).toEqual(sentParams);
    } finally {
      device.close();
      await fake?.close();
    }
  });

  it('names a step past the end of the episode, and a bad flag', async () => {
    const past = await awb(['vlm', 'request', '--format', 'androidworld', '--task', 'ClockStopwatchRun', '--step', '9']);
    expect(past.code).toBe(2);
    expect(past.err).toEqual(["awb: Step 9 is never asked: the oracle's episode ended after 4 steps (status); give --step 0 to 3"]);
    const fmt = await awb(['vlm', 'request', '--format', 'nope', '--task', 'ClockStopwatchRun']);
    expect(fmt.err).toEqual(['awb: Unknown VLM action format "nope"; known: androidworld, ui-tars, mobilerl, qwen-mobile-use']);
  });
});

describe('awb run --policy vlm-replay', () => {
  it('replays a replies file, names a file that cannot be read, and ends a short trace with RepliesExhaustedError', async () => {
    const db = join(tmp.dir, 't.db');
    const ok = await awb(['run', '--task', 'ContactsAddContact', '--policy', 'vlm-replay', '--format', 'qwen-mobile-use', '--replies', TRACE, '--db', db, '--json']);
    expect(ok.code, ok.err.join('\n')).toBe(0);
    const run = JSON.parse(ok.out[0]!);
    expect(run).toMatchObject({ policy: 'vlm-replay:qwen-mobile-use', status: 'success', steps: 11, episode: 1 });
    // The recorded episode's replies replay the same again (--from reads each step's thought).
    const again = await awb(['run', '--task', 'ContactsAddContact', '--policy', 'vlm-replay', '--format', 'qwen-mobile-use', '--from', '1', '--db', db, '--no-record', '--json']);
    expect(JSON.parse(again.out[0]!)).toMatchObject({ status: 'success', steps: 11 });
    const missing = await awb(['run', '--task', 'ContactsAddContact', '--policy', 'vlm-replay', '--format', 'ui-tars', '--replies', join(tmp.dir, 'none.txt'), '--no-record']);
    expect(missing.code).toBe(2);
    expect(missing.err).toEqual([`awb: Replies from ${join(tmp.dir, 'none.txt')}: cannot read it (ENOENT)`]);
    const short = join(tmp.dir, 'short.txt');
    writeFileSync(short, "open_app(app_name='Contacts')\n");
    const cut = await awb(['run', '--task', 'ContactsAddContact', '--policy', 'vlm-replay', '--format', 'ui-tars', '--replies', short, '--no-record', '--json']);
    expect(JSON.parse(cut.out[0]!)).toMatchObject({ status: 'error', terminatedBy: 'policy_error', steps: 1, error: { name: 'RepliesExhaustedError' } });
    const stray = await awb(['run', '--task', 'ContactsAddContact', '--policy', 'vlm-replay', '--format', 'ui-tars', '--replies', short, '--temperature', '1']);
    expect(stray.err).toEqual(['awb: --temperature is for --policy vlm']);
  });
});
