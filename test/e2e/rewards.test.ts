/// <reference lib="dom" />
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { RandomPolicy } from '../../core/episode/policies/random.js';
import { rewardEpisodeFromTrajectory } from '../../core/rewards/episode.js';
import { fitProgRm, saveProgRm } from '../../core/rewards/progrm/fit.js';
import { parseProgressTrainConfig } from '../../core/rewards/progrm/train.js';
import { createJudgeModel, saveJudge } from '../../core/rewards/shepherd/builtin.js';
import { createRun, getTree, loadTrajectory, openStore, type EpisodeId } from '../../core/store/index.js';
import { createRng } from '../../core/util/rng.js';
import { SimDroid } from '../../emulators/simdroid/simdroid.js';
import { recordEpisode } from '../store/helpers.js';
import { startServe, type Browser, type ServeProcess, openWorkbench } from './harness.js';

/**
 * The replay viewer's Rewards panel in Chromium against `awb serve`: a data folder with two oracle
 * successes of one template and a random episode on the first one's instance (its group), a tiny ProgRM model and an (untrained) GUI-Shepherd
 * judge fitted into it; the panel shows the stored outcome, recomputes outcome + format +
 * shortest-path + ADMIRE (consensus distiller) and then ProgRM + the judge, follows the timeline, and
 * shows a refused config.
 */
const TEMPLATE = 'SystemDarkThemeTurnOn'; // four oracle steps

describe('the Rewards panel end to end', () => {
  let home: string;
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  const ids: EpisodeId[] = [];

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'awb-e2e-rewards-'));
    const db = openStore(join(home, 'trajectories.db'));
    const device = new SimDroid();
    try {
      const run = createRun(db, { name: 'e2e rewards', kind: 'single', config: {} }).id;
      ids.push((await recordEpisode(db, run, device, TEMPLATE, 1)).id);
      ids.push((await recordEpisode(db, run, device, TEMPLATE, 2)).id);
      ids.push((await recordEpisode(db, run, device, TEMPLATE, 1, new RandomPolicy(createRng('e2e-rewards')))).id); // seed 1 again: a group of 2
      const eps = ids.map((id) => rewardEpisodeFromTrajectory(loadTrajectory(db, id), (h) => getTree(db, h)));
      const fit = fitProgRm(eps, { source: 'lcs', config: parseProgressTrainConfig({ epochs: 3 }), seed: 0, annotate: { taskKey: 'template' } });
      mkdirSync(join(home, 'progrm'), { recursive: true });
      saveProgRm(join(home, 'progrm', 'tiny.json'), fit);
      mkdirSync(join(home, 'shepherd'), { recursive: true });
      saveJudge(join(home, 'shepherd', 'tiny.json'), createJudgeModel(createRng('e2e-judge'), undefined, 4));
    } finally {
      await device.close();
      db.close();
    }
    serve = await startServe({ home });
    browser = await openWorkbench(serve);
    page = browser.page;
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  const cell = (step: number, kind: string) => page.getByTestId(`rewards-cell-${step}-${kind}`);

  it('opens the first success and shows the stored outcome on its last step', async () => {
    await page.click('[data-view="trajectories"]');
    await page.getByTestId(`episode-row-${ids[0]}`).click();
    await page.getByTestId('rewards-table').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('rewards-source').innerText()).toMatch(/as stored/);
    expect(await page.locator('[data-testid^="rewards-row-"]').count()).toBe(4);
    expect(await cell(3, 'outcome').innerText()).toMatch(/^1\b/);
    expect(await cell(0, 'outcome').innerText()).toBe('—');
  });

  it('computes outcome, format, shortest-path and ADMIRE side by side, with the milestone list', async () => {
    await page.getByTestId('rewards-kind-admire').check();
    await page.getByTestId('rewards-compute').click();
    await page.getByTestId('rewards-detail-admire').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('rewards-source').innerText()).toMatch(/recomputed, not stored · group of 2/);
    for (const k of ['outcome', 'format', 'shortest-path', 'admire']) await page.getByTestId(`rewards-col-${k}`).waitFor();
    expect(await cell(3, 'outcome').innerText()).toMatch(/^1\b/);
    expect(await cell(3, 'shortest-path').innerText()).toMatch(/^0\b/);
    expect(await cell(0, 'admire').innerText()).toMatch(/hit m1\//);
    expect(await page.getByTestId('rewards-total-row').innerText()).toMatch(/Total/);
    // distilled from the two successes: every milestone hit by this success, each in its own step
    const milestones = page.locator('[data-testid^="admire-milestone-"]');
    expect(await milestones.count()).toBeGreaterThan(0);
    expect(await page.locator('.rewards-milestones li.miss').count()).toBe(0);
    // a hit jumps the timeline there, and the table follows
    await page.locator('[data-testid^="admire-hit-1-"]').first().click();
    await expect.poll(() => page.getByTestId('replay-position').innerText()).toMatch(/step 2 of 4/);
    expect(await page.getByTestId('rewards-row-1').getAttribute('class')).toBe('current');
    // and the timeline moves the highlight
    await page.getByTestId('timeline').fill('3');
    await expect.poll(() => page.getByTestId('rewards-row-3').getAttribute('class')).toBe('current');
    expect(await page.getByTestId('rewards-row-1').getAttribute('class')).toBeNull();
  });

  it('shows a refused config as the workbench says it', async () => {
    await page.getByTestId('rewards-kind-progrm').check();
    await page.getByTestId('rewards-progrm-checkpoint').fill('/etc/passwd');
    await page.getByTestId('rewards-compute').click();
    const err = page.getByTestId('rewards-error');
    await err.waitFor({ timeout: 15_000 });
    expect(await err.innerText()).toMatch(/^RewardConfigError: Invalid reward config:\s+components\.4\.options\.checkpoint: a checkpoint through the workbench/);
  });

  it('computes ProgRM and the judge from checkpoints in the data folder: curve, alignment, verdicts', async () => {
    await page.getByTestId('rewards-progrm-checkpoint').fill('progrm/tiny.json');
    await page.getByTestId('rewards-kind-shepherd').check();
    await page.getByTestId('rewards-shepherd-checkpoint').fill('shepherd/tiny.json');
    for (const k of ['format', 'shortest-path', 'admire']) await page.getByTestId(`rewards-kind-${k}`).uncheck();
    // the other success, aligned against the recipe distilled from both
    await page.getByTestId('replay-back').first().click();
    await page.getByTestId(`episode-row-${ids[1]}`).click();
    await page.getByTestId('rewards-table').waitFor({ timeout: 15_000 });
    await page.getByTestId('rewards-compute').click();
    await page.getByTestId('rewards-detail-progrm').waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('rewards-error').count()).toBe(0);
    const steps = await page.locator('[data-testid^="rewards-row-"]').count();
    expect(await page.locator('[data-testid^="progrm-point-"]').count()).toBe(steps + 1);
    expect(await page.getByTestId('progrm-recipe').innerText()).toMatch(/recipe 1 \(from 2 successes\)/);
    expect(await page.locator('[data-testid^="progrm-key-"]').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid^="shepherd-step-"]').count()).toBe(steps);
    expect(await page.getByTestId('shepherd-step-0').innerText()).toMatch(/correct|incorrect|no-action/);
    // a point on the curve moves the timeline to its screen
    await page.getByTestId('progrm-point-1').click();
    await expect.poll(() => page.getByTestId('replay-position').innerText()).toMatch(/step 2 of 4/);
    expect(await page.getByTestId('shepherd-step-1').getAttribute('class')).toBe('current');
  });
});
