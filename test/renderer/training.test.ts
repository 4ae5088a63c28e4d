import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigField, IterationMetricsRow, JobInfo } from '../../core/api/types.js';
import { createAppStore, type AppStore } from '../../renderer/src/store/index.js';
import { bridgedWorkbench, type BridgedWorkbench } from '../helpers/bridged-workbench.js';
import { currentJob, mergeMetrics } from '../../renderer/src/store/slices/training.js';
import { METRIC } from '../../core/rl/grpo-loop.js';
import { SFT_METRIC } from '../../core/rl/sft.js';
import { chartColumns, chartCsv, configDiff, formatX, logRange, logScaleColumns, seriesOf, xValues, yRange } from '../../renderer/src/views/training/chart-data.js';
import { applyPreset, configFromForm, defaultFormValues, fieldValue, groupFields, newestCheckpoint } from '../../renderer/src/views/training/config-form.js';
import { etaSeconds, formatEta, phaseEtaSeconds, INTEGER_TICK_STEPS, iterationRange, NO_SIGNAL_ITERATIONS, noSignalWarning, smoothSeries } from '../../renderer/src/views/training/health.js';

async function until(what: string, cond: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the training slice against the real workbench', () => {
  let bridged: BridgedWorkbench;
  let store: AppStore;
  let unwatch: () => void;

  beforeAll(async () => {
    bridged = await bridgedWorkbench('awb-training-slice-');
    ({ store } = bridged);
    unwatch = store.getState().watchTraining();
  });

  afterAll(async () => {
    unwatch();
    await bridged.close();
  });

  it('loads both trainers’ forms; an empty store has no runs, checkpoints or chart', async () => {
    await store.getState().loadTraining();
    const s = store.getState();
    expect(s.trainDescriptions.grpo!.fields.some((f) => f.path === 'loss.clipEps')).toBe(true);
    expect(s.trainDescriptions.sft!.presets.map((p) => p.name)).toEqual(['smoke']);
    expect([s.trainingJobs, s.trainingRuns, s.checkpoints, s.chartRunId]).toEqual([[], [], [], null]);
    // The Ray section (docs/ray.md) is a group of the GRPO form, and a typed address is sent nested, as a number of envs is.
    const grpo = s.trainDescriptions.grpo!.fields;
    expect(groupFields(grpo).find((g) => g.group === 'ray')!.fields.map((f) => f.path)).toEqual(['ray.address', 'ray.envs', 'ray.envsPerActor']);
    expect(configFromForm({ ...defaultFormValues(grpo), 'ray.address': 'head:6379', 'ray.envs': '8' }, grpo)).toEqual({ ray: { address: 'head:6379', envs: 8 } });
    await store.getState().loadTraining(); // a second visit keeps the same descriptions, so a typed form survives
    expect(store.getState().trainDescriptions.grpo).toBe(s.trainDescriptions.grpo);
  });

  it('an invalid config is refused: each problem once, at its field, in plain words (no banner too), and no job', async () => {
    expect(await store.getState().startTraining({ iterations: 0, loss: { clipEps: 5 } })).toBeUndefined();
    const s = store.getState();
    expect(s.trainingErrors).toEqual({ iterations: 'Iterations must be a whole number ≥ 1, got 0', 'loss.clipEps': expect.stringMatching(/^Clip eps must be a number [<≤] \S+, got 5$/) });
    expect(s.errors).toEqual([]);
    expect(s.trainingJobs).toEqual([]);
    s.clearTrainingError('iterations');
    expect(Object.keys(store.getState().trainingErrors)).toEqual(['loss.clipEps']);
  });

  it('runs an SFT job from the form: live metrics charted under its run, finished, listed with its checkpoint; a reload draws the same', async () => {
    const st = store.getState();
    st.setTrainingKind('sft');
    const { fields, presets } = st.trainDescriptions.sft!;
    const values = { ...applyPreset(defaultFormValues(fields), fields, presets[0]!), 'sft.epochs': '3', maxTemplates: '2' };
    const config = configFromForm(values, fields);
    expect(config).toEqual({ maxTemplates: 2, seeds: [0], sft: { epochs: 3 } });
    // Issue 33: the demonstration phase is counted (done of total, when it began) for the bar and its ETA.
    const phases: Array<JobInfo['phase']> = [];
    const unwatch = store.subscribe((s) => {
      const p = currentJob(s)?.phase ?? null;
      if (p && phases.at(-1) !== p) phases.push(p);
    });
    const job = await store.getState().startTraining(config);
    expect(job).toMatchObject({ kind: 'sft', id: 'job-1' });
    await until('the job to finish', () => currentJob(store.getState())?.state === 'finished');
    unwatch();
    expect(phases.map((p) => [p!.name, p!.done, p!.total])).toEqual([['oracle demonstrations', 0, 2], ['oracle demonstrations', 1, 2]]);
    expect(new Set(phases.map((p) => p!.startedAt)).size).toBe(1);
    expect(phases.every((p) => p!.startDone === 0)).toBe(true);
    expect(currentJob(store.getState())!.phase).toBeNull();
    await until('the runs to refresh', () => store.getState().trainingRuns.length === 1);

    const s = store.getState();
    const done = currentJob(s)!;
    expect(done).toMatchObject({ iteration: 3, total: 3, checkpoint: { iteration: 3 } });
    expect(s.chartRunId).toBe(done.runId);
    const rows = s.runMetrics[done.runId!]!;
    expect(rows.map((r) => r.iteration)).toEqual([1, 2, 3]);
    for (const r of rows) expect(Number.isFinite(r.metrics['loss/nll'])).toBe(true);
    expect(s.trainingRuns[0]).toMatchObject({ runId: done.runId, trainer: 'sft', status: 'finished', iterations: 3, checkpoint: done.checkpoint!.name });
    expect(s.checkpoints[0]).toMatchObject({ name: done.checkpoint!.name, trainer: 'sft', iteration: 3, resumable: false });
    // SFT keeps no optimizer state: resuming it is refused with the reason.
    expect(await s.resumeTraining({ jobId: done.id })).toBeUndefined();
    expect(store.getState().errors.at(-1)).toMatchObject({ name: 'TrainingStateError', message: expect.stringMatching(/SFT/) });

    // Issue 21: the SFT demonstrations are stored in its run and browsable (2 templates × seed 0).
    await store.getState().loadFacets();
    expect(store.getState().facets!.runs.find((r) => r.id === done.runId)).toMatchObject({ iterations: [] });
    store.getState().openRunEpisodes(done.runId!);
    await until('the run\'s episodes', () => store.getState().episodeTotal !== null);
    expect(store.getState().view).toBe('trajectories');
    expect(store.getState().episodeTotal).toBe(2);
    expect(store.getState().episodePages[0]!.every((e) => e.policy === 'oracle' && e.rollout === null)).toBe(true);
    // The GRPO Smoke preset starts from the newest checkpoint (this SFT run's), not a fresh policy.
    const grpo = store.getState().trainDescriptions.grpo!;
    const smoke = grpo.presets.find((p) => p.name === 'smoke')!;
    const warm = applyPreset(defaultFormValues(grpo.fields), grpo.fields, smoke, newestCheckpoint(store.getState().checkpoints));
    expect(configFromForm(warm, grpo.fields)).toMatchObject({ init: `checkpoint:${done.checkpoint!.name}`, iterations: 20 });
    expect(configFromForm(applyPreset(defaultFormValues(grpo.fields), grpo.fields, smoke, newestCheckpoint([])), grpo.fields)).not.toHaveProperty('init');

    const reloaded = createAppStore(store.api);
    await reloaded.getState().loadTraining();
    expect(reloaded.getState().chartRunId).toBe(done.runId);
    expect(reloaded.getState().runMetrics[done.runId!]).toEqual(rows);
    expect(reloaded.getState().trainingJobs.map((j) => [j.id, j.state])).toEqual([['job-1', 'finished']]);
  });
});

