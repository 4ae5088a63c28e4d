/// <reference lib="dom" />
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { IterationMetricsRow } from '../../core/api/types.js';
import { METRIC } from '../../core/rl/grpo-loop.js';
import { formatMetric, logRange } from '../../renderer/src/views/training/chart-data.js';
import { smoothSeries } from '../../renderer/src/views/training/health.js';
import { apiClient, openWorkbench, startServe, type Browser, type ServeProcess } from './harness.js';
import { canvasColours, shot } from './pixels.js';

/**
 * The research loop (issue 21) walked in Chromium against `awb serve`, one server and one browser: SFT (the
 * smallest config) → GRPO with its init chosen by the SFT checkpoint's name, and a second GRPO run from that
 * one's checkpoint → the charts drawn (integer iteration ticks, a hover value, EMA smoothing, the two runs
 * overlaid, a log-scale y axis) → the run's rollouts at one iteration in Trajectories with reward and advantage
 * → Evaluate the checkpoint (progress, results per app) → adapt it to Settings (Adaptation view) → "Run in Agent" from its row,
 * stepped through an episode that then appears in Trajectories.
 */
const OVERLAY_RGB: [number, number, number] = [0xe8, 0x59, 0x0c]; // chart-data.ts RUN_COLORS[1]: the first overlaid run
/** The training and adaptation steps take seconds on an idle 2-core machine, and several times that on a loaded one. */
const SLOW = 120_000;
const DATE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/; // renderer/src/time-format.ts

/** Sets a New run field, opening its group (a closed <details>) as a person would. */
async function setField(page: Page, id: string, value: string): Promise<void> {
  const el = page.getByTestId(id);
  const tag = await el.evaluate((e) => {
    const group = e.closest('details');
    if (group && !group.open) group.querySelector('summary')!.click();
    return e.tagName;
  });
  if (tag === 'SELECT') await el.selectOption(value);
  else await el.fill(value);
}

/** Starts a run from the New run form and waits for it to finish; returns its run id and checkpoint name. */
async function trainToEnd(page: Page, runs: number): Promise<{ runId: number; checkpoint: string }> {
  await page.getByTestId('training-start').click();
  // The new run's row first: until then the job bar still shows the last job, finished.
  await expect.poll(() => page.locator('[data-testid^="training-run-"]').count(), { timeout: 20_000 }).toBe(runs);
  await expect.poll(() => page.getByTestId('training-state').getAttribute('data-state'), { timeout: 50_000 }).toBe('finished');
  const runId = Number(await page.getByTestId('training-charts').getAttribute('data-run'));
  const bar = await page.getByTestId('training-job').innerText();
  return { runId, checkpoint: /Checkpoint: (\S+)/.exec(bar)![1]! };
}

