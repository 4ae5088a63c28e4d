/// <reference lib="dom" />
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { JobInfo } from '../../core/api/types.js';
import { apiClient, openWorkbench, startServe, type Browser, type ServeProcess } from './harness.js';

/**
 * The inspection views fit the screen (issue 33, "Done when"): at 1280×800 no element of the Training,
 * Trajectories, Adaptation and Agent views is outside the viewport horizontally, and no text runs out of its table
 * cell. The store holds what a researcher's would after a first loop: an SFT run, a GRPO run from it with the default
 * recording (no screenshots), an adaptation, and a step-through session held on the SFT policy's proposal. The
 * keyboard and links are checked here too: the sidebar's views are links, G then a letter shows a view, Esc from an
 * episode returns to the list's row, the replay's tree is one tab stop walked with the arrow keys.
 */
const SLOW = 120_000;
const VIEWPORT = { width: 1280, height: 800 };

/** Where a view's content leaves the viewport (what is clipped by a scrolling or hidden-overflow ancestor counts as clipped). */
async function offscreen(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    const main = document.querySelector('main')!;
    for (const el of Array.from(main.querySelectorAll<HTMLElement>('*'))) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      let right = r.right;
      let left = r.left;
      for (let a = el.parentElement; a && a !== main.parentElement; a = a.parentElement) {
        if (getComputedStyle(a).overflowX === 'visible') continue;
        const ar = a.getBoundingClientRect();
        right = Math.min(right, ar.right);
        left = Math.max(left, ar.left);
      }
      if (right <= left) continue; // wholly clipped
      if (right > width + 0.5 || left < -0.5) out.push(`${el.tagName.toLowerCase()}.${el.className} [${Math.round(left)}, ${Math.round(right)}] ${el.textContent?.slice(0, 40) ?? ''}`);
    }
    return out;
  });
}

/** Table cells (and grid cells) whose text runs out of them: wider than the cell, and not cut by the cell's own overflow. */
async function overflowingCells(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (const cell of Array.from(document.querySelectorAll<HTMLElement>('main td, main th, main [role="gridcell"], main [role="columnheader"]'))) {
      if (cell.offsetParent === null) continue;
      if (cell.scrollWidth <= cell.clientWidth + 1) continue;
      if (getComputedStyle(cell).overflowX !== 'visible') continue; // cut (with an ellipsis), its tooltip whole
      out.push(`${cell.tagName.toLowerCase()} ${cell.scrollWidth} > ${cell.clientWidth}: ${cell.textContent?.slice(0, 60) ?? ''}`);
    }
    return out;
  });
}

async function fits(page: Page, what: string): Promise<void> {
  expect(await offscreen(page), `${what}: outside the viewport`).toEqual([]);
  expect(await overflowingCells(page), `${what}: text out of its cell`).toEqual([]);
  // The page itself does not scroll sideways.
  expect(await page.evaluate(() => document.querySelector('main')!.scrollWidth <= document.querySelector('main')!.clientWidth), what).toBe(true);
}

