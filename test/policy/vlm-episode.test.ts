import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { startFakeChat, replyChat, imageUrls, type FakeChat, type FakeChatRequest } from '../helpers/fake-chat.js';
import { tempDir } from '../store/helpers.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { observe } from '../../core/device/observation.js';
import { runEpisode } from '../../core/episode/runner.js';
import { OraclePolicy } from '../../core/episode/policies/oracle.js';
import { instantiate, type TaskInstance } from '../../core/tasks/instance.js';
import { getTemplate } from '../../core/tasks/registry.js';
import { stepFormat } from '../../core/rewards/format.js';
import { createRun, openStore, StoreRecorder } from '../../core/store/index.js';
import { storableVlmSettings } from '../../core/cli/policies.js';
import { VLM_FORMAT_IDS, VLM_FORMATS, VlmPolicy, VlmPolicySettings, type VlmFormatId } from '../../core/policy/vlm/index.js';

let fake: FakeChat | null = null;
const devices: SimDroid[] = [];
afterEach(async () => {
  await fake?.close();
  fake = null;
  for (const d of devices.splice(0)) d.close();
});

function simdroid(): SimDroid {
  const d = new SimDroid({ serial: 'simdroid-vlm-test' });
  devices.push(d);
  return d;
}

/**
 * A fake VLM endpoint that "sees" the device the episode runs on: for each request it asks the
 * task's oracle for the next action on the live screen and answers with it written in `format`
 * (what a perfect model of that format would say). `script` can replace answers by request number.
 */
async function oracleEndpoint(device: SimDroid, instance: TaskInstance, format: VlmFormatId, script: Record<number, string | ((req: FakeChatRequest, res: ServerResponse) => void)> = {}) {
  const oracle = new OraclePolicy();
  oracle.start({ instance });
  let step = 0;
  return startFakeChat((req, res) => {
    const k = step++;
    const scripted = script[k];
    if (typeof scripted === 'function') return scripted(req, res);
    if (scripted !== undefined) return replyChat(res, scripted);
    void (async () => {
      const obs = await observe(device);
      const decision = oracle.act(obs, { instruction: instance.instruction, step: k, history: [], instance });
      const f = VLM_FORMATS[format];
      const screen = obs.screen;
      const text = f.render(decision.action as never, {
        obs, screen, image: { width: screen.width / 2, height: screen.height / 2 }, coordinates: f.defaultCoordinates, thought: `step ${k}`,
      });
      replyChat(res, text);
    })();
  });
}

const settingsFor = (url: string, format: VlmFormatId, extra: Partial<VlmPolicySettings['endpoint']> = {}) => ({
  endpoint: { baseUrl: `${url}/v1`, model: 'fake-vlm', retries: 0, timeoutMs: 5000, ...extra }, format,
});

