import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { parseInput } from '../../core/api/inputs.js';
import type { SessionInfo } from '../../core/api/types.js';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { exportPolicyOnnx } from '../../core/policy/onnx/index.js';
import { createRng } from '../../core/util/rng.js';
import { replyChat, startFakeChat, type FakeChat } from '../helpers/fake-chat.js';

/**
 * listEndpoints / saveEndpoint / removeEndpoint / testEndpoint and `checkpoint:<file>` session
 * policies, on a real workbench (embedded SimDroid) against a local fake chat endpoint.
 */
describe('endpoint profiles and registered policy files in the workbench API (fake chat endpoint)', () => {
  const KEY = 'sk-endpoints-test-SECRET-4242';
  let dir: string;
  let wb: Workbench;
  let fake: FakeChat;
  /** 'ok': AndroidWorld answers (open Clock, then complete); 'echo-500': an error body that quotes the authorization header. */
  let mode: 'ok' | 'echo-500' = 'ok';
  let k = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awb-endpoints-api-'));
    fake = await startFakeChat((req, res) => {
      if (mode === 'echo-500') return void res.writeHead(500, { 'content-type': 'text/plain' }).end(`upstream rejected ${req.auth}`);
      const answers = ['{"action_type": "open_app", "app_name": "Clock"}', '{"action_type": "status", "goal_status": "complete"}'];
      replyChat(res, `Reason: next\nAction: ${answers[Math.min(k++, 1)]}`);
    });
    wb = await createWorkbench({ dataDir: dir, adb: false });
  });
  afterAll(async () => {
    await wb.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const settings = (over: Record<string, unknown> = {}) => ({ endpoint: { baseUrl: `${fake.url}/v1`, model: 'aw', retries: 0 }, format: 'androidworld', ...over });

  async function finished(id: string): Promise<SessionInfo> {
    const end = Date.now() + 20_000;
    for (;;) {
      const info = await wb.getSession({ sessionId: id });
      if (info.result || Date.now() > end) return info;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('saves a profile with a key and lists it with hasKey, never the key (not in endpoints.json either)', async () => {
    const list = await wb.saveEndpoint(parseInput('saveEndpoint', { name: 'local', settings: settings(), apiKey: KEY }) as never);
    expect(list).toEqual([expect.objectContaining({ name: 'local', model: 'aw', format: 'androidworld', coordinates: null, hasKey: true, apiKeyEnv: null })]);
    expect(JSON.stringify(list)).not.toContain(KEY);
    expect(JSON.stringify(await wb.listEndpoints())).not.toContain(KEY);
    expect(JSON.stringify(await wb.listPolicies())).not.toContain(KEY);
    expect(readFileSync(join(dir, 'endpoints.json'), 'utf8')).not.toContain(KEY);
    // The workbench without a `secrets` option keeps the CLI's store: <data folder>/secrets.json.
    expect(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'))).toEqual({ local: KEY });
  });

  it('a vlm:<profile> session sends the saved key to the endpoint', async () => {
    k = 0;
    const before = fake.requests.length;
    const s = await wb.startSession({ serial: 'simdroid-1', templateId: 'ClockStopwatchRun', seed: 0, policy: 'vlm:local', run: true, maxSteps: 2 });
    const info = await finished(s.id);
    expect(info.policy).toBe('vlm:local');
    expect(info.steps.length).toBeGreaterThan(0);
    expect(fake.requests[before]!.auth).toBe(`Bearer ${KEY}`);
  });

  it('a profile saved with a preset drives an Agent view session with the official request (ui-tars-1.5-7b: its package prompt, its turns)', async () => {
    await wb.saveEndpoint({ name: 'tars', settings: { endpoint: { baseUrl: `${fake.url}/v1`, retries: 0 }, preset: 'ui-tars-1.5-7b' } });
    expect((await wb.listEndpoints()).find((e) => e.name === 'tars')).toMatchObject({ model: 'ByteDance-Seed/UI-TARS-1.5-7B', format: 'ui-tars', coordinates: 'smart-resize' });
    const before = fake.requests.length;
    const s = await wb.startSession({ serial: 'simdroid-1', templateId: 'ClockStopwatchRun', seed: 0, policy: 'vlm:tars', run: true, maxSteps: 1 });
    await finished(s.id);
    const body = fake.requests[before]!.body as { messages: Array<{ role: string; content: Array<{ type: string; text?: string }> }>; top_p: number; frequency_penalty: number };
    expect(body.messages.map((m) => m.role)).toEqual(['system', 'user', 'user']);
    expect(body.messages[1]!.content[0]!.text).toMatch(/^You are a GUI agent\. You are given a task and your action history, with screenshots\./);
    expect([body.top_p, body.frequency_penalty]).toEqual([0.9, 1]);
    await wb.removeEndpoint({ name: 'tars' });
  });

  it('editing without apiKey keeps the stored key; apiKey null forgets it', async () => {
    let list = await wb.saveEndpoint({ name: 'local', settings: settings({ temperature: 0.5 }) });
    expect(list[0]).toMatchObject({ hasKey: true, settings: { temperature: 0.5 } });
    list = await wb.saveEndpoint({ name: 'local', settings: settings(), apiKey: null });
    expect(list[0]!.hasKey).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'))).toEqual({});
    await wb.saveEndpoint({ name: 'local', settings: settings(), apiKey: KEY });
  });

  it('refuses bad settings field by field, with the bad value, and a key put inside the settings without echoing it', async () => {
    const bad = await wb.saveEndpoint({ name: 'bad', settings: settings({ temperature: 5, format: 'gpt-json' }) }).catch((e: unknown) => e);
    expect(bad).toMatchObject({ name: 'EndpointSettingsError', profile: 'bad' });
    const issues = (bad as { issues: Array<{ path: string; message: string }> }).issues;
    expect(issues.map((i) => i.path).sort()).toEqual(['format', 'temperature']);
    expect(issues.find((i) => i.path === 'temperature')!.message).toMatch(/got 5/);
    expect(issues.find((i) => i.path === 'format')!.message).toMatch(/got "gpt-json"/);
    const inside = await wb.saveEndpoint({ name: 'bad', settings: { endpoint: { baseUrl: fake.url, model: 'm', apiKey: KEY } } }).catch((e: unknown) => e);
    expect(inside).toMatchObject({ name: 'EndpointSettingsError', issues: [{ path: 'endpoint.apiKey' }] });
    expect((inside as Error).message).not.toContain(KEY);
    const envAndKey = await wb.saveEndpoint({ name: 'bad', settings: settings({ endpoint: { baseUrl: fake.url, model: 'm', apiKeyEnv: 'VLM_KEY' } }), apiKey: KEY }).catch((e: unknown) => e);
    expect(envAndKey).toMatchObject({ name: 'EndpointSettingsError', issues: [{ path: 'apiKey' }] });
    expect((await wb.listEndpoints()).map((e) => e.name)).toEqual(['local']);
    // Names as the profiles file takes them; an empty key is not a way to clear one.
    expect(() => parseInput('saveEndpoint', { name: '../x', settings: {} })).toThrow(/name/);
    expect(() => parseInput('saveEndpoint', { name: 'x', settings: {}, apiKey: '' })).toThrow(/apiKey/);
  });

  it('testEndpoint reports latency and the parsed answer', async () => {
    k = 0;
    mode = 'ok';
    const r = await wb.testEndpoint({ name: 'local' });
    expect(r).toMatchObject({ ok: true, endpoint: 'local', attempts: 1, action: { action_type: 'open_app', app_name: 'Clock' }, formatError: null });
    if (!r.ok) throw new Error('unreachable');
    expect(r.latencyMs).toBeGreaterThanOrEqual(0);
    expect(r.completion).toMatch(/^Reason: next/);
  });

  it('testEndpoint returns an endpoint error by name with the key redacted, even when the server quotes it', async () => {
    mode = 'echo-500';
    try {
      const r = await wb.testEndpoint({ name: 'local' });
      expect(r).toMatchObject({ ok: false, endpoint: 'local', error: { name: 'VlmEndpointError' } });
      expect(JSON.stringify(r)).not.toContain(KEY);
    } finally {
      mode = 'ok';
    }
    await expect(wb.testEndpoint({ name: 'nope' })).rejects.toMatchObject({ name: 'EndpointProfileError' });
  });

  it('removeEndpoint drops the profile, its policy and its key', async () => {
    expect(await wb.removeEndpoint({ name: 'local' })).toEqual([]);
    expect((await wb.listPolicies()).some((p) => p.name === 'vlm:local')).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'secrets.json'), 'utf8'))).toEqual({});
  });

  describe('checkpoint:<file> policies', () => {
    beforeAll(() => {
      const pol = join(dir, 'policies');
      mkdirSync(join(pol, 'sub'), { recursive: true });
      const model = createModel(createRng('endpoints-test/policy'));
      saveCheckpoint(join(pol, 'tiny.json'), model);
      exportPolicyOnnx(join(pol, 'tiny.onnx'), model);
      saveCheckpoint(join(dir, 'outside.json'), model);
      symlinkSync(join(dir, 'outside.json'), join(pol, 'linked.json'));
      saveCheckpoint(join(pol, 'sub', 'nested.json'), model);
      writeFileSync(join(pol, 'notes.txt'), 'not a policy');
    });

    it('lists the .json and .onnx files directly in <data folder>/policies (not symlinks, subfolders or other files)', async () => {
      const names = (await wb.listPolicies()).map((p) => p.name).filter((n) => n.startsWith('checkpoint:'));
      expect(names).toEqual(['checkpoint:tiny.json', 'checkpoint:tiny.onnx']);
    });

    it('runs a registered checkpoint greedily, and its ONNX export to the same actions', async () => {
      const runOne = async (policy: 'checkpoint:tiny.json' | 'checkpoint:tiny.onnx') => {
        const s = await wb.startSession({ serial: 'simdroid-1', templateId: 'SystemWifiTurnOn', seed: 0, policy, run: true, maxSteps: 3 });
        return finished(s.id);
      };
      const json = await runOne('checkpoint:tiny.json');
      expect(json.policy).toBe('checkpoint:tiny.json');
      expect(json.result).not.toBeNull();
      expect(json.steps.length).toBeGreaterThan(0);
      expect(json.steps[0]!.thought).toMatch(/greedy/);
      const onnx = await runOne('checkpoint:tiny.onnx');
      expect(onnx.steps.map((s) => s.action)).toEqual(json.steps.map((s) => s.action));
    });

    it('refuses paths out of the folder: by the input schema, and a symlink or a missing file when starting', async () => {
      for (const p of ['checkpoint:../outside.json', 'checkpoint:sub/nested.json', 'checkpoint:/etc/passwd.json', 'checkpoint:.hidden.json']) {
        expect(() => parseInput('startSession', { serial: 's', templateId: 'T', seed: 0, policy: p }), p).toThrow(/checkpoint:<file name>/);
      }
      expect(() => parseInput('startSession', { serial: 's', templateId: 'T', seed: 0, policy: 'checkpoint:tiny.json' })).not.toThrow();
      // A name that is not a .json/.onnx file names a checkpoint folder (none here).
      for (const file of ['linked.json', 'missing.json', 'tiny.txt']) {
        await expect(wb.startSession({ serial: 'simdroid-1', templateId: 'SystemWifiTurnOn', seed: 0, policy: `checkpoint:${file}` }))
          .rejects.toMatchObject({ name: 'PolicyChoiceError', policy: `checkpoint:${file}` });
      }
    });
  });
});
