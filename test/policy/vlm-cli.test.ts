import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { main, type Io } from '../../core/cli/main.js';
import { startFakeChat, replyChat, type FakeChat } from '../helpers/fake-chat.js';
import { tempDir } from '../store/helpers.js';
import { EndpointProfiles, PlainFileSecretStore, EndpointProfileError } from '../../core/policy/vlm/index.js';
import { storableVlmSettings, vlmSettingsForResume } from '../../core/cli/policies.js';

const KEY = 'sk-cli-test-42-SECRET';

async function awb(argv: string[], input: string[] = []): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (l) => out.push(l), err: (l) => err.push(l), readLine: async () => input.shift() ?? null };
  const code = await main(argv, io);
  return { code, out, err };
}

let tmp: ReturnType<typeof tempDir>;
let fake: FakeChat | null = null;
const home = process.env.AWB_HOME;
beforeEach(() => {
  tmp = tempDir('awb-vlm-cli-');
  process.env.AWB_HOME = tmp.dir;
});
afterEach(async () => {
  await fake?.close();
  fake = null;
  if (home === undefined) delete process.env.AWB_HOME;
  else process.env.AWB_HOME = home;
  tmp.cleanup();
});

/** Scripted AndroidWorld answers for ClockStopwatchRun on a fresh SimDroid: open Clock, the Stopwatch tab, Start, done. */
function stopwatchScript(): string[] {
  return [
    'Reason: open it\nAction: {"action_type": "open_app", "app_name": "Clock"}',
    'STOPWATCH_TAB',
    'START',
    'Reason: done\nAction: {"action_type": "status", "goal_status": "complete"}',
  ];
}

/** Answers a script in order; STOPWATCH_TAB / START find the element index in the request's element list. */
async function scriptedEndpoint(script: string[]) {
  let k = 0;
  return startFakeChat((req, res) => {
    const text: string = req.body.messages[1].content[0].text;
    let answer = script[Math.min(k++, script.length - 1)]!;
    const index = (label: string) => new RegExp(`\\[(\\d+)\\] \\w+ "${label}"`).exec(text)?.[1];
    if (answer === 'STOPWATCH_TAB') answer = `Action: {"action_type": "click", "index": ${index('Stopwatch')}}`;
    if (answer === 'START') answer = `Action: {"action_type": "click", "index": ${index('Start')}}`;
    replyChat(res, answer);
  });
}

