import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { type EnvClient, EnvRequestError } from '../../core/env/client.js';
import { listRuns, loadTrajectory, type EpisodeId } from '../../core/store/index.js';
import { pngSize } from '../../core/policy/vlm/geometry.js';
import { connect, envServer, playOracle } from './helpers.js';

/**
 * The environment server over a real WebSocket (docs/env-protocol.md): what an outside agent sends and gets back, and
 * what the store keeps of it.
 */
let env: Awaited<ReturnType<typeof envServer>>;
let c: EnvClient;

beforeAll(async () => {
  env = await envServer({ envDevices: 3 });
  c = await connect(env.server);
});
afterAll(async () => {
  await c.close();
  await env.close();
});

const refused = async (p: Promise<unknown>): Promise<EnvRequestError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof EnvRequestError) return e;
    throw e;
  }
  throw new Error('the request was not refused');
};

async function session(args: Record<string, unknown> = {}): Promise<string> {
  const r = await c.request('create', { task: { template: 'ContactsAddContact', seed: 7 }, agent: 'tester', ...args });
  return r.session as string;
}

describe('environment protocol: connecting', () => {
  it('answers hello with what it offers, and refuses a request before hello and another protocol version', async () => {
    const ws = new WebSocket(env.server.envUrl);
    await new Promise((r) => ws.once('open', r));
    const answers: any[] = [];
    ws.on('message', (d) => answers.push(JSON.parse(d.toString())));
    ws.send(JSON.stringify({ id: 1, op: 'tasks' }));
    ws.send(JSON.stringify({ id: 2, op: 'hello', protocol: 2 }));
    ws.send(JSON.stringify({ id: 3, op: 'hello', protocol: 1, client: 'raw' }));
    await expect.poll(() => answers.length).toBe(3);
    const byId = new Map(answers.map((a) => [a.id, a]));
    expect(byId.get(1).error).toMatchObject({ name: 'ProtocolError', message: expect.stringContaining('hello') });
    expect(byId.get(2).error).toMatchObject({ name: 'ProtocolError', message: expect.stringContaining('protocol 2') });
    expect(byId.get(3).result).toMatchObject({ protocol: 1, devices: { simdroid: 3, adb: [] }, formats: expect.arrayContaining(['ui-tars']), rewards: expect.arrayContaining(['admire']) });
    ws.close();
  });

  it('refuses a wrong token before the upgrade, and a page from another origin', async () => {
    const status = (url: string, headers: Record<string, string> = {}) => new Promise<number>((resolve) => {
      const ws = new WebSocket(url, { headers });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => {
        ws.close();
        resolve(101);
      });
    });
    const base = env.server.envUrl.replace(/\?token=.*/, '');
    expect(await status(`${base}?token=wrong-token-0123456789`)).toBe(401);
    expect(await status(base, { Authorization: `Bearer ${env.server.token}` })).toBe(101);
    expect(await status(env.server.envUrl, { Origin: 'http://evil.example' })).toBe(403);
  });

  it('answers frames it cannot read with an error naming what is wrong, and goes on', async () => {
    const events: any[] = [];
    const raw = new WebSocket(env.server.envUrl);
    await new Promise((r) => raw.once('open', r));
    raw.on('message', (d) => events.push(JSON.parse(d.toString())));
    raw.send('{not json');
    raw.send(Buffer.from([1, 2, 3]));
    raw.send(JSON.stringify([1, 2]));
    raw.send(JSON.stringify({ id: 9, op: 'fly' }));
    await expect.poll(() => events.length).toBe(4);
    expect(events.map((e) => e.error.name)).toEqual(['ProtocolError', 'ProtocolError', 'ProtocolError', 'ProtocolError']);
    expect(events[0].error.message).toMatch(/not JSON/);
    expect(events[1].error.message).toMatch(/text frames/);
    expect(events[3]).toMatchObject({ id: 9, error: { message: expect.stringContaining('unknown op "fly"') } });
    raw.close();
    // The server is still there for everyone.
    expect((await c.request('tasks')).templates.length).toBeGreaterThan(100);
  });
});

