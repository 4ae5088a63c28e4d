import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvClient } from '../../core/env/client.js';
import type { SessionInfo } from '../../core/api/types.js';
import { loadTrajectory, type EpisodeId } from '../../core/store/index.js';
import { connect, envServer } from './helpers.js';

/**
 * An outside agent's session seen and steered from the workbench (the Agent view's API): listed, paused so the agent's
 * step waits, single-stepped, overridden, taken over and handed back — with the agent's results saying what happened.
 */
let env: Awaited<ReturnType<typeof envServer>>;
let c: EnvClient;
const events: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  env = await envServer();
  c = await connect(env.server);
  c.onEvent((e) => events.push(e));
});
afterAll(async () => {
  await c.close();
  await env.close();
});

/** Resolves when the agent's request has its answer; `settled()` says whether it has yet. */
function tracked<T>(p: Promise<T>): Promise<T> & { settled(): boolean } {
  let done = false;
  const out = p.finally(() => {
    done = true;
  }) as Promise<T> & { settled(): boolean };
  out.settled = () => done;
  return out;
}

describe('outside sessions in the workbench', () => {
  it('lists the session with its agent and run, and mirrors its episode', async () => {
    const seen: SessionInfo[][] = [];
    const off = env.workbench.onSessions({}, (list) => seen.push(list));
    const { session } = await c.request('create', { task: { template: 'ClockStopwatchRun', seed: 2 }, agent: 'watched', run: 'watch test' });
    await c.request('reset', { session });
    const info = await env.workbench.getSession({ sessionId: session });
    expect(info).toMatchObject({
      id: session, policy: 'watched', templateId: 'ClockStopwatchRun', seed: 2, state: 'running',
      agent: { name: 'watched', run: { name: 'watch test' }, episodes: 1, takenOver: false, connected: true },
    });
    expect(seen.at(-1)!.map((s) => s.id)).toContain(session);
    // The device is shown as held by the session, and live input into it is refused (it would go unrecorded).
    const device = (await env.workbench.listDevices()).devices.find((d) => d.serial === info.serial)!;
    expect(device.sessionId).toBe(session);
    await expect(env.workbench.sendInput({ serial: info.serial, event: { kind: 'key', key: 'HOME' } })).rejects.toMatchObject({ name: 'DeviceInSessionError' });
    await c.request('step', { session, action: { action_type: 'wait' } });
    expect((await env.workbench.getSession({ sessionId: session })).steps).toHaveLength(1);
    await c.request('close', { session });
    await expect.poll(async () => (await env.workbench.listSessions()).some((s) => s.id === session)).toBe(false);
    off();
  });

  it('pause holds the agent\'s next step (with a notice), Step carries out an override, Run lets it go', async () => {
    const { session } = await c.request('create', { task: { template: 'ClockStopwatchRun', seed: 2 }, agent: 'paused' });
    await c.request('reset', { session });
    env.workbench.controlSession({ sessionId: session, command: 'pause' });
    events.length = 0;
    const step = tracked(c.request('step', { session, action: { action_type: 'wait' } }));
    await expect.poll(() => events.some((e) => e.event === 'held' && e.session === session)).toBe(true);
    const held = await env.workbench.getSession({ sessionId: session });
    expect(held).toMatchObject({ state: 'paused', proposal: { action: { action_type: 'wait' } } });
    expect(step.settled()).toBe(false);
    await env.workbench.overrideAction({ sessionId: session, action: { action_type: 'open_app', app_name: 'Clock' } });
    await env.workbench.controlSession({ sessionId: session, command: 'step' });
    const r = await step;
    expect(r.info).toMatchObject({ overridden: true, action: { action_type: 'open_app', app_name: 'Clock' }, person_steps: 0 });
    expect(events.some((e) => e.event === 'released' && e.session === session)).toBe(true);
    // Still paused: the next step waits too, until Run.
    const next = tracked(c.request('step', { session, action: { action_type: 'wait' } }));
    await expect.poll(async () => (await env.workbench.getSession({ sessionId: session })).state).toBe('paused');
    expect(next.settled()).toBe(false);
    await env.workbench.controlSession({ sessionId: session, command: 'run' });
    expect((await next).info).toMatchObject({ overridden: false, action: { action_type: 'wait' } });
    const again = await c.request('step', { session, action: { action_type: 'wait' } });
    expect(again.info.step).toBe(2);
    await c.request('close', { session });
  });

  it('a breakpoint holds the agent at the action it names; Stop ends the episode and the agent\'s step gets the end', async () => {
    const { session } = await c.request('create', { task: { template: 'ClockStopwatchRun', seed: 2 }, agent: 'broken' });
    await env.workbench.setBreakpoints({ sessionId: session, breakpoints: [{ id: 'b1', enabled: true, spec: { kind: 'terminal' } }] });
    await c.request('reset', { session });
    expect((await c.request('step', { session, action: { action_type: 'wait' } })).truncated).toBe(false);
    const end = tracked(c.request('step', { session, action: { action_type: 'status', goal_status: 'complete' } }));
    await expect.poll(async () => (await env.workbench.getSession({ sessionId: session })).hitBreakpoints).toEqual(['b1']);
    await env.workbench.controlSession({ sessionId: session, command: 'stop' });
    expect(await end).toMatchObject({ terminated: false, truncated: true, info: { terminated_by: 'stopped', status: 'error', success: null } });
    // The breakpoints stay with the session: the next episode's terminal action is held as well.
    expect((await env.workbench.getSession({ sessionId: session })).breakpoints.map((b) => b.id)).toEqual(['b1']);
    await c.request('close', { session });
  });

  it('take over: the person acts in the agent\'s place, and on hand back the agent\'s step returns with the person\'s steps', async () => {
    const { session } = await c.request('create', { task: { template: 'ClockStopwatchRun', seed: 2 }, agent: 'helped' });
    const first = await c.request('reset', { session });
    await env.workbench.controlSession({ sessionId: session, command: 'takeover' });
    expect((await env.workbench.getSession({ sessionId: session })).agent!.takenOver).toBe(true);
    const agentStep = tracked(c.request('step', { session, action: { action_type: 'wait' } }));
    await expect.poll(async () => (await env.workbench.getSession({ sessionId: session })).state).toBe('paused');
    // The person replaces the agent's action, then takes one more step of their own.
    await env.workbench.overrideAction({ sessionId: session, action: { action_type: 'open_app', app_name: 'Clock' } });
    await env.workbench.controlSession({ sessionId: session, command: 'step' });
    await expect.poll(async () => (await env.workbench.getSession({ sessionId: session })).proposal?.handover ?? null).toMatch(/took over/);
    // Nobody chose an action for this step yet: Step and Run would record the placeholder.
    await expect(env.workbench.controlSession({ sessionId: session, command: 'step' })).rejects.toMatchObject({ name: 'SessionControlError', message: expect.stringContaining('choose the action first') });
    await expect(env.workbench.controlSession({ sessionId: session, command: 'run' })).rejects.toMatchObject({ name: 'SessionControlError', message: expect.stringContaining('hand it back') });
    await env.workbench.overrideAction({ sessionId: session, action: { action_type: 'navigate_home' } });
    await env.workbench.controlSession({ sessionId: session, command: 'step' });
    await expect.poll(async () => (await env.workbench.getSession({ sessionId: session })).steps.length).toBe(2);
    expect(agentStep.settled()).toBe(false);
    await env.workbench.controlSession({ sessionId: session, command: 'handback' });
    const back = await agentStep;
    // Until the agent's next action arrives, nothing may be stepped in its place.
    await expect(env.workbench.controlSession({ sessionId: session, command: 'step' })).rejects.toMatchObject({ name: 'SessionControlError', message: expect.stringContaining('agent is choosing') });
    expect(back.info).toMatchObject({ overridden: true, person_steps: 1, action: { action_type: 'open_app' } });
    expect(back.observation.step).toBe(2);
    // The agent's next action replaces the person's placeholder and is the agent's own (not overridden).
    const own = await c.request('step', { session, action: { action_type: 'wait' } });
    expect(own.info).toMatchObject({ overridden: false, person_steps: 0, step: 2 });
    const steps = loadTrajectory(env.workbench.db, first.info.episode_id as EpisodeId).steps;
    expect(steps.map((s) => [s.action?.action_type, s.overridden ?? false])).toEqual([['open_app', true], ['navigate_home', true], ['wait', false]]);
    await c.request('close', { session });
  });
});
