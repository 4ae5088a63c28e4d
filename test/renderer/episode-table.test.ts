// @vitest-environment happy-dom
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import type { EpisodeFilter, EpisodePage, EpisodeSummary, Trajectory } from '../../core/api/types.js';
import { installRouting } from '../../renderer/src/routes.js';
import { createAppStore, setAppStore, type AppStore } from '../../renderer/src/store/index.js';
import { TrajectoriesView } from '../../renderer/src/views/trajectories/TrajectoriesView.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

/** Training run 3's recorded rollouts (issue 33): two iterations × one group of two, each with its reward and advantage. */
const POLICY = 'builtin-grpo-from-checkpoint:sft-2026-11-29T08-30-31-022Z';
function rollout(id: number, iteration: number, index: number, reward: number): EpisodeSummary {
  return {
    id: id as EpisodeSummary['id'], uid: `u${id}`, templateId: 'ClockStartTimer', app: 'Clock', difficulty: 'easy', seed: 123_456_789, instruction: `Start a timer ${id}`,
    policy: POLICY, status: reward > 0 ? 'success' : 'failure', steps: 5, startedAt: 1_700_000_000_000 + id * 1000, durationMs: 900,
    overriddenSteps: 0, reason: null, rollout: { iteration, group: 0, index, reward, advantage: reward > 0 ? 0.71 : -0.71 },
  };
}
const ROWS = [rollout(4, 2, 1, 1), rollout(3, 2, 0, 0), rollout(2, 1, 1, 0), rollout(1, 1, 0, 0)];

function fakeApi() {
  const calls: EpisodeFilter[] = [];
  const api = {
    onActivity: () => () => {},
    listEpisodes: async (f: EpisodeFilter): Promise<EpisodePage> => {
      calls.push(f);
      const rows = ROWS.filter((r) => (f.iteration === undefined || r.rollout!.iteration === f.iteration));
      return { rows, total: rows.length, counts: { success: 1, failure: rows.length - 1, error: 0, running: 0, interrupted: 0 } };
    },
    episodeFacets: async () => ({
      templates: ['ClockStartTimer'], apps: ['Clock'], policies: [POLICY],
      runs: [{ id: 3, name: 'grpo unseen-instance/train seed 0', kind: 'training', iterations: [1, 2] }, { id: 1, name: 'nightly', kind: 'suite', iterations: [] }],
    }),
    getTrajectory: async ({ episodeId }: { episodeId: number }): Promise<Trajectory> => ({
      episode: {
        id: episodeId, uid: 'u', runId: 3, policy: POLICY, status: 'success', success: true, terminatedBy: 'status', answer: null, error: null,
        verdict: null, stepsCount: 0, maxSteps: 5, startedAt: 0, finishedAt: 1000, timings: null, device: { serial: 's', width: 1080, height: 2400, density: 420 },
      },
      instance: { templateId: 'ClockStartTimer', seed: 1, params: {}, instruction: 'Start a timer', template: {} },
      steps: [], final: { screenshot: null, tree: null },
      rollout: { iteration: 2, group: 0, index: 1, reward: 1, advantage: 0.71 },
    }) as unknown as Trajectory,
    successfulEpisodes: async () => [],
    getTrainingMetrics: async () => [],
  };
  return { api: api as unknown as WorkbenchApi, calls };
}

function fakeWindow(hash: string) {
  const w = {
    location: { hash },
    replaces: 0,
    history: {
      pushState: (_s: unknown, _t: string, url: string) => void (w.location.hash = url),
      replaceState: (_s: unknown, _t: string, url: string) => ((w.location.hash = url), w.replaces++),
    },
    addEventListener: () => {},
    removeEventListener: () => {},
  };
  return w;
}

const flush = async () => {
  for (let i = 0; i < 6; i++) await act(async () => { await new Promise((r) => setTimeout(r, 0)); });
};
const q = (id: string) => document.querySelector(`[data-testid="${id}"]`) as HTMLElement;
const headers = () => [...document.querySelectorAll('.traj-head [role="columnheader"]')].map((h) => h.textContent);
const cell = (id: number, col: string) => q(`episode-row-${id}`).querySelector(`[data-col="${col}"]`) as HTMLElement;

