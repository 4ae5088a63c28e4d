import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkbench, type Workbench } from '../../core/workbench/index.js';
import { parseInput } from '../../core/api/inputs.js';
import { EndpointProfiles } from '../../core/policy/vlm/index.js';
import { startFakeChat, replyChat, type FakeChat } from '../helpers/fake-chat.js';

/** The workbench offers each endpoint profile as a `vlm:<profile>` session policy and runs it. */
describe('VLM endpoint profiles in the workbench API', () => {
  const KEY = 'sk-api-test-SECRET-99';
  let dir: string;
  let wb: Workbench;
  let fake: FakeChat;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'awb-vlm-api-'));
    let k = 0;
    // Open Clock, then Stopwatch tab, then Start, then done — by element index read from the prompt's list.
    fake = await startFakeChat((req, res) => {
      const text: string = req.body.messages[1].content[0].text;
      const index = (label: string) => new RegExp(`\\[(\\d+)\\] \\w+ "${label}"`).exec(text)?.[1];
      const answers = [
        '{"action_type": "open_app", "app_name": "Clock"}', `{"action_type": "click", "index": ${index('Stopwatch')}}`,
        `{"action_type": "click", "index": ${index('Start')}}`, '{"action_type": "status", "goal_status": "complete"}',
      ];
      replyChat(res, `Reason: next\nAction: ${answers[Math.min(k++, 3)]}`);
    });
    EndpointProfiles.inDataDir(dir).save('local-aw', { endpoint: { baseUrl: `${fake.url}/v1`, model: 'aw', apiKey: KEY, retries: 0 }, format: 'androidworld' });
    wb = await createWorkbench({ dataDir: dir, adb: false });
  });
  afterAll(async () => {
    await wb.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('listPolicies includes the profile, described without its key', async () => {
    const policies = await wb.listPolicies();
    const vlm = policies.find((p) => p.name === 'vlm:local-aw');
    expect(vlm?.description).toMatch(/aw at http:\/\/127\.0\.0\.1:\d+\/v1, androidworld format/);
    expect(JSON.stringify(policies)).not.toContain(KEY);
    expect(policies.map((p) => p.name)).toEqual(expect.arrayContaining(['oracle', 'random', 'manual']));
  });

  it('the input schema takes vlm:<profile> and refuses malformed names', () => {
    expect(() => parseInput('startSession', { serial: 's', templateId: 'T', seed: 0, policy: 'vlm:local-aw' })).not.toThrow();
    expect(() => parseInput('startSession', { serial: 's', templateId: 'T', seed: 0, policy: 'vlm:../x' })).toThrow();
    expect(() => parseInput('startSession', { serial: 's', templateId: 'T', seed: 0, policy: 'gpt' })).toThrow();
  });

  it('a vlm:<profile> session runs to success with the stored key, screenshots on', async () => {
    const s = await wb.startSession({ serial: 'simdroid-1', templateId: 'ClockStopwatchRun', seed: 0, policy: 'vlm:local-aw', run: true });
    const end = Date.now() + 15_000;
    let info = await wb.getSession({ sessionId: s.id });
    while (!info.result && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 20));
      info = await wb.getSession({ sessionId: s.id });
    }
    expect(info.result).toMatchObject({ status: 'success' });
    expect(info.policy).toBe('vlm:local-aw');
    expect(fake.requests[0]!.auth).toBe(`Bearer ${KEY}`);
    expect(fake.requests[0]!.body.messages[1].content[1].image_url.url).toMatch(/^data:image\/png;base64,/);
    expect(info.steps[0]!.thought).toMatch(/^Reason: next/);
  });
});