describe('environment protocol: sessions', () => {
  it('refuses a bad task in create, naming the value, and the connection lives on', async () => {
    expect(await refused(c.request('create', { task: { template: 'ContactsAdd' } }))).toMatchObject({ name: 'UnknownTemplateError', message: expect.stringContaining('ContactsAddContact') });
    expect(await refused(c.request('create', { task: { template: 'ContactsAddContact', params: { number: 5 } } }))).toMatchObject({ name: 'GivenParamsError' });
    expect(await refused(c.request('create', { task: { split: 'unseen-galaxy', part: 'test' } }))).toMatchObject({ name: 'SplitError' });
    expect(await refused(c.request('create', { task: { template: 'ContactsAddContact', split: 'all' } }))).toMatchObject({ name: 'ProtocolError', message: expect.stringContaining('not both') });
    expect(await refused(c.request('create', { task: { template: 'ContactsAddContact' }, rewards: { components: [{ kind: 'vibes', weight: 1 }] } })))
      .toMatchObject({ name: 'RewardConfigError' });
    expect(await refused(c.request('step', { session: 'nope', action: { action_type: 'wait' } }))).toMatchObject({ name: 'SessionNotFoundError' });
    const s = await session();
    expect(await refused(c.request('step', { session: s, action: { action_type: 'wait' } }))).toMatchObject({ name: 'EpisodeNotStartedError' });
    expect(await refused(c.request('step', { session: s }))).toMatchObject({ name: 'ProtocolError', message: expect.stringContaining('exactly one of') });
    await c.request('close', { session: s });
  });

  it('an agent solving a task step by step: observations as asked, a success judged by the checker, every step recorded in its run', async () => {
    const s = await session({ run: 'oracle as an outside agent', observation: { screenshot: 'png', scale: 0.5, tree: 'both' }, agent: 'oracle-over-ws' });
    const first = await c.request('reset', { session: s });
    expect(first.info).toMatchObject({ template: 'ContactsAddContact', seed: 7, max_steps: expect.any(Number), app: 'Contacts', goal: expect.stringContaining('Create a new contact') });
    expect(first.observation.goal).toBe(first.info.goal);
    expect(first.observation.step).toBe(0);
    expect(Buffer.from(first.observation.screenshot.data).subarray(1, 4).toString()).toBe('PNG');
    expect(pngSize(first.observation.screenshot.data)).toEqual({ width: 540, height: 1200 });
    expect(first.observation.tree).toMatch(/^<\?xml/);
    // AndroidWorld's ui_elements: every node but the root, in document order, so an index means the same element.
    const nodes = [...first.observation.tree.matchAll(/<node /g)].length;
    expect(first.observation.ui_elements).toHaveLength(nodes);
    expect(first.observation.ui_elements[0]).toMatchObject({ is_visible: true, bbox_pixels: { x_min: expect.any(Number) } });

    const results = await playOracle(c, s, 'ContactsAddContact', 7, first);
    const last = results.at(-1);
    expect(last).toMatchObject({ terminated: true, truncated: false, reward: 1 });
    expect(last.info).toMatchObject({ success: true, status: 'success', terminated_by: 'status', episode_return: 1, verdict: { ok: true } });
    expect(results.slice(0, -1).every((r) => r.reward === 0 && !r.terminated)).toBe(true);
    expect(results.map((r) => r.reward).reduce((a, b) => a + b, 0)).toBe(last.info.episode_return);

    const run = listRuns(env.workbench.db).find((r) => r.name === 'oracle as an outside agent')!;
    expect(run).toMatchObject({ kind: 'env', status: 'running' });
    const t = loadTrajectory(env.workbench.db, last.info.episode_id as EpisodeId);
    expect(t.episode).toMatchObject({ policy: 'oracle-over-ws', status: 'success', runId: run.id });
    expect(t.steps).toHaveLength(results.length);
    expect(t.steps.every((step) => step.tree !== null && step.screenshot !== null)).toBe(true);
    expect(t.steps.at(-1)!.rewards.outcome!.value).toBe(1);
    expect(await c.request('close', { session: s })).toEqual({ episodes: 1 });
    // The run ends with its last session.
    expect(listRuns(env.workbench.db).find((r) => r.id === run.id)!.status).toBe('finished');
  });

  it('a malformed action is a recorded failed step with its reason, and the episode goes on', async () => {
    const s = await session({ agent: 'clumsy' });
    await c.request('reset', { session: s });
    const bad = await c.request('step', { session: s, action: { action_type: 'clik', index: 2 }, thought: 'tap it', reply: 'clik(2)', prompt: [{ role: 'user', content: 'go' }] });
    expect(bad).toMatchObject({ terminated: false, truncated: false, info: { action: null, error: { name: 'ActionParseError', message: expect.stringContaining('clik') } } });
    const impossible = await c.request('step', { session: s, action: { action_type: 'click', index: 9999 } });
    expect(impossible.info.error).toMatchObject({ name: 'ElementIndexError' });
    const ok = await c.request('step', { session: s, action: { action_type: 'navigate_home' } });
    expect(ok.info).toMatchObject({ error: null, action: { action_type: 'navigate_home' }, step: 2 });
    const id = ok.info.step !== undefined ? (await c.request('step', { session: s, action: { action_type: 'status', goal_status: 'infeasible' } })).info.episode_id : null;
    const steps = loadTrajectory(env.workbench.db, id as EpisodeId).steps;
    expect(steps[0]).toMatchObject({ error: { name: 'ActionParseError' }, thought: 'tap it', reply: 'clik(2)', prompt: '[{"role":"user","content":"go"}]' });
    expect(steps[0]!.action).toBeUndefined();
    await c.request('close', { session: s });
  });

  it('takes AndroidWorld\'s JSONAction as its agents write it, and a model reply in one of the four formats', async () => {
    const s = await session({ task: { template: 'ContactsAddContact', seed: 3 }, observation: { screenshot: 'none', tree: 'elements' } });
    const first = await c.request('reset', { session: s });
    const open = await c.request('step', { session: s, json_action: { action_type: 'open_app', app_name: 'Contacts' } });
    expect(open.info).toMatchObject({ error: null, action: { action_type: 'open_app', app_name: 'Contacts' } });
    expect(open.observation.ui_elements.some((e: any) => /contact/i.test(e.content_description + e.text))).toBe(true);
    expect(first.observation.tree).toBeUndefined();
    // AndroidWorld's scroll: from the screen's centre to its edge against the direction.
    const scroll = await c.request('step', { session: s, json_action: { action_type: 'scroll', direction: 'down' } });
    expect(scroll.info.action).toEqual({ action_type: 'swipe', start: [540, 1200], end: [540, 0] });
    const unknown = await c.request('step', { session: s, json_action: { action_type: 'unknown' } });
    expect(unknown.info.error).toMatchObject({ name: 'AndroidWorldActionError', message: expect.stringContaining('unknown action') });
    const extra = await c.request('step', { session: s, json_action: { action_type: 'click', index: 1, x: 5, y: 5 } });
    expect(extra.info.error.message).toMatch(/Either an index or a <x, y>/);
    const reply = await c.request('step', {
      session: s, format: 'qwen-mobile-use', image: [1092, 2408],
      reply: 'I go back.\n<tool_call>\n{"name": "mobile_use", "arguments": {"action": "system_button", "button": "Back"}}\n</tool_call>',
    });
    expect(reply.info).toMatchObject({ error: null, action: { action_type: 'navigate_back' } });
    const garbage = await c.request('step', { session: s, format: 'ui-tars', reply: 'I am not sure what to do' });
    expect(garbage.info.error).toMatchObject({ name: 'VlmFormatError' });
    const t = loadTrajectory(env.workbench.db, first.info.episode_id as EpisodeId);
    expect(t.steps.map((x) => x.error?.name ?? x.action?.action_type)).toEqual(['open_app', 'swipe', 'AndroidWorldActionError', 'AndroidWorldActionError', 'navigate_back', 'VlmFormatError']);
    expect(t.steps.at(-1)!.reply).toBe('I am not sure what to do');
    await c.request('close', { session: s });
  });

  it('gives raw RGB pixels at the asked scale, and observe shows the screen without acting', async () => {
    const s = await session({ observation: { screenshot: 'raw', scale: 0.5, tree: 'none' }, record: { screenshots: 'none' } });
    const before = await c.request('observe', { session: s });
    expect(before.observation.screenshot).toMatchObject({ format: 'rgba', width: 540, height: 1200 });
    expect(before.observation.screenshot.data.length).toBe(540 * 1200 * 4);
    const r = await c.request('reset', { session: s });
    expect(r.observation.tree).toBeUndefined();
    expect(r.observation.ui_elements).toBeUndefined();
    const again = await c.request('observe', { session: s });
    expect(Buffer.from(again.observation.screenshot.data).equals(Buffer.from(r.observation.screenshot.data))).toBe(true);
    await c.request('close', { session: s });
  });

  it('counts seeds up on each reset, ends a running episode as aborted, and truncates at the step budget', async () => {
    const s = await session({ task: { template: 'ClockStopwatchRun', seed: 4 }, max_steps: 2 });
    const a = await c.request('reset', { session: s });
    await c.request('step', { session: s, action: { action_type: 'wait' } });
    const b = await c.request('reset', { session: s });
    expect([a.info.seed, b.info.seed]).toEqual([4, 5]);
    expect(loadTrajectory(env.workbench.db, a.info.episode_id as EpisodeId).episode).toMatchObject({ status: 'error', terminatedBy: 'aborted' });
    await c.request('step', { session: s, action: { action_type: 'wait' } });
    const end = await c.request('step', { session: s, action: { action_type: 'wait' } });
    expect(end).toMatchObject({ terminated: false, truncated: true, info: { terminated_by: 'max_steps', status: 'failure' } });
    expect(await refused(c.request('step', { session: s, action: { action_type: 'wait' } }))).toMatchObject({ name: 'EpisodeEndedError' });
    expect((await c.request('reset', { session: s, seed: 40 })).info.seed).toBe(40);
    await c.request('close', { session: s });
  });

  it('streams dense rewards that sum to the episode\'s stored return', async () => {
    const s = await session({ rewards: { components: [{ kind: 'outcome', weight: 1 }, { kind: 'format', weight: 0.5 }] } });
    await c.request('reset', { session: s });
    const rs = [];
    rs.push(await c.request('step', { session: s, action: { action_type: 'nope' } }));
    rs.push(await c.request('step', { session: s, action: { action_type: 'wait' } }));
    rs.push(await c.request('step', { session: s, action: { action_type: 'status', goal_status: 'complete' } }));
    expect(rs[0].info.rewards).toHaveProperty('format');
    expect(rs[0].reward).not.toBe(rs[1].reward);
    const last = rs.at(-1);
    const total = rs.reduce((sum, r) => sum + r.reward, 0);
    expect(total).toBeCloseTo(last.info.episode_return, 10);
    expect(last.info.episode_rewards).toHaveProperty('format');
    const stored = loadTrajectory(env.workbench.db, last.info.episode_id as EpisodeId).steps;
    expect(stored.map((x) => x.rewards.format?.value)).toEqual(last.info.episode_rewards.format);
    await c.request('close', { session: s });
  });

  it('refuses a session past the SimDroid limit, and a closed connection aborts its episode and frees its device', async () => {
    const other = await connect(env.server);
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await other.request('create', { task: { template: 'ClockStopwatchRun' } })).session);
    expect(await refused(other.request('create', { task: { template: 'ClockStopwatchRun' } }))).toMatchObject({ name: 'DevicesBusyError', message: expect.stringContaining('--devices 4') });
    const r = await other.request('reset', { session: ids[0] });
    await other.close();
    await expect.poll(() => loadTrajectory(env.workbench.db, r.info.episode_id as EpisodeId).episode.status).toBe('error');
    expect(loadTrajectory(env.workbench.db, r.info.episode_id as EpisodeId).episode.terminatedBy).toBe('aborted');
    // Its devices came back to the pool.
    await expect.poll(async () => {
      try {
        const s2 = await session();
        await c.request('close', { session: s2 });
        return true;
      } catch {
        return false;
      }
    }).toBe(true);
  });
});
