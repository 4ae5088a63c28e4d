import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdaptationReport, AppEvalResult } from '../../core/api/types.js';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { createRng } from '../../core/util/rng.js';
import { createAppStore, type AppStore } from '../../renderer/src/store/index.js';
import { applyProgress, baseChoices, emptyRun, parseSeeds, requestFromForm } from '../../renderer/src/store/slices/adaptation-model.js';
import { shownAdaptJob } from '../../renderer/src/store/slices/adaptation.js';
import { barColumns, barRows, formatPoints } from '../../renderer/src/views/adaptation/bars.js';
import { bridgedWorkbench, type BridgedWorkbench } from '../helpers/bridged-workbench.js';

async function until(what: string, cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the adaptation slice against the real workbench', () => {
  let bridged: BridgedWorkbench;
  let store: AppStore;
  let policy: string;
  const unwatch: Array<() => void> = [];

  beforeAll(async () => {
    bridged = await bridgedWorkbench('awb-adapt-slice-', {}, (dir) => {
      policy = join(dir, 'checkpoints', 'base', 'policy.json');
      mkdirSync(join(dir, 'checkpoints', 'base'), { recursive: true });
      saveCheckpoint(policy, createModel(createRng('adapt-slice/base')));
    });
    ({ store } = bridged);
    unwatch.push(store.getState().watchTraining(), store.getState().watchAdaptation());
  });

  afterAll(async () => {
    for (const u of unwatch) u();
    await bridged.close();
  });

  it('loads the description and fills the form: a held-out app first, the newest checkpoint by name from the shared policy list, the defaults', async () => {
    await store.getState().loadAdaptation();
    const s = store.getState();
    expect(s.adaptDescription!.apps[0]).toMatchObject({ app: 'Audio Recorder', heldOut: true });
    // The base choices are listPolicies' trainable ones (the same names GRPO init and Agent use), not file paths.
    expect(baseChoices(s.agentPolicies).map((p) => p.name)).toEqual(['checkpoint:base']);
    expect(s.adaptForm).toMatchObject({ app: 'Audio Recorder', policy: 'checkpoint:base', evalSeeds: '30, 7, 1234', episodes: [] });
    expect(s.adaptForm.values).toMatchObject({ shots: '8', method: 'grpo', kind: 'lowrank', 'sft.epochs': '60', 'grpo.iterations': '50' });
    expect([s.adapters, s.demoEpisodes, shownAdaptJob(s)]).toEqual([[], [], null]);
    // Unchanged defaults send nothing but the app and base.
    expect(requestFromForm(s.adaptForm, s.adaptDescription!)).toEqual({ request: { app: 'Audio Recorder', policy: 'checkpoint:base', config: {} } });
  });

  it('bad seeds are caught before sending; the server’s problems show by field; nothing starts', async () => {
    const st = store.getState();
    st.setAdaptEvalSeeds('30, x');
    expect(await st.startAdaptation()).toBeUndefined();
    expect(store.getState().adaptErrors).toEqual({ evalSeeds: 'not a seed: x (non-negative integers, separated by commas or spaces)' });
    st.setAdaptEvalSeeds('30');
    await st.setAdaptApp('Settings');
    st.setAdaptValue('shots', '500');
    st.setAdaptValue('sft.epochs', '0');
    expect(await st.startAdaptation()).toBeUndefined();
    expect(Object.keys(store.getState().adaptErrors).sort()).toEqual(['sft.epochs', 'shots']);
    expect(store.getState().adaptErrors['sft.epochs']).toBe('Epochs must be a whole number ≥ 1, got 0');
    // Shown at the fields only: no banner repeats them.
    expect(store.getState().errors.filter((e) => e.action === 'Adapt to Settings')).toEqual([]);
    st.setAdaptValue('shots', '2');
    expect(Object.keys(store.getState().adaptErrors)).toEqual(['sft.epochs']);
    expect(store.getState().trainingJobs).toEqual([]);
  });

  it('offers the Ray cluster and the rollout workers as the Training form does; a bad address shows at its field', async () => {
    const st = store.getState();
    // Settings, 2 shots, seed 30 (what the test above left, and the test below runs with).
    const settled = () => {
      st.resetAdaptForm();
      st.setAdaptValue('shots', '2');
      st.setAdaptEvalSeeds('30');
    };
    settled();
    try {
      const fields = store.getState().adaptDescription!.fields;
      // The very fields of a GRPO run's form (one schema, core/rollout/ray-settings.ts): defaults, bounds, descriptions.
      const grpo = (await store.api.describeTrainConfig({ kind: 'grpo' })).fields;
      for (const path of ['ray.address', 'ray.envs', 'ray.envsPerActor']) {
        const f = fields.find((x) => x.path === path);
        expect(f, path).toBeDefined();
        expect(f).toEqual(grpo.find((x) => x.path === path));
      }
      expect(fields.find((f) => f.path === 'grpo.rolloutWorkers')).toMatchObject({ default: 'auto' });
      st.setAdaptValue('ray.address', 'head.example:6379');
      st.setAdaptValue('ray.envs', '8');
      const s = store.getState();
      expect(requestFromForm(s.adaptForm, s.adaptDescription!)).toMatchObject({ request: { config: { ray: { address: 'head.example:6379', envs: 8 } } } });
      st.setAdaptValue('ray.address', 'no-port');
      expect(await st.startAdaptation()).toBeUndefined();
      expect(store.getState().adaptErrors).toEqual({ 'ray.address': "Address must be HOST:PORT of the head's GCS, ray://HOST:PORT (Ray Client), or auto" });
      expect(store.getState().trainingJobs).toEqual([]);
    } finally {
      settled();
    }
  });

  it('runs a tiny adaptation from the form: each phase folded from the events, the report, the stored adapter; a reload shows the same', async () => {
    const st = store.getState();
    for (const [path, v] of [['method', 'sft'], ['sft.epochs', '2'], ['grpo.devices', '1']] as const) st.setAdaptValue(path, v);
    const job = await st.startAdaptation();
    expect(job).toMatchObject({ kind: 'adapt', config: expect.objectContaining({ app: 'Settings', shots: 2, method: 'sft', epochs: 2, evalSeeds: [30] }) });
    await until('the report', () => store.getState().adaptReports[job!.id] !== undefined);
    await until('the job to finish', () => shownAdaptJob(store.getState())?.state === 'finished');
    await until('the adapters to refresh', () => store.getState().adapters.length === 1);

    const s = store.getState();
    expect(s.adaptJobId).toBe(job!.id);
    const run = s.adaptRuns[job!.id]!;
    expect(run).toMatchObject({ phase: 'after', before: { done: 2, total: 2 }, after: { done: 2, total: 2 }, demonstrations: { source: 'oracle', episodes: 2 }, sftEpochs: 2, grpo: [] });
    expect(run.sft.map((r) => r.iteration)).toEqual([1, 2]);
    expect(Number.isFinite(run.sft[0]!.metrics['loss/nll'])).toBe(true);
    const report = s.adaptReports[job!.id]!;
    expect(run.saved).toBe(report.adapter.path);
    expect(run.before!.successes).toBe(report.before!.successes);
    expect(barRows(report).map((r) => r.label)).toEqual(['Overall', 'SystemDeviceNameQuestion', 'SystemRenameDevice']);
    expect(s.adapters[0]).toMatchObject({ app: 'Settings', base: { checkpoint: 'base' }, path: report.adapter.path });

    // The job bar's Episodes link (browseRun) opens Trajectories on the adaptation's run: before, demonstrations, after.
    const runId = shownAdaptJob(s)!.runId!;
    await s.browseRun(runId);
    expect(store.getState()).toMatchObject({ view: 'trajectories', episodeQuery: { runId }, episodeTotal: 6 });
    expect(store.getState().episodePages[0]!.map((r) => r.policy).sort()).toEqual(['builtin', 'builtin', 'builtin-adapted', 'builtin-adapted', 'oracle', 'oracle']);

    const reloaded = createAppStore(store.api);
    await reloaded.getState().loadAdaptation();
    expect(shownAdaptJob(reloaded.getState())).toMatchObject({ id: job!.id, state: 'finished' });
    expect(reloaded.getState().adaptReports[job!.id]).toEqual(report);
  }, 30_000);
});