describe('VlmPolicy drives a SimDroid episode through a local fake endpoint', () => {
  for (const format of VLM_FORMAT_IDS) {
    it(`${format}: the oracle's actions written in the format reach success`, async () => {
      const device = simdroid();
      const instance = instantiate(getTemplate('ClockStopwatchRun'), 0);
      fake = await oracleEndpoint(device, instance, format);
      const policy = new VlmPolicy(settingsFor(fake.url, format));
      const result = await runEpisode({ device, instance, policy, screenshots: 'half' });
      expect(result.status, JSON.stringify(result.steps.map((s) => [s.raw, s.error]))).toBe('success');
      expect(result.policy).toBe('vlm:fake-vlm');
      expect(result.steps.every((s) => !s.error)).toBe(true);
      // The step's thought is the completion verbatim; the request carried the prompt and the screenshot.
      expect(result.steps[0]!.thought).toMatch(/step 0/);
      const req = fake.requests[0]!;
      expect(req.body.model).toBe('fake-vlm');
      expect(req.body.messages[0].role).toBe('system');
      expect(req.body.messages[0].content.length).toBeGreaterThan(200);
      expect(req.body.messages[1].content[0].text).toContain(instance.instruction);
      const [img] = imageUrls(req);
      expect(img).toMatch(/^data:image\/png;base64,iVBORw0KGgo/);
      expect(fake.requests.length).toBe(result.steps.length);
      // The history of later requests names what was done.
      expect(fake.requests[1]!.body.messages[1].content[0].text).toMatch(/Step 1: /);
      const x = policy.takeExchanges();
      expect(x).toHaveLength(result.steps.length);
      expect(x.every((e) => 'action' in e.outcome)).toBe(true);
    });
  }

  it('an unparseable completion is a recorded format error (unparseable for the format reward); the policy tries again', async () => {
    const device = simdroid();
    const instance = instantiate(getTemplate('ClockStopwatchRun'), 0);
    const garbage = 'I think the stopwatch is in the Clock app, let me look.';
    fake = await oracleEndpoint(device, instance, 'androidworld', { 0: garbage });
    const policy = new VlmPolicy(settingsFor(fake.url, 'androidworld'));
    const result = await runEpisode({ device, instance, policy, screenshots: 'half', onMalformed: 'continue' });
    expect(result.status).toBe('success');
    const s0 = result.steps[0]!;
    expect(s0.error?.name).toBe('ActionParseError');
    expect(s0.error?.message).toMatch(/VlmFormatError: no \{\.\.\.\} object found/);
    expect(s0.raw).toMatchObject({ format: 'androidworld', output: garbage });
    expect(s0.thought).toBe(garbage);
    expect(stepFormat({ index: 0, error: s0.error } as never)).toBe('unparseable');
    expect(result.steps.slice(1).every((s) => !s.error)).toBe(true);
    // The next prompt tells the model its last output was not an action.
    expect(fake.requests[1]!.body.messages[1].content[0].text).toMatch(/Step 1: output that was not an action \(failed: ActionParseError/);
  });

  it('by default an unparseable completion ends the episode as malformed_action, never a crash', async () => {
    const device = simdroid();
    const instance = instantiate(getTemplate('ClockStopwatchRun'), 0);
    fake = await oracleEndpoint(device, instance, 'ui-tars', { 0: "Thought: tap it\nAction: click(start_box='(1500,20)')" });
    const result = await runEpisode({ device, instance, policy: new VlmPolicy(settingsFor(fake.url, 'ui-tars')), screenshots: 'half' });
    expect(result.terminatedBy).toBe('malformed_action');
    expect(result.status).toBe('failure');
    expect(result.error?.message).toMatch(/VlmCoordinateError: point \(1500, 20\) is outside the 1080x2400 screen/);
  });

  it('an endpoint that keeps failing ends the episode as a policy error; the key reaches neither the result nor the store', async () => {
    const KEY = 'sk-live-0123456789abcdef-SECRET';
    const { dir, cleanup } = tempDir('awb-vlm-');
    try {
      const device = simdroid();
      const instance = instantiate(getTemplate('ClockStopwatchRun'), 0);
      fake = await startFakeChat((r, res) => res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `overloaded; you sent ${r.auth}` })));
      const settings = VlmPolicySettings.parse(settingsFor(fake.url, 'androidworld', { apiKey: KEY, retries: 1, backoffMs: 1 }));
      const db = openStore(join(dir, 'trajectories.db'));
      const run = createRun(db, { kind: 'single', name: 'vlm', config: { policy: 'vlm', vlm: storableVlmSettings(settings, 'prod') } });
      const recorder = new StoreRecorder(db, run.id);
      const result = await runEpisode({ device, instance, policy: new VlmPolicy(settings), screenshots: 'half', recorder });
      db.close();
      expect(fake.requests[0]!.auth).toBe(`Bearer ${KEY}`);
      expect(result.terminatedBy).toBe('policy_error');
      expect(result.status).toBe('error');
      expect(result.error).toMatchObject({ name: 'VlmEndpointError' });
      expect(result.error!.message).toMatch(/HTTP 503.*Bearer \[redacted\].*after 2 attempts/);
      expect(JSON.stringify(result)).not.toContain(KEY);
      for (const f of readdirSync(dir)) expect(readFileSync(join(dir, f)).includes(Buffer.from(KEY)), f).toBe(false);
      expect(readFileSync(join(dir, 'trajectories.db')).includes(Buffer.from('VlmEndpointError'))).toBe(true);
    } finally {
      cleanup();
    }
  });

  it('without screenshots the policy refuses with a named error (a VLM needs the screen)', async () => {
    const device = simdroid();
    const instance = instantiate(getTemplate('ClockStopwatchRun'), 0);
    fake = await oracleEndpoint(device, instance, 'androidworld');
    const result = await runEpisode({ device, instance, policy: new VlmPolicy(settingsFor(fake.url, 'androidworld')), screenshots: 'none' });
    expect(result.error?.name).toBe('VlmScreenshotMissingError');
    expect(fake.requests).toHaveLength(0);
  });

  it('text-only prompts (screenshot off) send the element list instead of an image', async () => {
    const device = simdroid();
    const instance = instantiate(getTemplate('ClockStopwatchRun'), 0);
    fake = await oracleEndpoint(device, instance, 'androidworld');
    const result = await runEpisode({ device, instance, policy: new VlmPolicy({ ...settingsFor(fake.url, 'androidworld'), screenshot: false }), screenshots: 'none' });
    expect(result.status).toBe('success');
    expect(imageUrls(fake.requests[0]!)).toEqual([]);
    expect(fake.requests[0]!.body.messages[1].content[0].text).toMatch(/UI elements on the screen:\n\[\d+\] /);
  });

  it("historyStyle 'turns' sends earlier completions as assistant turns, the latest with their screenshots", async () => {
    const device = simdroid();
    const instance = instantiate(getTemplate('ClockStopwatchRun'), 0);
    fake = await oracleEndpoint(device, instance, 'ui-tars');
    const policy = new VlmPolicy({ ...settingsFor(fake.url, 'ui-tars'), historyStyle: 'turns', historyImages: 1, historySteps: 2 });
    const result = await runEpisode({ device, instance, policy, screenshots: 'half' });
    expect(result.status).toBe('success');
    expect(fake.requests.length).toBeGreaterThanOrEqual(3);
    const third = fake.requests[2]!.body.messages as Array<{ role: string; content: any }>;
    // system, (user, assistant) for steps 1 and 2, then the current user turn.
    expect(third.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
    expect(third[2]!.content).toBe(result.steps[0]!.thought);
    expect(third[4]!.content).toBe(result.steps[1]!.thought);
    const images = (m: { content: any }) => (Array.isArray(m.content) ? m.content.filter((p: { type: string }) => p.type === 'image_url').length : 0);
    expect(third.map(images)).toEqual([0, 0, 0, 1, 0, 1]);
    expect(third[5]!.content[0].text).not.toMatch(/Previous steps/);
    // Only the last historySteps steps are sent.
    const last = fake.requests.at(-1)!.body.messages as unknown[];
    expect(last.length).toBeLessThanOrEqual(6);
  });
});