describe('awb endpoints', () => {
  it('add keeps the key out of endpoints.json (secret store, mode 0600); list and remove', async () => {
    const add = await awb(['endpoints', 'add', 'local', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm', '--format', 'ui-tars', '--api-key-stdin', '--max-concurrency', '3'], [KEY]);
    expect(add.code, add.err.join('\n')).toBe(0);
    const profilesText = readFileSync(join(tmp.dir, 'endpoints.json'), 'utf8');
    expect(profilesText).not.toContain(KEY);
    expect(JSON.parse(profilesText).profiles.local).toMatchObject({ format: 'ui-tars', endpoint: { baseUrl: 'http://127.0.0.1:9/v1', maxConcurrency: 3 } });
    expect(statSync(join(tmp.dir, 'secrets.json')).mode & 0o777).toBe(0o600);
    const list = await awb(['endpoints', 'list', '--json']);
    expect(JSON.parse(list.out[0]!)).toMatchObject([{ name: 'local', hasSecret: true }]);
    expect(list.out.join('\n')).not.toContain(KEY);
    expect((await awb(['endpoints', 'remove', 'local'])).code).toBe(0);
    expect(readFileSync(join(tmp.dir, 'secrets.json'), 'utf8')).not.toContain(KEY);
    const gone = await awb(['endpoints', 'remove', 'local']);
    expect(gone.code).toBe(2);
    expect(gone.err[0]).toMatch(/EndpointProfile|no such profile/);
  });

  it('bad settings and names are refused with the bad value', async () => {
    const r = await awb(['endpoints', 'add', 'x', '--base-url', 'not a url', '--model', 'm']);
    expect(r.code).toBe(2);
    expect(r.err[0]).toMatch(/endpoint\.baseUrl/);
    const p = EndpointProfiles.inDataDir(tmp.dir);
    expect(() => p.save('../evil', { endpoint: { baseUrl: 'http://x/v1', model: 'm' } })).toThrow(EndpointProfileError);
    expect(() => p.get('nope')).toThrow(/no such profile/);
    expect(new PlainFileSecretStore(join(tmp.dir, 's.json')).get('a')).toBeUndefined();
  });

  it('test sends one real request and reports latency and the parsed action', async () => {
    fake = await startFakeChat((_r, res) => replyChat(res, "Thought: open Clock\nAction: open_app(app_name='Clock')"));
    await awb(['endpoints', 'add', 'tars', '--base-url', `${fake.url}/v1`, '--model', 'ui-tars-1.5', '--format', 'ui-tars', '--api-key-env', 'AWB_VLM_TEST_KEY']);
    process.env.AWB_VLM_TEST_KEY = KEY;
    try {
      const r = await awb(['endpoints', 'test', 'tars', '--json']);
      expect(r.code, r.err.join('\n')).toBe(0);
      const s = JSON.parse(r.out[0]!);
      expect(s).toMatchObject({ endpoint: 'tars', attempts: 1, action: { action_type: 'open_app', app_name: 'Clock' } });
      expect(s.latencyMs).toBeGreaterThanOrEqual(0);
      expect(fake.requests[0]!.auth).toBe(`Bearer ${KEY}`);
    } finally {
      delete process.env.AWB_VLM_TEST_KEY;
    }
  });
});

describe('awb run / suite run --policy vlm', () => {
  it('run --endpoint NAME drives the embedded SimDroid to success; the store holds the settings but not the key', async () => {
    fake = await scriptedEndpoint(stopwatchScript());
    await awb(['endpoints', 'add', 'aw', '--base-url', `${fake.url}/v1`, '--model', 'aw-model', '--api-key-stdin'], [KEY]);
    const db = join(tmp.dir, 't.db');
    const r = await awb(['run', '--task', 'ClockStopwatchRun', '--seed', '0', '--policy', 'vlm', '--endpoint', 'aw', '--db', db, '--json']);
    expect(r.code, r.err.join('\n')).toBe(0);
    const s = JSON.parse(r.out[0]!);
    expect(s).toMatchObject({ success: true, policy: 'vlm:aw-model', steps: 4 });
    expect(fake.requests[0]!.auth).toBe(`Bearer ${KEY}`);
    expect(readFileSync(db).includes(Buffer.from(KEY))).toBe(false);
    expect(readFileSync(db).includes(Buffer.from('"profile":"aw"'))).toBe(true);
  });

  it('suite run --policy vlm --parallel 2 runs every episode in process under the endpoint limit', async () => {
    let inFlight = 0;
    let peak = 0;
    fake = await startFakeChat((_r, res) => {
      peak = Math.max(peak, ++inFlight);
      setTimeout(() => {
        inFlight--;
        replyChat(res, 'Action: {"action_type": "status", "goal_status": "complete"}');
      }, 30);
    });
    const r = await awb(['suite', 'run', '--split', 'unseen-instance', '--part', 'test', '--limit', '4', '--policy', 'vlm', '--base-url', `${fake.url}/v1`,
      '--model', 'm', '--max-concurrency', '1', '--parallel', '2', '--db', join(tmp.dir, 's.db'), '--json']);
    expect(r.code, r.err.join('\n')).toBe(0);
    const s = JSON.parse(r.out[0]!);
    expect(s).toMatchObject({ policy: 'vlm', episodes: 4, errors: 0, parallel: 2 });
    expect(fake.requests).toHaveLength(4);
    expect(peak).toBe(1);
  });

  it('usage errors: no endpoint, stray vlm flags, a bad format', async () => {
    const a = await awb(['run', '--task', 'ClockStopwatchRun', '--policy', 'vlm', '--no-record']);
    expect(a.code).toBe(2);
    expect(a.err[0]).toMatch(/--endpoint NAME .* or --base-url with --model \(or --preset\)/);
    const b = await awb(['run', '--task', 'ClockStopwatchRun', '--policy', 'oracle', '--model', 'x', '--no-record']);
    expect(b.err[0]).toMatch(/--model is for --policy vlm/);
    const c = await awb(['run', '--task', 'ClockStopwatchRun', '--policy', 'vlm', '--base-url', 'http://x/v1', '--model', 'm', '--format', 'seeact', '--no-record']);
    expect(c.code).toBe(2);
    expect(c.err[0]).toMatch(/--format/);
    const d = await awb(['run', '--task', 'ClockStopwatchRun', '--policy', 'vlm', '--endpoint', 'missing', '--no-record']);
    expect(d.code).toBe(2);
    expect(d.err[0]).toMatch(/Endpoint profile "missing"/);
  });

  it('a resumed vlm suite run finds its settings in the run config and its key in the profile\'s secret store', async () => {
    fake = await startFakeChat((_r, res) => replyChat(res, 'Action: {"action_type": "status", "goal_status": "complete"}'));
    await awb(['endpoints', 'add', 'p1', '--base-url', `${fake.url}/v1`, '--model', 'm', '--temperature', '0.7', '--api-key-stdin'], [KEY]);
    const db = join(tmp.dir, 'r.db');
    const first = await awb(['suite', 'run', '--part', 'test', '--limit', '2', '--policy', 'vlm', '--endpoint', 'p1', '--db', db, '--json']);
    expect(first.code, first.err.join('\n')).toBe(0);
    const run = JSON.parse(first.out[0]!).run;
    const again = await awb(['suite', 'run', '--resume', String(run), '--db', db, '--json']);
    expect(again.code, again.err.join('\n')).toBe(0);
    expect(JSON.parse(again.out[0]!)).toMatchObject({ policy: 'vlm', skipped: 2, episodes: 0 });
    expect((await awb(['suite', 'run', '--resume', String(run), '--model', 'x', '--db', db])).code).toBe(2);
    const profiles = EndpointProfiles.inDataDir(tmp.dir);
    const stored = storableVlmSettings(profiles.resolve('p1'), 'p1');
    expect(JSON.stringify(stored)).not.toContain(KEY);
    const back = vlmSettingsForResume(JSON.parse(JSON.stringify(stored)), profiles);
    expect(back.endpoint.apiKey).toBe(KEY);
    expect(back.temperature).toBe(0.7);
  });
});