describe('the episode table of a training run', () => {
  let root: Root;
  let store: AppStore;
  let calls: EpisodeFilter[];
  let win: ReturnType<typeof fakeWindow>;

  beforeAll(async () => {
    const fake = fakeApi();
    calls = fake.calls;
    store = createAppStore(fake.api);
    setAppStore(store);
    win = fakeWindow('#/trajectories?run=3&iteration=2&status=failure,success&app=Clock');
    installRouting(store, win as never);
    const host = document.createElement('div');
    document.body.append(host);
    root = createRoot(host);
    await act(async () => root.render(createElement(TrajectoriesView)));
    await flush();
  });

  afterAll(() => act(() => root.unmount()));

  it('takes its filters from the link: run, iteration, status and app', () => {
    expect(store.getState().view).toBe('trajectories');
    expect(calls.at(-1)).toEqual({ runId: 3, iteration: 2, status: ['failure', 'success'], app: 'Clock', limit: 100, offset: 0 });
    expect((q('filter-run') as HTMLSelectElement).value).toBe('3');
    expect((q('filter-iteration') as HTMLSelectElement).value).toBe('2');
  });

  it('shows a rollout’s iteration, group, reward and advantage in columns of their own; every cell’s tooltip is its whole text', () => {
    expect(headers()).toEqual(['', 'ID', 'Task', 'App', 'Seed', 'Policy', 'Status', 'It.', 'Group', 'Reward', 'Adv.', 'Steps', 'Started', 'Duration']);
    expect(['iteration', 'group', 'reward', 'advantage'].map((c) => cell(4, c).textContent)).toEqual(['2', 'g0/1', '1.00', '0.71']);
    expect(cell(3, 'advantage').textContent).toBe('-0.71');
    expect(cell(4, 'group').title).toBe('group 0, rollout 1');
    expect(cell(4, 'policy').title).toBe(POLICY);
    expect(cell(4, 'seed').textContent).toBe('123456789');
    expect(cell(4, 'task').title).toBe('ClockStartTimer: Start a timer 4');
  });

  it('sorts by a column header: ascending, descending, then the default order; the sort is in the link', async () => {
    await act(async () => q('sort-reward').click());
    await flush();
    expect(calls.at(-1)!.sort).toEqual({ by: 'reward', dir: 'asc' });
    expect(q('sort-reward').textContent).toBe('Reward ▲');
    expect(q('sort-reward').parentElement!.getAttribute('aria-sort')).toBe('ascending');
    expect(win.location.hash).toBe('#/trajectories?run=3&iteration=2&status=failure%2Csuccess&app=Clock&sort=reward.asc');
    await act(async () => q('sort-reward').click());
    await flush();
    expect(calls.at(-1)!.sort).toEqual({ by: 'reward', dir: 'desc' });
    await act(async () => q('sort-reward').click());
    await flush();
    expect(calls.at(-1)!.sort).toBeUndefined();
    // Filter and sort changes replace the history entry: Back leaves the list rather than stepping through its filters.
    expect(win.replaces).toBeGreaterThanOrEqual(3);
  });

  it('the replay header shows the rollout’s iteration, group, reward and advantage', async () => {
    await act(async () => q('episode-row-4').click());
    await flush();
    expect(['replay-iteration', 'replay-group', 'replay-reward', 'replay-advantage'].map((t) => q(t).textContent)).toEqual(['2', 'g0/1', '1.00', '0.71']);
    expect(win.location.hash).toBe('#/trajectories/episode/4');
  });

  it('a run’s "Episodes" opens the run’s list, not the episode open before', async () => {
    await act(async () => store.getState().openRunEpisodes(3, 1));
    await flush();
    expect(store.getState().replay).toBeNull();
    expect(q('replay-view')).toBeNull();
    expect(calls.at(-1)).toMatchObject({ runId: 3, iteration: 1 });
    expect(win.location.hash).toBe('#/trajectories?run=3&iteration=1&status=failure%2Csuccess&app=Clock');
  });

  it('a suite run’s list has no rollout columns', async () => {
    await act(async () => store.getState().setEpisodeQuery({ runId: 1 }));
    await flush();
    expect(headers()).not.toContain('Reward');
  });
});
