import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Workbench } from '../../core/workbench/index.js';
import { flattenUiTree } from '../../core/a11y/ui-tree.js';
import type { AppStore } from '../../renderer/src/store/index.js';
import { flattenTree, hitTest } from '../../renderer/src/views/agent/hit-test.js';
import { specFrom } from '../../renderer/src/views/agent/breakpoints.js';
import { bridgedWorkbench, type BridgedWorkbench } from '../helpers/bridged-workbench.js';
import { ManualRunError } from '../../core/workbench/sessions.js';
import { COMMANDS } from '../../renderer/src/commands/index.js';

/** The Agent view's slice against the real workbench in memory (the embedded SimDroid simdroid-1). */
describe('session slice', () => {
  let bridged: BridgedWorkbench;
  let wb: Workbench;
  let store: AppStore;
  const TASK = 'SystemDarkThemeTurnOn'; // the oracle needs 4 steps: open Settings, Display, Dark theme, complete

  beforeAll(async () => {
    bridged = await bridgedWorkbench('awb-session-slice-', { embeddedDevice: true });
    ({ workbench: wb, store } = bridged);
    await store.getState().loadAgent();
  });
  afterAll(async () => {
    store.getState().closeSession();
    await bridged.close();
  });

  const s = () => store.getState();
  // A failed test must not leave the device busy for the next one.
  afterEach(async () => {
    const running = async () => (await wb.listSessions()).filter((x) => x.state !== 'finished');
    for (const x of await running()) await wb.controlSession({ sessionId: x.id, command: 'stop' }).catch(() => {});
    for (let i = 0; i < 500 && (await running()).length; i++) await new Promise((r) => setTimeout(r, 10));
    for (const e of s().errors) s().dismissError(e.id);
  });
  async function until(cond: () => boolean, what: string, ms = 15_000): Promise<void> {
    const end = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; session: ${JSON.stringify(s().session?.state)} errors: ${JSON.stringify(s().errors)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  const pausedAt = (index: number) => until(() => s().session?.state === 'paused' && s().session?.proposal?.index === index, `a pause at step ${index}`);
  const finished = () => until(() => !!s().session?.result, 'the result');
  async function start(): Promise<string> {
    s().setAgentForm({ templateId: TASK, seed: '1', policy: 'oracle', maxSteps: '' });
    await s().startAgentSession();
    expect(s().errors).toEqual([]);
    await pausedAt(0);
    return s().sessionId!;
  }
  async function stop(): Promise<void> {
    if (s().session && s().session!.state !== 'finished') await s().controlSession('stop');
    await finished();
  }

  it('refuses Run for the manual policy on the server (ManualRunError) and in the controls, while Step goes on', async () => {
    await expect(wb.startSession({ serial: 'simdroid-1', templateId: TASK, seed: 1, policy: 'manual', run: true })).rejects.toThrow(ManualRunError);
    s().setAgentForm({ templateId: TASK, seed: '1', policy: 'manual', maxSteps: '' });
    await s().startAgentSession();
    await pausedAt(0);
    store.setState({ view: 'agent' });
    expect([COMMANDS['session-step'].predicate!(s()), COMMANDS['session-run'].predicate!(s())]).toEqual([true, false]);
    await expect(wb.controlSession({ sessionId: s().sessionId!, command: 'run' })).rejects.toMatchObject({ name: 'ManualRunError', message: expect.stringMatching(/stepped by you/) });
    expect(s().session!.state).toBe('paused');
    await s().controlSession('step');
    await pausedAt(1);
    expect(s().session!.steps).toHaveLength(1);
    await stop();
    s().closeSession();
  });

  it('loads tasks and policies, and shows the chosen task\'s instruction for the seed', async () => {
    expect(s().agentTasks.some((t) => t.id === TASK)).toBe(true);
    expect(s().agentPolicies.map((p) => p.name)).toEqual(['oracle', 'random', 'manual', 'vlm-replay']);
    expect(s().agentDevices.map((d) => d.serial)).toContain('simdroid-1');
    s().setAgentForm({ templateId: TASK, seed: '1' });
    await until(() => s().agentTaskView?.templateId === TASK, 'the instruction');
    expect(s().agentTaskView?.instruction).toBe('Turn dark theme on.');
  });

  it('refuses a bad form with a named error instead of calling the server', async () => {
    s().setAgentForm({ templateId: TASK, seed: '-3' });
    await s().startAgentSession();
    expect(s().errors.at(-1)).toMatchObject({ action: 'Start session', name: 'SessionFormError', message: expect.stringMatching(/Seed/) });
    expect(s().sessionId).toBeNull();
    s().dismissError(s().errors.at(-1)!.id);
  });

  it('starts an oracle session held at the first proposal, steps it, runs it to a successful end with rewards', async () => {
    await start();
    const first = s().session!;
    expect(first).toMatchObject({ templateId: TASK, seed: 1, policy: 'oracle', serial: 'simdroid-1' });
    expect(first.proposal).toMatchObject({ index: 0, action: { action_type: 'open_app', app_name: 'Settings' }, description: 'Open Settings' });
    await until(() => s().sessionScreen?.forIndex === 0, 'the screenshot of the held screen');
    expect([...s().sessionScreen!.png.subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47]);
    expect(s().sessionScreen!.device).toEqual({ width: 1080, height: 2400 });

    await s().controlSession('step');
    await pausedAt(1);
    expect(s().session!.steps.map((x) => x.description)).toEqual(['Open Settings']);
    await s().controlSession('run');
    await finished();
    const end = s().session!;
    expect(end.result).toMatchObject({ status: 'success', success: true, terminatedBy: 'status' });
    expect(end.steps).toHaveLength(4);
    expect(end.steps.some((x) => Object.keys(x.rewards).length > 0)).toBe(true);
    expect(end.episodeId).not.toBeNull();
  });

  it('overrides one step with a different valid action (recorded as overridden); a malformed override is shown, not sent on', async () => {
    await start();
    await s().controlSession('step');
    await pausedAt(1);
    const proposed = s().session!.proposal!;
    expect(proposed.target).not.toBeNull();

    s().setOverrideText('{"action_type":"fly"}');
    expect(await s().overrideJson()).toBe(false);
    expect(s().overrideError).toMatch(/^ActionParseError: Malformed action/);
    s().setOverrideText('{"action_type":"click",');
    expect(await s().overrideJson()).toBe(false);
    expect(s().overrideError).toMatch(/not JSON/);
    expect(s().session!.pendingOverride).toBeNull();

    // The same element, tapped by its centre instead of its index: a different action with the same effect.
    const b = proposed.target!.bounds;
    const tap = { action_type: 'click', x: Math.round((b.left + b.right) / 2), y: Math.round((b.top + b.bottom) / 2) };
    s().setOverrideText(JSON.stringify(tap));
    expect(await s().overrideJson()).toBe(true);
    expect(s().overrideError).toBeNull();
    await until(() => s().session?.pendingOverride !== null, 'the pending override');
    expect(s().session!.pendingOverride).toMatchObject({ action: tap, description: expect.stringMatching(/^Tap/) });

    await s().controlSession('step');
    await pausedAt(2);
    expect(s().session!.pendingOverride).toBeNull();
    expect(s().session!.steps[1]).toMatchObject({ overridden: true, action: tap });
    expect(s().session!.steps[0]!.overridden).toBe(false);
    await s().controlSession('run');
    await finished();
    expect(s().session!.result?.status).toBe('success');
  });

  it('overrides by clicking the screen: the deepest clickable element under the point, by its document-order index', async () => {
    await start();
    await s().controlSession('step');
    await pausedAt(1);
    const proposed = s().session!.proposal!;
    const b = proposed.target!.bounds;
    await until(() => s().sessionTree?.forIndex === 1, 'the held screen\'s tree');
    // The renderer's flattening must number nodes as the core does.
    const state = await wb.screenState({ serial: 'simdroid-1' });
    expect(flattenTree(state.tree).map((e) => e.node.bounds)).toEqual(flattenUiTree(state.tree).map((e) => e.node.bounds));
    const hit = hitTest(flattenTree(state.tree), { x: b.left + 5, y: b.top + 5 })!;
    expect(hit.node.clickable).toBe(true);

    expect(await s().overrideAt({ x: b.left + 5, y: b.top + 5 })).toBe(true);
    await until(() => s().session?.pendingOverride !== null, 'the pending override');
    expect(s().session!.pendingOverride!.action).toEqual({ action_type: 'click', index: hit.ordinal });
    // The oracle tapped the same element, so the click override lands where it meant to.
    expect(s().session!.pendingOverride!.target?.bounds).toEqual(b);
    await stop();
  });

  it('stops a Run at an action_type breakpoint and highlights it; toggling it off lets Run finish', async () => {
    const spec = specFrom('action_type', 'status');
    s().closeSession();
    await s().addBreakpoint(spec);
    const bp = s().agentBreakpoints.at(-1)!;
    await start();
    expect(s().session!.breakpoints).toEqual([bp]);
    await s().controlSession('run');
    await until(() => s().session?.state === 'paused' && s().session!.hitBreakpoints.length > 0, 'the breakpoint');
    expect(s().session!.hitBreakpoints).toEqual([bp.id]);
    expect(s().session!.proposal).toMatchObject({ index: 3, action: { action_type: 'status' } });
    expect(s().session!.steps).toHaveLength(3);

    await s().toggleBreakpoint(bp.id);
    await until(() => s().session?.breakpoints[0]?.enabled === false, 'the breakpoint to be disabled on the server');
    await s().controlSession('run');
    await finished();
    expect(s().session!.result?.status).toBe('success');
  });

  it('Reset stops the running session and starts a new one with the same task, seed, policy and breakpoints', async () => {
    const first = await start();
    const breakpoints = s().session!.breakpoints;
    await s().controlSession('step');
    await pausedAt(1);
    await s().resetSession();
    expect(s().errors).toEqual([]);
    expect(s().sessionId).not.toBe(first);
    await pausedAt(0);
    expect(s().session).toMatchObject({ templateId: TASK, seed: 1, policy: 'oracle', breakpoints, steps: [] });
    expect((await wb.getSession({ sessionId: first })).result).toMatchObject({ terminatedBy: 'stopped' });
    await stop();
  });

  it('shows a session started elsewhere (openSession), and opens its episode in the Trajectories view', async () => {
    const other = await wb.startSession({ serial: 'simdroid-1', templateId: TASK, seed: 2, policy: 'oracle', run: true });
    await s().openSession(other.id);
    expect(s().sessionId).toBe(other.id);
    await finished();
    expect(s().session).toMatchObject({ id: other.id, seed: 2, result: { status: 'success' } });
    s().openSessionEpisode();
    expect(s().view).toBe('trajectories');
    const opener = (s() as unknown as { openEpisode?: unknown }).openEpisode;
    if (typeof opener !== 'function') expect(s().pendingEpisodeId).toBe(s().session!.episodeId);
    expect(s().session!.episodeId).toBeGreaterThan(0);
  });
});
