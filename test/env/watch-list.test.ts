import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnvClient } from '../../core/env/client.js';
import type { SessionInfo } from '../../core/api/types.js';
import { connect, envServer } from './helpers.js';

/**
 * The session list the Agent view shows (`onSessions`) follows an outside agent's session: its state (running, held,
 * between episodes), who has it (a takeover), its next episode and its end; not each step, and at most one list per
 * 100 ms for state changes. And its run is named as an outside agent's (`env`) in the trajectory browser's run filter.
 */
let env: Awaited<ReturnType<typeof envServer>>;
let c: EnvClient;

beforeAll(async () => {
  env = await envServer();
  c = await connect(env.server);
});
afterAll(async () => {
  await c.close();
  await env.close();
});

/** The session as the latest list showed it (undefined: not listed). */
const listedAs = (lists: SessionInfo[][], id: string) => lists.at(-1)?.find((s) => s.id === id);

describe('the session list of outside agents', () => {
  it('follows the session\'s state, takeover and episodes, not its steps, and drops it when the agent closes it', async () => {
    const lists: SessionInfo[][] = [];
    const off = env.workbench.onSessions({}, (list) => lists.push(list));
    const { session, run } = await c.request('create', { task: { template: 'ClockStopwatchRun', seed: 2 }, agent: 'listed', run: 'list test' });
    await c.request('reset', { session });
    await expect.poll(() => listedAs(lists, session)?.state).toBe('running');
    expect(listedAs(lists, session)).toMatchObject({ templateId: 'ClockStopwatchRun', seed: 2, agent: { name: 'listed', episodes: 1, takenOver: false, connected: true } });

    // Steps that change nothing the list shows do not send it again.
    const before = lists.length;
    for (let i = 0; i < 3; i++) await c.request('step', { session, action: { action_type: 'wait' } });
    expect(lists.length).toBe(before);

    // Paused: the agent's next step is held, and the list says so.
    await env.workbench.controlSession({ sessionId: session, command: 'pause' });
    const held = c.request('step', { session, action: { action_type: 'wait' } });
    await expect.poll(() => listedAs(lists, session)?.state).toBe('paused');
    await env.workbench.controlSession({ sessionId: session, command: 'takeover' });
    await expect.poll(() => listedAs(lists, session)?.agent?.takenOver).toBe(true);
    await env.workbench.controlSession({ sessionId: session, command: 'handback' });
    await expect.poll(() => listedAs(lists, session)?.agent?.takenOver).toBe(false);
    await env.workbench.controlSession({ sessionId: session, command: 'stop' });
    expect(await held).toMatchObject({ truncated: true });
    await expect.poll(() => listedAs(lists, session)?.state).toBe('finished');

    // The next episode is listed with its count; the session's pause holds it too.
    await env.workbench.controlSession({ sessionId: session, command: 'run' });
    await c.request('reset', { session, seed: 3 });
    await expect.poll(() => listedAs(lists, session)?.agent?.episodes).toBe(2);
    expect(listedAs(lists, session)).toMatchObject({ seed: 3, state: 'running' });

    const facets = await env.workbench.episodeFacets({});
    expect(facets.runs.find((r) => r.id === run.id)).toMatchObject({ name: 'list test', kind: 'env' });

    // Closing: the list no longer shows it.
    await c.request('close', { session });
    await expect.poll(() => listedAs(lists, session)).toBeUndefined();
    off();
  });
});
