// @vitest-environment happy-dom
import { act, createElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WorkbenchApi } from '../../core/api/api.js';
import type { IterationMetricsRow, TrainConfigDescription, TrainingRunInfo } from '../../core/api/types.js';
import { App } from '../../renderer/src/App.js';
import { installRouting } from '../../renderer/src/routes.js';
import { createAppStore, setAppStore, type AppStore } from '../../renderer/src/store/index.js';
import { noSignalAdvice, noSignalWarning } from '../../renderer/src/views/training/health.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const GRPO: TrainConfigDescription = {
  // No charts: uPlot needs a canvas, which happy-dom has not (the charts are checked in Chromium, test/e2e).
  kind: 'grpo', presets: [{ name: 'smoke', label: 'Smoke', description: '', config: { iterations: 20 } }], charts: [],
  fields: [
    { path: 'iterations', description: 'GRPO iterations', kind: 'integer', nullable: false, optional: false, default: 500 },
    { path: 'init', description: 'Checkpoint to start from', kind: 'text', nullable: true, optional: false, default: null },
  ],
};
const SFT: TrainConfigDescription = {
  kind: 'sft', presets: [], charts: [], fields: [{ path: 'sft.epochs', description: 'Epochs', kind: 'integer', nullable: false, optional: false, default: 30 }],
};
/** Run 4: a GRPO run from an SFT warm start that solved nothing for 6 iterations (every group flat). */
const dead: IterationMetricsRow[] = Array.from({ length: 6 }, (_, i) => ({ iteration: i + 1, metrics: { 'success/rate': 0, 'adv/zero_std_frac': 1 } }));
const RUN: TrainingRunInfo = {
  runId: 4, name: 'grpo unseen-instance/train seed 0', trainer: 'grpo', status: 'finished', createdAt: 0, finishedAt: 1, iterations: 6,
  last: dead.at(-1)!.metrics, checkpoint: null, job: null, config: { trainer: 'grpo', init: 'checkpoint:sft-1', iterations: 6 },
};

/** The API of a store with one training run; anything the views ask that is not listed answers empty. */
function fakeApi() {
  const given: Record<string, unknown> = {
    describeTrainConfig: async ({ kind }: { kind: string }) => (kind === 'grpo' ? GRPO : SFT),
    listTrainingRuns: async () => [RUN],
    getTrainingMetrics: async ({ runId }: { runId: number }) => (runId === 4 ? dead : []),
    listTrainingJobs: async () => [],
    listCheckpoints: async () => [],
    listPolicies: async () => [],
    listEvaluations: async () => [],
    listDevices: async () => ({ devices: [], adbError: null }),
    listAvds: async () => ({ avds: [], error: null }),
    startTraining: async () => {
      throw Object.assign(new Error('One job at a time: job-1 is running'), { name: 'TrainingBusyError' });
    },
  };
  return new Proxy(given, {
    get: (t, name: string) => t[name] ?? (name.startsWith('on') ? () => () => {} : async () => []),
  }) as unknown as WorkbenchApi;
}

const flush = async () => {
  for (let i = 0; i < 8; i++) await act(async () => { await new Promise((r) => setTimeout(r, 0)); });
};
const q = (id: string) => document.querySelector(`[data-testid="${id}"]`) as HTMLElement | null;
const input = (id: string) => q(id) as HTMLInputElement;
async function type(el: HTMLInputElement, value: string) {
  await act(async () => {
    Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(el, value);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
}

describe('the Training view (issue 33)', () => {
  let root: Root;
  let store: AppStore;
  const win = { location: { hash: '#/training/run/999' }, history: { pushState: () => {}, replaceState: () => {} }, addEventListener: () => {}, removeEventListener: () => {} };

  beforeAll(async () => {
    store = createAppStore(fakeApi());
    setAppStore(store);
    installRouting(store, win as never);
    const host = document.createElement('div');
    document.body.append(host);
    root = createRoot(host);
    await act(async () => root.render(createElement(App)));
    await flush();
  });
  afterAll(() => act(() => root.unmount()));

  it('a link to a run the store does not have says so, instead of drawing an empty run', () => {
    expect(store.getState()).toMatchObject({ view: 'training', chartRunId: 999 });
    expect(q('training-run-missing')!.textContent).toContain('There is no training run 999 in this store');
    expect(document.querySelectorAll('[data-testid^="chart-"]').length).toBe(0);
  });

  it('advises by what the run did: it already had a warm start, so not "start from a warm start"', async () => {
    await act(async () => store.getState().showRun(4));
    await flush();
    const warn = q('training-no-signal')!;
    expect(warn.dataset.cause).toBe('none-succeeded');
    expect(warn.textContent).toContain('no rollout succeeded');
    expect(warn.textContent).toContain('train the init (checkpoint:sft-1) longer');
    expect(warn.textContent).not.toContain('start from a warm start');
  });

  it('keeps the New run form as typed across views and trainer switches', async () => {
    await type(input('train-iterations'), '37');
    await act(async () => store.getState().setView('devices'));
    await flush();
    expect(q('train-iterations')).toBeNull();
    await act(async () => store.getState().setView('training'));
    await flush();
    expect(input('train-iterations').value).toBe('37');
    await act(async () => store.getState().setTrainingKind('sft'));
    await act(async () => store.getState().setTrainingKind('grpo'));
    await flush();
    expect(input('train-iterations').value).toBe('37');
  });

  it('shows a failed call’s banner on the view it happened on, not on the others', async () => {
    await act(async () => q('training-start')!.click());
    await flush();
    expect(document.querySelectorAll('[data-testid="error-banner"]')).toHaveLength(1);
    expect(q('error-banner')!.textContent).toContain('TrainingBusyError');
    await act(async () => store.getState().setView('devices'));
    await flush();
    expect(document.querySelectorAll('[data-testid="error-banner"]')).toHaveLength(0);
    await act(async () => store.getState().setView('training'));
    await flush();
    expect(document.querySelectorAll('[data-testid="error-banner"]')).toHaveLength(1);
  });
});

describe('the no-signal advice', () => {
  const rows = (rate: number) => Array.from({ length: 5 }, (_, i) => ({ iteration: i + 1, metrics: { 'success/rate': rate, 'adv/zero_std_frac': 1 } }));
  it('says the tasks are solved when every rollout succeeded, and advises a warm start only to a run without one', () => {
    const solved = rows(1);
    expect(noSignalAdvice(solved, noSignalWarning(solved)!, 'checkpoint:sft-1')).toMatchObject({ cause: 'all-succeeded', says: 'every rollout succeeded' });
    expect(noSignalAdvice(solved, noSignalWarning(solved)!, null).advice.join(' ')).not.toContain('warm start');
    const none = rows(0);
    expect(noSignalAdvice(none, noSignalWarning(none)!, null).advice[0]).toBe('start from a warm start (an SFT checkpoint as init) so some rollouts succeed');
    const mixed = rows(0.5);
    expect(noSignalAdvice(mixed, noSignalWarning(mixed)!, null)).toMatchObject({ cause: 'all-or-nothing', says: 'each group was all successes or all failures' });
  });
});