describe('the inspection views fit 1280×800 (Chromium)', () => {
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;
  let api: Awaited<ReturnType<typeof apiClient>>;
  let sft: JobInfo;
  let grpo: JobInfo;

  async function finished(id: string): Promise<JobInfo> {
    for (let i = 0; i < 600; i++) {
      const j = (await api.api.listTrainingJobs()).find((x) => x.id === id)!;
      if (j.state === 'finished') return j;
      if (j.state === 'failed' || j.state === 'stopped') throw new Error(`${id} ${j.state}: ${j.error?.message ?? ''}`);
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`${id} did not finish`);
  }

  beforeAll(async () => {
    serve = await startServe();
    api = await apiClient(serve);
    sft = await finished((await api.api.startTraining({ kind: 'sft', config: { maxTemplates: 2, seeds: [0], sft: { epochs: 3 } } })).id);
    // The default recording: every rollout kept, no screenshots (its replays are drawn from the trees).
    grpo = await finished((await api.api.startTraining({
      kind: 'grpo', config: { init: `checkpoint:${sft.checkpoint!.name}`, iterations: 2, instancesPerIteration: 1, rolloutsPerInstance: 2, maxSteps: 5, devices: 1 },
    })).id);
    await finished((await api.api.startAdaptation({ app: 'Settings', policy: grpo.checkpoint!.name, shots: 2, method: 'sft', epochs: 2, evalSeeds: [30] })).id);
    browser = await openWorkbench(serve, VIEWPORT);
    page = browser.page;
  }, SLOW);

  afterAll(async () => {
    api?.close();
    await browser?.close();
    await serve?.stop();
    if (serve) rmSync(serve.home, { recursive: true, force: true });
  });

  it('Training: the form, the charts, the runs and checkpoints tables, Evaluate', async () => {
    await page.goto(`${new URL(serve.url).origin}/#/training/run/${grpo.runId}`);
    await page.getByTestId(`chart-reward/mean`).waitFor();
    await page.getByTestId(`checkpoint-${grpo.checkpoint!.name}`).waitFor();
    await fits(page, 'Training');
    // The checkpoint's actions are on screen, on its row.
    const row = (await page.getByTestId(`checkpoint-${grpo.checkpoint!.name}`).boundingBox())!;
    const button = (await page.getByTestId(`run-in-agent-${grpo.checkpoint!.name}`).boundingBox())!;
    expect(button.x + button.width).toBeLessThanOrEqual(row.x + row.width + 0.5);
  });

  it('Trajectories: the run’s rollouts, and a rollout’s replay drawn from its trees (no screenshot was kept)', async () => {
    await page.goto(`${new URL(serve.url).origin}/#/trajectories?run=${grpo.runId}`);
    await page.locator('[data-testid^="episode-row-"]').first().waitFor();
    await fits(page, 'Trajectories list');
    const first = page.locator('[data-testid^="episode-row-"]').first();
    await first.click();
    await page.getByTestId('replay-view').waitFor();
    for (const pane of ['replay-screen', 'replay-before', 'replay-after']) {
      await expect.poll(() => page.getByTestId(pane).locator('[data-testid="wireframe"]').count(), { timeout: 10_000 }).toBe(1);
    }
    expect(await page.getByTestId('replay-iteration').innerText()).toMatch(/^[12]$/);
    await fits(page, 'Trajectories replay');
    // The tree is one tab stop: Tab from it leaves the tree, and the arrow keys walk its rows.
    const tree = page.getByTestId('replay-tree-body');
    await tree.focus();
    await page.keyboard.press('Home');
    const firstRow = await page.locator('.replay-node.selected').getAttribute('data-ordinal');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.locator('.replay-node.selected').getAttribute('data-ordinal')).not.toBe(firstRow);
    expect(await page.getByTestId('replay-position').innerText()).toMatch(/^step 1 of/); // the arrows stayed in the tree
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('[data-testid="replay-tree-body"]') === null)).toBe(true);
    // Esc leaves a field for the view (Tab may have landed in one), and then goes back to the list, the keys on its table.
    await page.keyboard.press('Escape');
    if (await page.getByTestId('replay-view').count()) await page.keyboard.press('Escape');
    await page.getByTestId('replay-view').waitFor({ state: 'detached' });
    expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('episode-table');
  });

  it('Adaptation: the form (with the held-out check), the result and the stored adapters', async () => {
    await page.goto(`${new URL(serve.url).origin}/#/adaptation`);
    await page.getByTestId('adapt-result').waitFor();
    await page.locator('[data-testid="adapter-Settings"]').waitFor();
    await page.getByTestId('adapt-policy').selectOption(`checkpoint:${grpo.checkpoint!.name}`);
    await page.getByTestId('adapt-base-saw-app').or(page.getByTestId('adapt-base-held-out')).waitFor();
    await fits(page, 'Adaptation');
  });

  it('Agent: a held proposal with its candidates (the policy’s own probabilities), the step log and the outside agents', async () => {
    await api.api.startSession({ serial: 'simdroid-1', templateId: 'SystemWifiTurnOn', seed: 0, policy: `checkpoint:${sft.checkpoint!.name}` });
    await page.goto(`${new URL(serve.url).origin}/#/agent`);
    await page.getByTestId('candidate-0').waitFor({ timeout: 20_000 });
    await fits(page, 'Agent');
    // The P column adds up to the whole distribution (a softmax of probabilities would flatten it, but sum to 1 too):
    // the chosen candidate's P is the policy's own, as its thought says it.
    const thought = await page.locator('.agent-field').filter({ hasText: 'p=' }).first().innerText();
    const p = Number(/p=([\d.]+)/.exec(thought)![1]);
    const shown = await page.getByTestId('candidate-0').locator('td').nth(3).innerText();
    expect(Math.abs(parseFloat(shown) / 100 - p)).toBeLessThan(0.006);
  });

  it('the sidebar’s views are links (a new tab lands on the view); G then a letter shows a view', async () => {
    const nav = page.locator('[data-view="training"]');
    expect(await nav.evaluate((a) => a.tagName)).toBe('A');
    expect(await nav.getAttribute('href')).toBe('#/training');
    const [tab] = await Promise.all([browser.context.waitForEvent('page'), nav.click({ modifiers: ['Control'] })]);
    await tab.getByTestId('training-view').waitFor({ timeout: 15_000 });
    await tab.close();
    expect(await page.evaluate(() => location.hash)).toBe('#/agent'); // a Ctrl+click leaves this tab where it was
    await page.locator('main').focus();
    await page.keyboard.press('g');
    await page.keyboard.press('t');
    await page.getByTestId('trajectories-view').waitFor();
    expect(await page.evaluate(() => location.hash)).toMatch(/^#\/trajectories/);
  });
});
