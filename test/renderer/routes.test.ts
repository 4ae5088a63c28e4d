// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import type { Trajectory } from '../../core/api/types.js';
import { createAppStore } from '../../renderer/src/store/index.js';
import { formatRoute, installRouting, parseRoute, type Route } from '../../renderer/src/routes.js';

/** Deep links (issue 21): the URL hash names the view, episode (and step) or run; a reload lands there again. */
const trajectory = (episodeId: number) => ({
  episode: { id: episodeId, runId: 1, policy: 'oracle', status: 'success', stepsCount: 3 },
  instance: { templateId: 'ContactsAddContact', seed: 1, params: {}, instruction: 'Add a contact' },
  steps: [0, 1, 2].map((index) => ({ index, raw: {}, screenshot: null, tree: null, rewards: {} })),
  final: { screenshot: null, tree: null },
}) as unknown as Trajectory;

function fakeApi() {
  const calls: string[] = [];
  const api = {
    onActivity: () => () => {},
    getTrajectory: async ({ episodeId }: { episodeId: number }) => (calls.push(`getTrajectory ${episodeId}`), trajectory(episodeId)),
    successfulEpisodes: async () => [],
    getTrainingMetrics: async ({ runId }: { runId: number }) => (calls.push(`getTrainingMetrics ${runId}`), []),
  };
  return { api: api as unknown as WorkbenchApi, calls };
}

/** A window whose location and history are plain objects (history entries counted). */
function fakeWindow(hash: string) {
  const w = {
    location: { hash },
    pushes: 0,
    history: {
      pushState: (_s: unknown, _t: string, url: string) => ((w.location.hash = url), w.pushes++),
      replaceState: (_s: unknown, _t: string, url: string) => void (w.location.hash = url),
    },
    listeners: [] as Array<() => void>,
    addEventListener: (_e: string, l: () => void) => void w.listeners.push(l),
    removeEventListener: () => {},
  };
  return w;
}
const settle = () => new Promise((r) => setTimeout(r, 0));

describe('deep links', () => {
  it('formats and parses each route; anything else is not a route', () => {
    const routes: Route[] = [
      { kind: 'view', view: 'agent' }, { kind: 'episode', episodeId: 12, step: 0 }, { kind: 'episode', episodeId: 12, step: 3 },
      { kind: 'episode', episodeId: 12, step: 'end' }, { kind: 'run', runId: 5 },
      { kind: 'episodes', query: { runId: 3, iteration: 2, status: ['failure'], app: 'Clock', templateId: null, policy: null, sort: { by: 'reward', dir: 'desc' } } },
    ];
    for (const r of routes) expect(parseRoute(formatRoute(r))).toEqual(r);
    // The step in the link is the one the viewer shows ("step 4 of 9"): position 3 is step 4.
    expect(formatRoute({ kind: 'episode', episodeId: 12, step: 3 })).toBe('#/trajectories/episode/12/step/4');
    expect(formatRoute(routes[5]!)).toBe('#/trajectories?run=3&iteration=2&status=failure&app=Clock&sort=reward.desc');
    for (const bad of ['', '#/', '#/nowhere', '#/trajectories/episode/x', '#/trajectories/episode/3/step/0', '#/training/run/-1', '#/agent/extra']) {
      expect(parseRoute(bad)).toBeNull();
    }
    // A link's unknown status or sort is left out, not applied.
    expect(parseRoute('#/trajectories?status=finished,error&sort=colour.up')).toMatchObject({ kind: 'episodes', query: { status: ['error'], sort: null } });
  });

  it('a reload on an episode link opens that episode at its step; moving on writes the hash (steps replace, views push)', async () => {
    const { api, calls } = fakeApi();
    const store = createAppStore(api);
    const win = fakeWindow('#/trajectories/episode/42/step/2');
    installRouting(store, win as never);
    for (let i = 0; i < 5; i++) await settle();
    expect(calls).toContain('getTrajectory 42');
    // Step 2 as the viewer numbers it: timeline position 1.
    expect(store.getState()).toMatchObject({ view: 'trajectories', replayStep: 1, replay: { episodeId: 42 } });
    await store.getState().setReplayStep(2);
    expect(win.location.hash).toBe('#/trajectories/episode/42/step/3');
    await store.getState().setReplayStep(3);
    expect(win.location.hash).toBe('#/trajectories/episode/42/end');
    expect(win.pushes).toBe(0);
    store.getState().setView('agent');
    expect(win.location.hash).toBe('#/agent');
    expect(win.pushes).toBe(1);
    // Back (a hashchange) goes to the run the link names.
    win.location.hash = '#/training/run/7';
    win.listeners.forEach((l) => l());
    for (let i = 0; i < 5; i++) await settle();
    expect(store.getState()).toMatchObject({ view: 'training', chartRunId: 7 });
    expect(calls).toContain('getTrainingMetrics 7');
  });

  it('the Agent form survives a reload (a new store reads what the last one saved)', () => {
    const first = createAppStore(fakeApi().api);
    first.getState().setAgentForm({ templateId: 'ClockAddAlarm', seed: '17', policy: 'manual', maxSteps: '9' });
    const reloaded = createAppStore(fakeApi().api);
    expect(reloaded.getState().agentForm).toMatchObject({ templateId: 'ClockAddAlarm', seed: '17', policy: 'manual', maxSteps: '9' });
    localStorage.setItem('awb.agent-form', '{"seed": 5, "policy": "random"}');
    expect(createAppStore(fakeApi().api).getState().agentForm).toMatchObject({ seed: '1', policy: 'random' });
  });
});