describe('adaptation view helpers', () => {
  const evalResult = (rates: Record<string, number>): AppEvalResult => ({
    successRate: Object.values(rates).reduce((a, b) => a + b, 0) / Object.keys(rates).length, std: null, episodes: 2, successes: 1, errors: 0, perSeed: [],
    perTemplate: Object.entries(rates).map(([templateId, successRate]) => ({ templateId, difficulty: 'easy', episodes: 1, successes: successRate, successRate })),
  });
  const report = (over: Partial<AdaptationReport>): AdaptationReport => ({
    app: 'Clock', package: 'p', regime: 'unseen-app', base: { path: '/b', sha256: 'a'.repeat(64) }, adapter: { kind: 'head', rank: 0, parameters: 312, path: null },
    config: {} as AdaptationReport['config'], shots: [], demonstrations: null, training: { sft: [], grpo: [] }, evalSeeds: [30],
    before: null, after: null, delta: null, perTemplate: [], stoppedBy: 'done', seconds: { before: 0, adapt: 0, after: 0 }, ...over,
  });

  it('folds progress events into phases: tallies restart with each phase, epochs and iterations become metric rows', () => {
    let run = emptyRun();
    for (const [done, success] of [[1, true], [2, false], [3, true]] as const) run = applyProgress(run, { phase: 'before', done, total: 3, templateId: 't', seed: 30, success });
    expect(run.before).toEqual({ done: 3, total: 3, successes: 2 });
    run = applyProgress(run, { phase: 'sft', epoch: 1, epochs: 5, metrics: { epoch: 1, 'loss/nll': 2, 'acc/top1': 0.5, 'grad/norm': 1, steps: 9 } });
    run = applyProgress(run, { phase: 'grpo', iteration: 1, iterations: 4, metrics: { 'success/rate': 0.25 } });
    run = applyProgress(run, { phase: 'after', done: 1, total: 3, templateId: 't', seed: 30, success: false });
    expect(run).toMatchObject({
      phase: 'after', sftEpochs: 5, grpoIterations: 4, after: { done: 1, successes: 0 },
      sft: [{ iteration: 1, metrics: { 'loss/nll': 2, 'acc/top1': 0.5, 'grad/norm': 1, steps: 9 } }], grpo: [{ iteration: 1, metrics: { 'success/rate': 0.25 } }],
    });
  });

  it('bars: overall then each template with its delta in points; a stopped run shows the phase it finished and no delta', () => {
    const done = report({
      before: evalResult({ A: 0, B: 0.5 }), after: evalResult({ A: 1, B: 0.5 }), delta: 0.5,
      perTemplate: [{ templateId: 'A', difficulty: 'easy', before: 0, after: 1, delta: 1 }, { templateId: 'B', difficulty: 'hard', before: 0.5, after: 0.5, delta: 0 }],
    });
    expect(barRows(done).map((r) => [r.label, r.before, r.after, r.deltaPoints])).toEqual([['Overall', 0.25, 0.75, 50], ['A', 0, 1, 100], ['B', 0.5, 0.5, 0]]);
    expect(barColumns(barRows(done))).toEqual([[0, 1, 2], [0.25, 0, 0.5], [0.75, 1, 0.5]]);
    const stopped = report({ before: evalResult({ A: 0.5 }), stoppedBy: 'aborted' });
    expect(barRows(stopped).map((r) => [r.label, r.before, r.after, r.deltaPoints])).toEqual([['Overall', 0.5, null, null], ['A', 0.5, null, null]]);
    expect([formatPoints(58.333), formatPoints(-4.24), formatPoints(0.01), formatPoints(null)]).toEqual(['+58.3', '−4.2', '0.0', 'n/a']);
  });

  it('parses evaluation seeds separated by commas or spaces', () => {
    expect(parseSeeds('30, 7 1234')).toEqual({ seeds: [30, 7, 1234] });
    expect(parseSeeds(' ')).toEqual({ error: 'give at least one evaluation seed' });
    expect(parseSeeds('1,-2')).toMatchObject({ error: expect.stringMatching(/not a seed: -2/) });
  });
});