describe('training form and chart helpers', () => {
  const field = (path: string, kind: ConfigField['kind'], def: unknown, extra: Partial<ConfigField> = {}): ConfigField =>
    ({ path, description: path, kind, nullable: false, optional: false, default: def, ...extra });
  const fields = [
    field('iterations', 'integer', 500),
    field('workers', 'integer', 'auto', { options: ['auto'] }),
    field('init', 'text', null, { nullable: true }),
    field('loss.clipEps', 'number', 0.2),
    field('loss.aggregation', 'choice', 'step-mean', { options: ['step-mean', 'constant'] }),
    field('adagrpo.spa.enabled', 'boolean', false),
    field('curriculum.stageAt', 'json', [0.25, 0.5]),
    field('seeds', 'json', null, { optional: true }),
  ];

  it('sends only what differs from the defaults, typed and nested by path', () => {
    const values = defaultFormValues(fields);
    expect(values).toMatchObject({ iterations: '500', workers: 'auto', init: '', 'curriculum.stageAt': '[0.25,0.5]', seeds: '' });
    expect(configFromForm(values, fields)).toEqual({});
    const changed = { ...values, iterations: '20', workers: '2', init: 'ckpt/policy.json', 'loss.clipEps': '1e-1', 'adagrpo.spa.enabled': 'true', seeds: '[1, 2]' };
    expect(configFromForm(changed, fields)).toEqual({
      iterations: 20, workers: 2, init: 'ckpt/policy.json', loss: { clipEps: 0.1 }, adagrpo: { spa: { enabled: true } }, seeds: [1, 2],
    });
  });

  it('passes what does not convert as typed (the server names the problem)', () => {
    expect(fieldValue(fields[0]!, 'lots')).toBe('lots');
    expect(fieldValue(fields[6]!, '[0.2,')).toBe('[0.2,');
    expect(fieldValue(fields[2]!, '  ')).toBeNull();
    expect(fieldValue(fields[0]!, '')).toBeUndefined();
  });

  it('applies a preset on top of what is typed, and groups fields by their first path segment', () => {
    const typed = { ...defaultFormValues(fields), iterations: '7' };
    const next = applyPreset(typed, fields, { name: 'p', label: 'p', description: '', config: { loss: { clipEps: 0.3 }, adagrpo: { spa: { enabled: true } }, unknown: 1 } });
    expect(configFromForm(next, fields)).toEqual({ iterations: 7, loss: { clipEps: 0.3 }, adagrpo: { spa: { enabled: true } } });
    expect(groupFields(fields).map((g) => [g.group, g.fields.length])).toEqual([['', 4], ['loss', 2], ['adagrpo', 1], ['curriculum', 1]]);
  });

  it('merges metric rows by iteration (later wins) and charts missing values as gaps', () => {
    const merged = mergeMetrics([{ iteration: 2, metrics: { a: 1 } }, { iteration: 1, metrics: { a: 0 } }], [{ iteration: 2, metrics: { a: 5, b: 1 } }, { iteration: 3, metrics: { b: 2 } }]);
    expect(merged.map((r) => r.iteration)).toEqual([1, 2, 3]);
    expect(seriesOf(merged, 'a')).toEqual([[1, 2, 3], [0, 5, null]]);
  });

  // Issue 21: a dead run (every group flat) looked healthy.
  it('warns after K iterations in a row without signal (all groups zero variance), not for a run that learns', () => {
    // The trainer's own metric name (the renderer keeps its copy of it).
    const flat = (iteration: number, frac: number) => ({ iteration, metrics: { [METRIC.zeroStdFrac]: frac } });
    const dead = Array.from({ length: NO_SIGNAL_ITERATIONS + 2 }, (_, i) => flat(i + 1, 1));
    expect(noSignalWarning(dead)).toEqual({ iterations: NO_SIGNAL_ITERATIONS + 2, from: 1, to: NO_SIGNAL_ITERATIONS + 2 });
    expect(noSignalWarning([...dead, flat(99, 0.5)])).toBeNull(); // a group with signal ends the streak
    expect(noSignalWarning(dead.slice(0, NO_SIGNAL_ITERATIONS - 1))).toBeNull();
  });

  it('a phase’s ETA at its pace since it was first heard of; none before any of it is done', () => {
    const p = { name: 'oracle demonstrations', done: 3, total: 20, startedAt: 1000, startDone: 1 };
    expect(phaseEtaSeconds(p, 5000)).toBe((4 / 2) * 17); // 2 done in 4 s, 17 left
    expect(phaseEtaSeconds({ ...p, done: 1 }, 5000)).toBeNull();
    expect(phaseEtaSeconds({ ...p, total: null }, 5000)).toBeNull();
  });

  it('ETA from the last iterations\' (or epochs\') own timings; none before the first is timed', () => {
    const rows = [1, 2, 3].map((i) => ({ iteration: i, metrics: { [METRIC.iterationS]: i * 10, [SFT_METRIC.epochS]: 4 } }));
    expect(etaSeconds('grpo', rows, 3, 10, 2)).toBe(25 * 7);
    expect(etaSeconds('sft', rows, 3, 5)).toBe(8);
    expect(etaSeconds('grpo', [], 0, 10)).toBeNull();
    expect([formatEta(12), formatEta(200), formatEta(3900)]).toEqual(['12 s', '3 min 20 s', '1 h 05 min']);
  });

  it('charts as TensorBoard does: debiased EMA smoothing over gaps, overlaid runs on shared iterations, integer ticks', () => {
    expect(smoothSeries([2, null, 4], 0)).toEqual([2, null, 4]);
    const s = smoothSeries([2, null, 4], 0.5);
    expect(s[0]).toBeCloseTo(2); // debiased: the first point is itself, not pulled to 0
    expect(s[1]).toBeNull();
    expect(s[2]).toBeCloseTo((0.5 * 1 + 0.5 * 4) / 0.75);
    const a = { runId: 1, rows: [{ iteration: 1, metrics: { m: 1 } }, { iteration: 2, metrics: { m: 3 } }] };
    const b = { runId: 2, label: '#2 grpo', rows: [{ iteration: 2, metrics: { m: 5 } }, { iteration: 3, metrics: { m: 7 } }] };
    expect(chartColumns([a, b], 'm', 0)).toEqual({
      data: [[1, 2, 3], [1, 3, null], [null, 5, 7]],
      raw: [[1, 3, null], [null, 5, 7]],
      iterations: [[1, 2, null], [null, 2, 3]],
      series: [{ label: 'run 1', runId: 1, color: expect.any(String) }, { label: '#2 grpo', runId: 2, color: expect.any(String) }],
      skipped: [],
    });
    // One legend entry per run, smoothed or not: the raw values go beside, not as series of their own.
    const smoothed = chartColumns([a], 'm', 0.6);
    expect(smoothed.series.map((x) => x.label)).toEqual(['run 1']);
    expect(smoothed.raw).toEqual([[1, 3]]);
    expect(smoothed.data[1]![1]).toBeCloseTo((0.6 * 0.4 + 0.4 * 3) / (1 - 0.36));
    expect(INTEGER_TICK_STEPS.every(Number.isInteger)).toBe(true);
    expect(INTEGER_TICK_STEPS[0]).toBe(1);
    expect(iterationRange(1, 1)).toEqual([0, 2]); // a one-iteration run: ticks 0, 1, 2, never 0.5
  });

  it('x by iteration, environment steps (summed, or rate × rollout time for older runs) or training time; SFT has no steps', () => {
    const grpo: IterationMetricsRow[] = [
      { iteration: 1, metrics: { 'rollout/env_steps': 40, 'perf/iteration_s': 2.5 } },
      { iteration: 2, metrics: { 'perf/steps_per_s': 10, 'perf/rollout_s': 3, 'perf/iteration_s': 4 } },
    ];
    expect(xValues(grpo, 'iteration')).toEqual([1, 2]);
    expect(xValues(grpo, 'steps')).toEqual([40, 70]);
    expect(xValues(grpo, 'time')).toEqual([2.5, 6.5]);
    const sft = [{ iteration: 1, metrics: { 'perf/epoch_s': 1 } }, { iteration: 2, metrics: { 'perf/epoch_s': 2 } }];
    expect(xValues(sft, 'steps')).toBeNull();
    expect(xValues(sft, 'time')).toEqual([1, 3]);
    const c = chartColumns([{ runId: 1, rows: grpo }, { runId: 2, rows: sft }], 'perf/iteration_s', 0, 'steps');
    expect(c.data[0]).toEqual([40, 70]);
    expect(c.skipped).toEqual([2]);
    expect([formatX(12, 'iteration'), formatX(12_345, 'steps'), formatX(65, 'time'), formatX(3725, 'time')]).toEqual(['12', '12.3k', '1 min 05 s', '1 h 02 min']);
  });

  it('exports a chart as CSV (each run raw and smoothed) and diffs two runs’ configs leaf by leaf', () => {
    const c = chartColumns([{ runId: 1, label: 'run "one"', rows: [{ iteration: 1, metrics: { m: 2 } }, { iteration: 2, metrics: { m: 4 } }] }], 'm', 0.5);
    expect(chartCsv(c, 'iteration', 0.5)).toBe(`iteration,"run ""one""","run ""one"" (smoothed 0.5)"\n1,2,2\n2,4,${c.data[1]![1]}\n`);
    expect(configDiff(
      { init: null, loss: { klBeta: 0.05, clipEps: 0.2 }, seeds: [1, 2], only: 'a' },
      { init: 'checkpoint:sft', loss: { klBeta: 0.05, clipEps: 0.3 }, seeds: [1, 2] },
    )).toEqual([
      { path: 'init', a: null, b: 'checkpoint:sft' }, { path: 'loss.clipEps', a: 0.2, b: 0.3 }, { path: 'only', a: 'a', b: undefined },
    ]);
  });

  it('a smoothed constant is still a constant: a ±10% band, not a 1e-16 range (uPlot failed on it with "Invalid array length")', () => {
    const smoothed = smoothSeries(Array.from({ length: 20 }, () => 0.3), 0.6).filter((v): v is number => v !== null);
    const [lo, hi] = yRange(Math.min(...smoothed), Math.max(...smoothed));
    expect(Math.min(...smoothed)).not.toBe(Math.max(...smoothed)); // what the EMA really gives
    expect(lo).toBeCloseTo(0.27, 9);
    expect(hi).toBeCloseTo(0.33, 9);
    expect(yRange(0, 0)).toEqual([-1, 1]);
    expect(yRange(1, 2)).toEqual([0.95, 2.05]);
  });

  it('a log-scale y axis: values ≤ 0 become gaps (counted), the range is whole decades around the positive data', () => {
    const { data } = chartColumns([{ runId: 1, rows: [0.5, 0, 20, -1].map((v, i) => ({ iteration: i + 1, metrics: { 'loss/kl': v } })) }], 'loss/kl', 0);
    expect(logScaleColumns(data)).toEqual({ data: [[1, 2, 3, 4], [0.5, null, 20, null]], dropped: 2 });
    expect(logScaleColumns([[0, 1], [null, 3]])).toEqual({ data: [[0, 1], [null, 3]], dropped: 0 }); // x and gaps are kept
    expect(logRange(0.5, 20)).toEqual([0.1, 100]);
    expect(logRange(0.001, 0.004)).toEqual([0.001, 0.01]);
    expect(logRange(10, 10)).toEqual([10, 100]); // a constant power of ten still gets a decade
    expect(logRange(null, null)).toEqual([1, 10]);
    expect(logRange(-2, 5)).toEqual([1, 10]); // uPlot passes the data's min; nothing ≤ 0 reaches a log chart
  });
});