describe('the research loop in Chromium: train → inspect rollouts → evaluate → run it step by step', () => {
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  let api: Awaited<ReturnType<typeof apiClient>>;
  let sft: { runId: number; checkpoint: string };
  let grpo: { runId: number; checkpoint: string };
  let second: { runId: number; checkpoint: string };

  beforeAll(async () => {
    serve = await startServe();
    browser = await openWorkbench(serve);
    page = browser.page;
    api = await apiClient(serve);
  });

  afterAll(async () => {
    api?.close();
    await browser?.close();
    await serve?.stop();
    if (serve) rmSync(serve.home, { recursive: true, force: true });
  });

  it('trains SFT with the smallest config: its run row dated in the renderer’s one format', async () => {
    await page.keyboard.press('Control+6');
    await page.getByTestId('training-kind').selectOption('sft');
    await page.getByTestId('training-preset').selectOption('smoke');
    await setField(page, 'train-maxTemplates', '1');
    await setField(page, 'train-sft.epochs', '2');
    sft = await trainToEnd(page, 1);
    expect(sft.checkpoint).toMatch(/^sft-/);
    // The run table's dates are the renderer's one format, whatever the browser's locale.
    expect((await page.getByTestId(`training-run-${sft.runId}`).locator('td').nth(7).innerText()).trim()).toMatch(DATE);
  }, SLOW);

  it('trains GRPO with its init chosen by the SFT checkpoint’s name', async () => {
    await page.getByTestId('training-kind').selectOption('grpo');
    await page.getByTestId('training-preset').selectOption('smoke');
    await page.getByTestId('train-init').selectOption(`checkpoint:${sft.checkpoint}`); // by name, from the dropdown
    await setField(page, 'train-iterations', '2'); // two: an axis from 1 to 2 is where a 1.5 tick would show
    // What the form sends (the server resolves the name; an unknown one would be refused at the field).
    expect(JSON.parse(await page.locator('.training-diff').innerText())).toMatchObject({ init: `checkpoint:${sft.checkpoint}`, iterations: 2 });
    grpo = await trainToEnd(page, 2);
    expect(grpo.checkpoint).toMatch(/^grpo-/);

  }, SLOW);

  it('starts a second GRPO run from the first one’s checkpoint ("Use as init"), charts it live, and stops it', async () => {
    // "Use as init" on the GRPO checkpoint's row: a second run (AdaGRPO: presets combine) continuing from it, charted
    // live and stopped (the overlay below compares the two).
    await page.getByTestId(`use-as-init-${grpo.checkpoint}`).click();
    await expect.poll(() => page.getByTestId('train-init').inputValue()).toBe(`checkpoint:${grpo.checkpoint}`);
    await page.getByTestId('training-preset').selectOption('adagrpo');
    await setField(page, 'train-iterations', '200'); // far more than it runs before the stop
    await page.getByTestId('training-start').click();
    const state = page.getByTestId('training-state');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 20_000 }).toBe('running');
    const live = page.getByTestId(`chart-${METRIC.successRate}`);
    await expect.poll(async () => Number(await live.getAttribute('data-points')), { timeout: 60_000 }).toBeGreaterThanOrEqual(2);
    await page.getByTestId('training-stop').click();
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 30_000 }).toBe('stopped');
    const runId = Number(await page.getByTestId('training-charts').getAttribute('data-run'));
    // The run list refreshes after the stop; under load the row may still say running for a moment.
    await expect.poll(() => page.getByTestId(`training-run-${runId}`).innerText(), { timeout: 20_000 }).toMatch(/interrupted/);
    second = { runId, checkpoint: /Checkpoint: (\S+)/.exec(await page.getByTestId('training-job').innerText())![1]! };
    expect(await page.locator('[data-testid^="checkpoint-"]').count()).toBe(3);
  }, SLOW);

  it('charts the run: integer iteration ticks, a hover value, EMA smoothing, the second run overlaid, a log-scale y axis', async () => {
    await page.getByTestId(`training-run-${grpo.runId}`).click();
    await expect.poll(() => page.getByTestId('training-charts').getAttribute('data-run')).toBe(String(grpo.runId));
    const rows: IterationMetricsRow[] = await api.api.getTrainingMetrics({ runId: grpo.runId });
    const other: IterationMetricsRow[] = await api.api.getTrainingMetrics({ runId: second.runId });
    expect(rows.map((r) => r.iteration)).toEqual([1, 2]);
    expect(other.length).toBeGreaterThanOrEqual(2);
    // Env steps / s: a metric that differs from iteration to iteration (the tiny runs' rewards and KL are all 0).
    const metric = METRIC.stepsPerS;
    const chart = page.getByTestId(`chart-${metric}`);
    const plot = chart.locator('.metric-chart-plot');
    await expect.poll(() => chart.getAttribute('data-points')).toBe('2');
    const ticks = (await plot.getAttribute('data-x-ticks'))!.split(',').map(Number);
    expect(ticks.length).toBeGreaterThan(1);
    expect(ticks.every(Number.isInteger)).toBe(true);

    // Overlay: the second run's line is on the canvas in its colour, and not before.
    const canvas = chart.locator('canvas');
    expect((await canvasColours(canvas, OVERLAY_RGB, 40)).matching).toBe(0);
    await page.getByTestId(`overlay-${second.runId}`).check();
    await expect.poll(() => chart.getAttribute('data-series')).toBe('2');
    await expect.poll(async () => (await canvasColours(canvas, OVERLAY_RGB, 40)).matching).toBeGreaterThan(20);
    // The two runs' configs, differing where the second run set AdaGRPO and its init (W&B's run comparer).
    const diff = page.getByTestId('config-diff');
    await diff.locator('summary').click();
    expect(Number(await diff.getAttribute('data-rows'))).toBeGreaterThan(0);
    expect(await page.getByTestId('config-diff-init').locator('td').nth(2).innerText()).toContain(grpo.checkpoint);

    // Smoothing: one legend entry per run, named; under the cursor at iteration 2 each shows the debiased EMA of the
    // stored values, with the raw value beside it (what uPlot draws is what its legend reads).
    await page.getByTestId('chart-smoothing').fill('0.9');
    await expect.poll(() => chart.getAttribute('data-series')).toBe('2');
    const over = (await chart.locator('.u-over').boundingBox())!;
    const last = Math.max(2, other.length); // the x axis runs from iteration 1 to the longer run's last
    await page.mouse.move(over.x + over.width / (last - 1) - 2, over.y + over.height / 2); // the cursor snaps to iteration 2
    const raw = rows.map((r) => r.metrics[metric] ?? null);
    const smoothed = formatMetric(smoothSeries(raw, 0.9)[1]);
    expect(smoothed).not.toBe(formatMetric(raw[1])); // else the check below could not tell them apart
    const legendOf = (m: string) => page.getByTestId(`chart-legend-${m}`);
    const entry = (m: string, run: number) => legendOf(m).locator(`[data-run="${run}"]`);
    await expect.poll(() => legendOf(metric).getAttribute('data-x')).toBe('2');
    expect(await entry(metric, grpo.runId).getAttribute('data-raw')).toBe(formatMetric(raw[1]));
    expect(await entry(metric, grpo.runId).getAttribute('data-value')).toBe(smoothed);
    expect(await entry(metric, second.runId).getAttribute('data-raw')).toBe(formatMetric(other[1]!.metrics[metric]));
    expect(await entry(metric, grpo.runId).innerText()).toContain(`#${grpo.runId} grpo`);
    // The cursor is shared: the success-rate chart's legend reads iteration 2 too.
    expect(await legendOf(METRIC.successRate).getAttribute('data-x')).toBe('2');
    await page.getByTestId('chart-smoothing').fill('0');

    // Drag to zoom into iterations 1–1.5; a double-click resets the x axis.
    const xRange = async () => [Number(await plot.getAttribute('data-x-min')), Number(await plot.getAttribute('data-x-max'))];
    const full = await xRange();
    await page.mouse.move(over.x + 2, over.y + over.height / 2);
    await page.mouse.down();
    await page.mouse.move(over.x + over.width / (2 * (last - 1)), over.y + over.height / 2, { steps: 4 });
    await page.mouse.up();
    await expect.poll(async () => (await xRange())[1]).toBeLessThan(full[1]!);
    await page.mouse.dblclick(over.x + over.width / 2, over.y + over.height / 2);
    await expect.poll(xRange).toEqual(full);

    // x by training time: the axis ends at the runs' summed iteration seconds.
    await page.getByTestId('chart-x-axis').selectOption('time');
    await expect.poll(() => chart.getAttribute('data-x-axis')).toBe('time');
    const secs = (rs: IterationMetricsRow[]) => rs.reduce((t, r) => t + r.metrics[METRIC.iterationS]!, 0);
    await expect.poll(async () => (await xRange())[1]).toBeCloseTo(Math.max(secs(rows), secs(other)), 6);
    await page.getByTestId('chart-x-axis').selectOption('iteration');

    // Export: the chart's values as CSV (each run's column), and its picture as PNG.
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`chart-csv-${metric}`).click()]);
    const text = readFileSync((await csv.path())!, 'utf8').trim().split('\n');
    const names = new Map((await api.api.listTrainingRuns()).map((r) => [r.runId, r.name]));
    expect(text[0]).toBe(`iteration,#${grpo.runId} ${names.get(grpo.runId)},#${second.runId} ${names.get(second.runId)}`);
    expect(text[2]!.split(',')[1]).toBe(String(raw[1]));
    const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId(`chart-png-${metric}`).click()]);
    expect(readFileSync((await png.path())!).subarray(1, 4).toString('latin1')).toBe('PNG');

    // Log scale: whole decades around both runs' values (a linear axis pads the data's own range instead).
    const both = [...rows, ...other].map((r) => r.metrics[metric]!);
    await page.getByTestId(`chart-log-${metric}`).check();
    await expect.poll(() => chart.getAttribute('data-y-scale')).toBe('log');
    const yRangeDrawn = async () => [Number(await plot.getAttribute('data-y-min')), Number(await plot.getAttribute('data-y-max'))];
    await expect.poll(yRangeDrawn).toEqual(logRange(Math.min(...both), Math.max(...both)));
    // KL to reference is 0 where nothing was learnt (all of these tiny runs so far): those values have no logarithm,
    // are left out, and the chart says how many.
    await page.getByTestId(`chart-log-${METRIC.lossKl}`).check();
    await expect.poll(() => page.getByTestId(`chart-${METRIC.lossKl}`).getAttribute('data-y-scale')).toBe('log');
    const flat = [...rows, ...other].filter((r) => r.metrics[METRIC.lossKl]! <= 0).length;
    const dropped = page.getByTestId(`chart-log-dropped-${METRIC.lossKl}`);
    if (flat > 0) expect(await dropped.innerText()).toBe(`${flat} ≤ 0 left out`);
    else expect(await dropped.count()).toBe(0);
    await shot(page, 'training');
    await page.getByTestId(`chart-log-${metric}`).uncheck();
    await expect.poll(() => chart.getAttribute('data-y-scale')).toBe('linear');
    const [lin0, lin1] = await yRangeDrawn();
    // The data's own range, padded to uPlot's round numbers, inside the log scale's decades (which it no longer spans).
    const [dec0, dec1] = logRange(Math.min(...both), Math.max(...both));
    expect(lin0).toBeLessThanOrEqual(Math.min(...both));
    expect(lin1).toBeGreaterThanOrEqual(Math.max(...both));
    expect(lin1! - lin0!).toBeLessThan(dec1! - dec0!);
  });

  it('lists the run’s rollouts at one iteration in Trajectories with reward and advantage, and links back to the chart', async () => {
    // A click on the reward chart's point at iteration 2 opens that iteration's rollouts (the overlay is off again).
    await page.getByTestId(`overlay-${second.runId}`).uncheck();
    const reward = page.getByTestId(`chart-${METRIC.rewardMean}`).locator('.u-over');
    const box = (await reward.boundingBox())!;
    await page.mouse.click(box.x + box.width - 2, box.y + box.height / 2);
    await expect.poll(() => page.getByTestId('filter-iteration').inputValue()).toBe('2');
    expect(await page.evaluate(() => location.hash)).toBe(`#/trajectories?run=${grpo.runId}&iteration=2`);
    const rollouts = page.locator('[data-testid^="rollout-"]');
    // The smoke preset: 1 instance × G = 2 rollouts per iteration, every one recorded.
    await expect.poll(() => rollouts.count(), { timeout: 10_000 }).toBe(2);
    // Each in its own columns: iteration, group, reward, advantage.
    for (const row of await page.locator('[data-testid^="episode-row-"]').all()) {
      const col = (c: string) => row.locator(`[data-col="${c}"]`).innerText();
      expect(await col('iteration')).toBe('2');
      expect(await col('group')).toMatch(/^g\d+\/\d+$/);
      expect(await col('reward')).toMatch(/^-?\d+\.\d\d$/);
      expect(await col('advantage')).toMatch(/^(-?\d+\.\d\d|–)$/);
    }
    await page.getByTestId('iteration-chart').click();
    await expect.poll(() => page.getByTestId(`chart-${METRIC.rewardMean}`).getAttribute('data-marker')).toBe('2');
  });

  it('evaluates the GRPO checkpoint by name from its row: progress, then results per app', async () => {
    await page.getByTestId(`evaluate-${grpo.checkpoint}`).click();
    expect(await page.getByTestId('eval-policy').inputValue()).toBe(`checkpoint:${grpo.checkpoint}`);
    await page.getByTestId('eval-seeds').fill('30');
    await page.getByTestId('eval-limit').fill('2');
    await page.getByTestId('eval-start').click();
    await expect.poll(() => page.getByTestId('eval-progress').innerText(), { timeout: 30_000 }).toMatch(/finished, 2\/2 episodes/);
    await page.getByTestId('eval-row-overall').waitFor();
    expect(await page.locator('[data-testid^="eval-row-app-"]').count()).toBeGreaterThan(0);
    await shot(page, 'evaluate');
  });

  it('adapts the checkpoint to Settings on the Adaptation view (Ctrl+7) and draws the before / after bars', async () => {
    await page.keyboard.press('Control+7');
    await page.getByTestId('adaptation-view').waitFor();
    await page.getByTestId('adapt-app').selectOption('Settings');
    await page.getByTestId('adapt-policy').selectOption(`checkpoint:${grpo.checkpoint}`);
    // Its base was trained on unseen-instance/train, which has Settings' templates: not held out from it (issue 33).
    await expect.poll(() => page.getByTestId('adapt-base-saw-app').innerText(), { timeout: 10_000 }).toMatch(/^Not held out from this base: its training saw Settings/);
    await page.getByTestId('adapt-shots').fill('4');
    await page.getByTestId('adapt-method').selectOption('sft');
    await page.getByTestId('adapt-eval-seeds').fill('30');
    await page.getByTestId('adapt-run').click();
    await expect.poll(() => page.getByTestId('adapt-state').getAttribute('data-state'), { timeout: 60_000 }).toBe('finished');
    await page.getByTestId('adapt-result').waitFor();
    expect(await page.getByTestId('adapt-phase-sft').innerText()).toMatch(/epoch 60\/60/);
    expect(await page.locator('[data-testid="adapt-phase-sft"] [data-testid="chart-loss/nll"]').getAttribute('data-points')).toBe('60');
    // Overall + the two held-out Settings templates. The SFT adapter solves held-out Settings instances (4 shots ×
    // 60 epochs), so the after bars are on the canvas in their colour (the before bars at 0% have no width).
    const bars = page.getByTestId('adapt-bars');
    expect(await bars.getAttribute('data-rows')).toBe('3');
    expect(Number(await bars.getAttribute('data-after'))).toBeGreaterThan(0);
    expect((await canvasColours(bars.locator('canvas'), [0x2f, 0x6f, 0xed])).matching).toBeGreaterThan(1000);
    expect(await page.getByTestId('adapt-delta').innerText()).toMatch(/→ .*points/);
    await expect.poll(() => page.locator('[data-testid="adapter-Settings"]').count()).toBe(1);
    await shot(page, 'adaptation');
  }, SLOW);

  it('runs the checkpoint in Agent from its row, steps through an episode, and finds it in Trajectories', async () => {
    await page.keyboard.press('Control+6');
    await page.getByTestId(`run-in-agent-${grpo.checkpoint}`).click();
    const policy = `checkpoint:${grpo.checkpoint}`;
    await expect.poll(() => page.getByTestId('policy-select').inputValue()).toBe(policy);
    // The adapter made on this checkpoint above is a choice too.
    expect(await page.getByTestId('policy-select').locator(`option[value="adapter:${grpo.checkpoint}/settings"]`).count()).toBe(1);
    await page.getByTestId('max-steps-input').fill('2');
    await page.getByTestId('session-start').click();
    const state = page.getByTestId('session-state');
    for (const i of [0, 1]) {
      await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('paused');
      await page.getByTestId('session-step').click();
      await page.getByTestId(`step-row-${i}`).waitFor();
    }
    await page.getByTestId('session-result').waitFor({ timeout: 15_000 });
    const open = page.getByTestId('session-open-episode');
    const id = /episode (\d+)/.exec(await open.innerText())![1]!;
    await open.click();
    await page.getByTestId('replay-view').waitFor();
    await page.getByTestId('replay-back').first().click();
    await page.getByTestId('filter-clear').click();
    await page.getByTestId('filter-policy').selectOption(policy);
    // The policy's episodes: the two evaluated above and this one, with its two steps.
    await expect.poll(() => page.locator('[data-testid^="episode-row-"]').count(), { timeout: 10_000 }).toBe(3);
    const row = page.getByTestId(`episode-row-${id}`);
    expect(await row.innerText()).toContain(policy);
    expect(await row.locator('[role="gridcell"]').nth(7).innerText()).toBe('2');
  });
});
