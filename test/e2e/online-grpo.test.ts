/// <reference lib="dom" />
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { createModel } from '../../core/policy/builtin.js';
import { saveCheckpoint } from '../../core/policy/checkpoint.js';
import { collectDemonstrations } from '../../core/rl/demonstrations.js';
import { parseSftConfig, trainSft } from '../../core/rl/sft.js';
import { TASKS } from '../../core/tasks/registry.js';
import { splitInstances } from '../../core/tasks/splits.js';
import { createRng } from '../../core/util/rng.js';
import { TOKEN } from '../jobs/fixture.js';
import { realTrainerAvailability, startRealTrainer, type RealTrainer } from '../jobs/real-service.js';
import { openWorkbench, startServe, type Browser, type ServeProcess } from './harness.js';

/**
 * The Jobs view's Online GRPO in Chromium against `awb serve` and the real Python trainer service
 * started here: a trainer added in the view, a bad field refused next to it, then one builtin
 * iteration from a registered warm start — its line (success, reward, job, policy) and its job row
 * appear, and the link opens its training run in the Training view.
 */
const avail = realTrainerAvailability();
const skip = avail.service ?? avail.torch;
if (skip) console.log(`skipping the online GRPO e2e test: ${skip}`);

describe.skipIf(skip !== null)('Online GRPO in the Jobs view (awb serve, real trainer service)', () => {
  let home: string;
  let service: RealTrainer;
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'awb-e2e-online-'));
    mkdirSync(join(home, 'trainer'));
    mkdirSync(join(home, 'policies'));
    // A warm start on the first instances of unseen-instance / train (the form's default split): some rollouts succeed.
    const device = new SimDroid({ serial: 'simdroid-e2e-online-warm' });
    try {
      const model = createModel(createRng('online-api/init'));
      trainSft(model, (await collectDemonstrations(device, splitInstances(TASKS, 'unseen-instance', 'train').slice(0, 2), model)).demos, parseSftConfig({ epochs: 250, batchSize: 8 }));
      saveCheckpoint(join(home, 'policies', 'warm.json'), model);
    } finally {
      device.close();
    }
    service = await startRealTrainer(join(home, 'trainer'), TOKEN);
    serve = await startServe({ home });
    browser = await openWorkbench(serve);
    page = browser.page;
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await service?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('starts one builtin iteration from the Jobs view: the iteration line, the job row, and the run in the Training view', async () => {
    await page.click('[data-view="jobs"]');
    await page.getByLabel('Trainer name').fill('local');
    await page.getByLabel('Trainer URL').fill(service.url);
    await page.getByLabel('Trainer token').fill(TOKEN);
    await page.getByTestId('jobs-trainers').getByRole('button', { name: 'Save' }).click();
    await page.getByTestId('trainer-local').waitFor({ timeout: 10_000 });

    const form = page.getByTestId('online-grpo');
    await form.getByTestId('online-field-init').selectOption('checkpoint:warm.json');
    await form.getByTestId('online-field-limit').fill('2');
    await form.getByTestId('online-field-maxSteps').fill('8');
    await form.getByTestId('online-field-seed').fill('3');
    // A bad field is shown next to it, and nothing starts.
    await form.getByTestId('online-field-iterations').fill('0');
    await form.getByTestId('online-start').click();
    expect(await form.getByTestId('online-error-iterations').innerText()).toMatch(/got "0"/);
    // The server's refusal too: a trainer config field it does not accept.
    await form.getByTestId('online-field-iterations').fill('1');
    await form.getByTestId('online-field-config').fill('{"epochs": -1}');
    await form.getByTestId('online-start').click();
    expect(await form.getByTestId('online-error-config').innerText({ timeout: 10_000 })).toMatch(/epochs/);

    await form.getByTestId('online-field-config').fill('{"epochs": 2, "minibatchSize": 16, "learningRate": 0.02, "klBeta": 0}');
    await form.getByTestId('online-start').click();
    const line = form.getByTestId('online-iteration-1');
    await line.waitFor({ timeout: 40_000 });
    expect(await line.innerText()).toMatch(/^iteration 1\/1: success \d+%, reward \d\.\d{3}; job (\d+) \(\S+\) → .*policy\.json$/);
    const jobId = /job (\d+)/.exec(await line.innerText())![1];
    await form.locator('[data-testid="online-run-state"]', { hasText: 'finished' }).waitFor({ timeout: 20_000 });
    const row = page.getByTestId(`remote-job-${jobId}`);
    await row.waitFor({ timeout: 10_000 });
    expect(await row.innerText()).toMatch(/local\s.*builtin-grpo\s.*#1 \(run \d+\)\s+succeeded/);

    // the loop's final checkpoint, registered in <data folder>/policies, is offered as the next loop's start
    await form.getByTestId('online-field-init').locator('option', { hasText: /^checkpoint:local-\S+\.json$/ }).waitFor({ state: 'attached', timeout: 10_000 });

    await form.getByTestId('online-run-link').click();
    const charts = page.getByTestId('training-charts');
    await charts.waitFor({ timeout: 10_000 });
    await page.getByTestId('chart-rollout/success').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('chart-rollout/success').getAttribute('data-points')).toBe('1');
  }, 60_000);
});
