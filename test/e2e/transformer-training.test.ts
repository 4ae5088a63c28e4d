/// <reference lib="dom" />
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { apiClient, openWorkbench, startServe, type Browser, type ServeProcess } from './harness.js';
import { requirePython } from '../python-env.js';

/**
 * The transformer policy in the workbench (issue 37), in Chromium against `awb serve`: a transformer SFT run of the
 * smallest shape started from the Training view's form (1 epoch on the oracle's demonstrations of two templates, the
 * tests' WordPiece tokenizer), its epoch charted, its model folder listed as a checkpoint and as a policy, then run in
 * the Agent view, whose candidates show the policy's own probabilities.
 */
const TOKENIZER = join(import.meta.dirname, '..', 'policy', 'transformer-fixtures', 'tokenizer.json');
const SLOW = 90_000;

async function setField(page: Page, id: string, value: string): Promise<void> {
  const el = page.getByTestId(id);
  await el.evaluate((e) => {
    const group = e.closest('details');
    if (group && !group.open) group.querySelector('summary')!.click();
  });
  await el.fill(value);
}

describe('the transformer policy in the workbench: train it from the Training view, run it in the Agent view', () => {
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  let api: Awaited<ReturnType<typeof apiClient>>;
  let checkpoint: string;

  beforeAll(async () => {
    serve = await startServe({ env: { AWB_PYTHON: requirePython() } });
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

  it('starts a transformer SFT run of the smallest shape from the form, charts its epoch, and lists its model folder', async () => {
    await page.keyboard.press('Control+6');
    await page.getByTestId('training-kind').selectOption('transformer-sft');
    await page.getByTestId('training-preset').selectOption('smoke');
    await setField(page, 'train-templates', '["ClockStopwatchRun", "ContactsAddContact"]');
    await setField(page, 'train-tokenizer', TOKENIZER);
    expect(JSON.parse(await page.locator('.training-diff').innerText())).toMatchObject({
      templates: ['ClockStopwatchRun', 'ContactsAddContact'], seeds: [0], tokenizer: TOKENIZER, sft: { epochs: 1 }, shape: { width: 16, screenLayers: 1 },
    });
    await page.getByTestId('training-start').click();
    const state = page.getByTestId('training-state');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 80_000, interval: 250 }).toBe('finished');
    const bar = await page.getByTestId('training-job').innerText();
    checkpoint = /Checkpoint: (\S+)/.exec(bar)![1]!;
    expect(checkpoint).toMatch(/^transformer-sft-/);

    // its epoch, charted from the store run the worker wrote
    const runId = Number(await page.getByTestId('training-charts').getAttribute('data-run'));
    await expect.poll(() => page.getByTestId('chart-loss/nll').getAttribute('data-points')).toBe('1');
    const rows = await api.api.getTrainingMetrics({ runId });
    expect(rows.map((r) => r.iteration)).toEqual([1]);
    expect(rows[0]!.metrics['loss/nll']).toBeGreaterThan(0);
    expect(rows[0]!.metrics['acc/top1']).toBeGreaterThanOrEqual(0);
    await expect.poll(() => page.getByTestId(`training-run-${runId}`).innerText(), { timeout: 10_000 }).toMatch(/finished/);

    // the model folder, whole, listed as a transformer checkpoint and as a policy; no staging folder left
    const row = page.getByTestId(`checkpoint-${checkpoint}`);
    await expect.poll(() => row.innerText()).toMatch(/transformer-sft/);
    const checkpoints = await api.api.listCheckpoints({});
    const info = checkpoints.find((c) => c.name === checkpoint)!;
    expect(info).toMatchObject({ model: 'transformer', trainer: 'transformer-sft', iteration: 1, resumable: false });
    for (const f of ['config.json', 'tokenizer.json', 'policy.onnx', 'weights.pt']) expect(existsSync(join(info.dir, f))).toBe(true);
    expect(readdirSync(join(serve.home, 'checkpoints')).filter((n) => n.startsWith('.'))).toEqual([]);
    const policies = await api.api.listPolicies({});
    expect(policies.find((p) => p.name === `checkpoint:${checkpoint}`)).toMatchObject({ kind: 'transformer', evaluable: true, trainable: false });
  }, SLOW);

  it('continues it with transformer GRPO from its row ("Use as init"): iterations charted, a model folder every checkpoint', async () => {
    await page.getByTestId(`use-as-init-${checkpoint}`).click();
    await expect.poll(() => page.getByTestId('training-kind').inputValue()).toBe('transformer-grpo');
    await expect.poll(() => page.getByTestId('train-init').inputValue()).toBe(`checkpoint:${checkpoint}`);
    await page.getByTestId('training-preset').selectOption('smoke');
    await setField(page, 'train-iterations', '2');
    await setField(page, 'train-checkpointEvery', '1');
    await page.getByTestId('training-start').click();
    // The new run's row first: until then the job bar still shows the SFT job, finished.
    await expect.poll(() => page.locator('[data-testid^="training-run-"]').count(), { timeout: 20_000 }).toBe(2);
    const state = page.getByTestId('training-state');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 60_000, interval: 250 }).toBe('finished');
    const grpo = /Checkpoint: (\S+)/.exec(await page.getByTestId('training-job').innerText())![1]!;
    expect(grpo).toMatch(/^transformer-grpo-/);
    const runId = Number(await page.getByTestId('training-charts').getAttribute('data-run'));
    await expect.poll(() => page.getByTestId('chart-reward/mean').getAttribute('data-points')).toBe('2');
    const rows = await api.api.getTrainingMetrics({ runId });
    expect(rows.map((r) => r.iteration)).toEqual([1, 2]);
    expect(rows.every((r) => Number.isFinite(r.metrics['reward/mean']) && Number.isFinite(r.metrics['success/rate']))).toBe(true);
    const info = (await api.api.listCheckpoints({})).find((c) => c.name === grpo)!;
    expect(info).toMatchObject({ model: 'transformer', trainer: 'transformer-grpo', iteration: 2 });
    expect(readdirSync(join(serve.home, 'checkpoints')).filter((n) => n.startsWith('.'))).toEqual([]);
  }, SLOW);

  it('adapts it to Clock on the Adaptation view: GRPO on a LoRA, before → after, the adapted model a checkpoint of its own', async () => {
    await page.keyboard.press('Control+7');
    await page.getByTestId('adaptation-view').waitFor();
    await page.getByTestId('adapt-app').selectOption('Clock');
    await page.getByTestId('adapt-policy').selectOption(`checkpoint:${checkpoint}`);
    await page.getByTestId('adapt-transformer-note').waitFor();
    // its lineage is read from the model folder: SFT on two templates, one of them Clock's
    await expect.poll(() => page.getByTestId('adapt-base-saw-app').innerText(), { timeout: 10_000 }).toMatch(/its training saw Clock/);
    await page.getByTestId('adapt-shots').fill('2');
    await setField(page, 'adapt-grpo.iterations', '1');
    await setField(page, 'adapt-grpo.instancesPerIteration', '1');
    await setField(page, 'adapt-grpo.rolloutsPerInstance', '2');
    await setField(page, 'adapt-grpo.maxSteps', '4');
    await page.getByTestId('adapt-eval-seeds').fill('30');
    await page.getByTestId('adapt-run').click();
    await expect.poll(() => page.getByTestId('adapt-state').getAttribute('data-state'), { timeout: 60_000, interval: 250 }).toBe('finished');
    await page.getByTestId('adapt-result').waitFor();
    expect(await page.getByTestId('adapt-phase-grpo').innerText()).toMatch(/1\/1/);
    const bars = page.getByTestId('adapt-bars');
    expect(Number(await bars.getAttribute('data-rows'))).toBeGreaterThanOrEqual(2); // overall + each held-out Clock template
    expect(await page.getByTestId('adapt-delta').innerText()).toMatch(/→ .*points/);
    const saved = (await page.getByTestId('adapt-saved').innerText()).replace(/^Adapter saved: /, '').trim();
    const adapted = (await api.api.listCheckpoints({})).find((c) => c.dir === saved)!;
    expect(adapted).toMatchObject({ model: 'transformer' });
    expect(adapted.name).toMatch(/^transformer-adapt-clock-/);
    expect(readdirSync(join(serve.home, 'checkpoints')).filter((n) => n.startsWith('.'))).toEqual([]);
    await page.keyboard.press('Control+6');
  }, SLOW);

  it('runs it in the Agent view: the candidates are the transformer policy’s own probabilities', async () => {
    await page.getByTestId(`run-in-agent-${checkpoint}`).click();
    await expect.poll(() => page.getByTestId('policy-select').inputValue()).toBe(`checkpoint:${checkpoint}`);
    await page.getByTestId('max-steps-input').fill('2');
    await page.getByTestId('session-start').click();
    await expect.poll(() => page.getByTestId('session-state').getAttribute('data-state'), { timeout: 30_000 }).toBe('paused');
    await page.getByTestId('candidate-0').waitFor();
    const thought = await page.getByTestId('proposal-thought').innerText();
    expect(thought).toMatch(/transformer\)$/);
    // The proposal is the greedy action, so the first candidate is it, with the p its thought gives: shown as the
    // policy's π, not re-normalised (a softmax over probabilities would read near 1/n for every candidate).
    const p = Number(/\(p=([0-9.]+),/.exec(thought)![1]);
    const cells = page.locator('[data-testid^="candidate-"] td:nth-child(4)');
    const shown = (await cells.allInnerTexts()).map((t) => Number(/([0-9.]+)%/.exec(t)![1]) / 100);
    expect(shown.length).toBeGreaterThan(3);
    expect(shown[0]).toBeCloseTo(p, 2);
    expect(shown.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(1.01);
    expect([...shown].sort((a, b) => b - a)).toEqual(shown);
  }, SLOW);
});
