import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import { channelPair, connectApi } from '../../core/api/bridge.js';
import { serveApi } from '../../core/api/serve-api.js';
import type { EnvClient } from '../../core/env/client.js';
import { createAppStore, type AppStore } from '../../renderer/src/store/index.js';
import { connect, envServer } from '../env/helpers.js';

/**
 * The Agent view's slices with an outside agent on the other side: the real workbench and its environment server, an
 * agent speaking the protocol over a real WebSocket, and the renderer's store over the bridge. The list follows the
 * agent's session; attached, the view mirrors its device, holds its steps, follows it into its next episode and
 * keeps its last state when it closes.
 */
let env: Awaited<ReturnType<typeof envServer>>;
let agent: EnvClient;
let store: AppStore;
let stopWatching: () => void;

beforeAll(async () => {
  env = await envServer();
  const [client, server] = channelPair();
  serveApi(env.workbench, server);
  store = createAppStore(connectApi<WorkbenchApi>(client));
  store.setState({ view: 'agent' });
  stopWatching = store.getState().watchOutsideSessions();
  agent = await connect(env.server, 'slice-test');
});
afterAll(async () => {
  stopWatching();
  store.getState().closeSession();
  await agent.close();
  await env.close();
});

const s = () => store.getState();
async function until(cond: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; session: ${JSON.stringify(s().session && { state: s().session!.state, agent: s().session!.agent })} errors: ${JSON.stringify(s().errors)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('an outside agent\'s session in the Agent view', () => {
  it('is listed, attached, held, stepped by a person, followed into the next episode, and kept after the agent leaves', async () => {
    const { session } = await agent.request('create', {
      task: { template: 'ClockStopwatchRun', seed: 2 }, agent: 'slice-agent', run: 'slice run', record: { screenshots: 'half' },
    });
    await agent.request('reset', { session });
    await until(() => s().outsideSessions.some((x) => x.id === session && x.state === 'running'), 'the session listed as running');
    expect(s().outsideSessions.find((x) => x.id === session)!.agent).toMatchObject({ name: 'slice-agent', run: { name: 'slice run' }, episodes: 1 });

    // Attached: the device is mirrored live, and the agent's steps show.
    await s().openSession(session);
    await until(() => s().sessionFrame !== null, 'a mirrored frame');
    expect(s().sessionFrame!.serial).toBe(s().session!.serial);
    await agent.request('step', { session, action: { action_type: 'wait' }, thought: 'nothing yet', prompt: 'p1', reply: 'r1' });
    await until(() => s().session?.steps.length === 1, 'the first step');
    expect(s().session!.steps[0]).toMatchObject({ thought: 'nothing yet' });
    // The prompt and reply stay in the store for the replay: the live events do not carry them (megabytes with images).
    expect(s().session!.steps[0]).not.toHaveProperty('prompt');

    // Paused: the agent's next step is held, with its screen and tree, and the list says so.
    await s().controlSession('pause');
    const held = agent.request('step', { session, action: { action_type: 'wait' } });
    await until(() => s().session?.state === 'paused' && s().sessionTree !== null && s().sessionScreen?.forIndex === 1, 'the held step, its screen and tree');
    await until(() => s().outsideSessions.find((x) => x.id === session)?.state === 'paused', 'the list to say paused');

    // Taken over: a person's action is carried out at once; the agent's step waits until hand back.
    await s().controlSession('takeover');
    await until(() => !!s().session?.agent?.takenOver, 'the takeover');
    expect(await s().actAsPerson({ action_type: 'open_app', app_name: 'Clock' })).toBe(true);
    await until(() => s().session?.steps.length === 2 && s().session?.state === 'paused', 'the person\'s step and the next hold');
    expect(s().session!.steps[1]).toMatchObject({ overridden: true, action: { action_type: 'open_app' } });
    await s().controlSession('handback');
    expect((await held).info).toMatchObject({ overridden: true, person_steps: 0, action: { action_type: 'open_app' } });
    expect(s().errors).toEqual([]);

    // Still paused (the hold was the person's before the takeover): the agent's next step is held; Stop ends the
    // episode, and the agent's step gets the end as truncated.
    const next = agent.request('step', { session, action: { action_type: 'wait' } });
    await until(() => s().session?.state === 'paused' && s().session?.proposal?.handover === null, 'the agent\'s own step held');
    expect(s().session!.steps).toHaveLength(2);
    await s().controlSession('stop');
    expect(await next).toMatchObject({ truncated: true, info: { terminated_by: 'stopped' } });
    await until(() => s().session?.state === 'finished' && s().session?.result !== null, 'the end of episode 1');
    const firstEpisode = s().session!.episodeId;
    await s().controlSession('run');
    await agent.request('reset', { session });
    await until(() => s().session?.agent?.episodes === 2 && s().session?.state === 'running', 'episode 2');
    expect(s().session!.steps).toEqual([]);
    expect(s().session!.episodeId).not.toBe(firstEpisode);
    expect(s().sessionTree).toBeNull();

    // The agent leaves: the list drops the session, the view keeps its last state, said to be disconnected.
    await agent.request('close', { session });
    await until(() => !s().outsideSessions.some((x) => x.id === session), 'the session to leave the list');
    await until(() => s().session?.agent?.connected === false, 'the view to see the agent gone');
    expect(s().session!.state).toBe('finished');
    expect(s().sessionFrame).not.toBeNull();
    expect(s().errors).toEqual([]);
  });
});
