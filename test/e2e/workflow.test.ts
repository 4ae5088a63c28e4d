/// <reference lib="dom" />
import { mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { startServe, type Browser, type ServeProcess, openWorkbench } from './harness.js';

/**
 * The researcher's path through the workbench, in Chromium against `awb serve`: the device, its
 * live screen, an oracle episode stepped through with one step overridden, then the recorded
 * episode in the replay viewer, scrubbed; then a tiny training run, charted and stopped; then a
 * tiny adaptation from its checkpoint, drawn as before / after bars. Screenshots of each main view
 * go to docs/img (the README shows them).
 */
const DOCS_IMG = fileURLToPath(new URL('../../docs/img/', import.meta.url));
const TEMPLATE = 'SystemDarkThemeTurnOn'; // four oracle steps

/** Distinct colours on a canvas, and how many pixels have `rgb` (a chart's series colour). */
async function canvasColours(canvas: Locator, rgb: [number, number, number] = [0, 0, 0]): Promise<{ colours: number; matching: number }> {
  return canvas.evaluate((c: HTMLCanvasElement, want: number[]) => {
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set<number>();
    let matching = 0;
    for (let i = 0; i < d.length; i += 4) {
      seen.add((d[i]! << 16) | (d[i + 1]! << 8) | d[i + 2]!);
      if (d[i] === want[0] && d[i + 1] === want[1] && d[i + 2] === want[2]) matching++;
    }
    return { colours: seen.size, matching };
  }, rgb);
}

/** Distinct colours in an <img>: a blank or failed image has one or two. */
async function imageColours(img: Locator): Promise<number> {
  return img.evaluate(async (el: HTMLImageElement) => {
    await el.decode();
    const c = document.createElement('canvas');
    c.width = el.naturalWidth;
    c.height = el.naturalHeight;
    const g = c.getContext('2d')!;
    g.drawImage(el, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set<number>();
    for (let i = 0; i < d.length; i += 4 * 97) seen.add((d[i]! << 16) | (d[i + 1]! << 8) | d[i + 2]!);
    return seen.size;
  });
}

async function shot(page: Page, name: string): Promise<void> {
  // `npm run docs:screenshots` refreshes the README's pictures; a plain test run leaves docs/ alone.
  if (process.env.AWB_DOCS_SCREENSHOTS !== '1') return;
  mkdirSync(DOCS_IMG, { recursive: true });
  await page.screenshot({ path: `${DOCS_IMG}ui-${name}.png` });
}

describe('workbench end to end in Chromium', () => {
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    serve = await startServe();
    browser = await openWorkbench(serve);
    page = browser.page;
  });

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    if (serve) rmSync(serve.home, { recursive: true, force: true });
  });

  it('lists the embedded SimDroid on the Devices view', async () => {
    await page.click('[data-view="devices"]');
    const row = page.getByTestId('device-row-simdroid-1');
    await row.waitFor();
    expect(await row.innerText()).toMatch(/1080\s*[×x]\s*2400/);
    await shot(page, 'devices');
  });

  it('mirrors the screen on the Live view, taps through it, and inspects the tree', async () => {
    await page.click('[data-view="live"]');
    const img = page.locator('[data-testid="live-screen"] img');
    await img.waitFor();
    expect(await imageColours(img)).toBeGreaterThan(8);
    const before = await img.getAttribute('src');
    await page.getByTestId('key-home').click(); // a frame arrives only when the screen changes…
    const box = (await page.getByTestId('live-screen').boundingBox())!;
    // …so open the app drawer with a drag on the mirrored screen (a swipe on the device).
    await page.mouse.move(box.x + box.width / 2, box.y + box.height * 0.85);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height * 0.3, { steps: 8 });
    await page.mouse.up();
    await expect.poll(() => img.getAttribute('src'), { timeout: 10_000 }).not.toBe(before);
    await page.getByTestId('inspector-tree').waitFor();
    await expect.poll(async () => page.locator('[data-testid^="tree-node-"]').count(), { timeout: 10_000 }).toBeGreaterThan(10);
    // The tree re-renders when a late frame lands, so click and read until the panel shows a node.
    await expect.poll(async () => {
      await page.locator('[data-testid^="tree-node-"]').nth(3).click();
      return page.getByTestId('node-attributes').innerText();
    }, { timeout: 10_000 }).toMatch(/bounds/i);
    await shot(page, 'live');
    await page.getByTestId('key-home').click();
  });

  it('steps an oracle episode, overrides one step, and runs it to success', async () => {
    await page.click('[data-view="agent"]');
    await page.getByTestId('task-select').selectOption(TEMPLATE);
    await page.getByTestId('seed-input').fill('3');
    await page.getByTestId('policy-select').selectOption('oracle');
    await page.getByTestId('session-start').click();
    const state = page.getByTestId('session-state');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('paused');
    await expect.poll(() => page.getByTestId('proposal-action').innerText()).toMatch(/\S/);
    expect(await imageColours(page.locator('[data-testid="agent-screen"] img'))).toBeGreaterThan(8);
    await shot(page, 'agent');

    await page.getByTestId('session-step').click(); // step 1 as the agent proposed
    await page.getByTestId('step-row-0').waitFor();
    await expect.poll(() => state.getAttribute('data-state')).toBe('paused');

    // A malformed override is refused with the server's message; a valid one is used once.
    await page.getByTestId('override-json').fill('{"action_type":"click"}');
    await page.getByTestId('override-apply').click();
    await expect.poll(async () => (await page.getByTestId('override-error').innerText().catch(() => '')), { timeout: 5000 }).toMatch(/index|x|y/i);
    // Override by clicking the proposed element on the screen: the person's click becomes the action
    // (the oracle is a script, so the override must have the effect it planned for it to go on).
    const target = page.locator('[data-testid="agent-screen"] .screen-box.target').first();
    await target.waitFor();
    const t = (await target.boundingBox())!;
    await page.mouse.click(t.x + t.width / 2, t.y + t.height / 2);
    await page.getByTestId('override-pending').waitFor();
    await page.getByTestId('session-step').click();
    await page.getByTestId('step-row-1').waitFor();
    expect(await page.getByTestId('step-row-1').getAttribute('data-overridden')).not.toBeNull();

    await page.getByTestId('session-run').click();
    const result = page.getByTestId('session-result');
    await result.waitFor({ timeout: 30_000 });
    expect(await result.getAttribute('data-status')).toBe('success');
    expect(await page.locator('[data-testid^="step-row-"]').count()).toBeGreaterThanOrEqual(4);
  });

  it('opens the recorded episode in the replay viewer and scrubs its timeline', async () => {
    await page.getByTestId('session-open-episode').click();
    const replay = page.getByTestId('replay-view');
    await replay.waitFor();
    expect(await page.getByTestId('replay-instruction').innerText()).toMatch(/dark theme/i);
    expect(await page.getByTestId('replay-status').innerText()).toBe('success');
    const screen = page.locator('[data-testid="replay-screen"] img');
    await screen.waitFor();
    expect(await imageColours(screen)).toBeGreaterThan(8);
    const first = await page.getByTestId('replay-action').innerText();
    expect(first).toMatch(/\S/);

    // Scrub to step 2 (the override) with the slider, then to step 3 with the keyboard.
    await page.getByTestId('timeline').fill('1');
    await expect.poll(() => page.getByTestId('replay-position').innerText()).toMatch(/step 2 of/);
    expect(await page.getByTestId('replay-action').innerText()).toMatch(/chosen by a person/);
    await page.getByTestId('timeline').focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => page.getByTestId('replay-position').innerText()).toMatch(/step 3 of/);
    await expect.poll(() => page.locator('[data-testid="replay-screen"] img').getAttribute('src')).toBeTruthy();
    expect(await imageColours(page.locator('[data-testid="replay-screen"] img'))).toBeGreaterThan(8);
    expect(await page.getByTestId('replay-rewards').innerText()).toBeTruthy();
    await shot(page, 'replay');
    // A reload keeps the place: the URL names the episode and step, and the page opens there again.
    expect(page.url()).toMatch(/#\/trajectories\/episode\/\d+\/step\/2$/);
    await page.reload();
    await expect.poll(() => page.getByTestId('replay-position').innerText().catch(() => ''), { timeout: 15_000 }).toMatch(/step 3 of/);
  });

  it('lists the episode in the trajectory table with counts', async () => {
    await page.getByTestId('replay-back').first().click();
    await page.getByTestId('episode-table').waitFor();
    await expect.poll(() => page.locator('[data-testid^="episode-row-"]').count()).toBe(1);
    expect(await page.getByTestId('status-count-success').innerText()).toMatch(/1/);
    expect(await page.getByTestId('episode-total').innerText()).toMatch(/1/);
    // The step overridden in Agent marks its episode in the list.
    expect(await page.locator('[data-testid^="episode-overridden-"]').count()).toBe(1);
    await shot(page, 'trajectories');
    // The Agent form survived the reload above.
    await page.click('[data-view="agent"]');
    await expect.poll(() => page.getByTestId('seed-input').inputValue()).toBe('3');
    expect(await page.getByTestId('task-select').inputValue()).toBe(TEMPLATE);
    await page.click('[data-view="settings"]');
    await page.getByTestId('setting-mirrorFps').waitFor();
    await shot(page, 'settings');
  });

  it('records a failed episode (another app, then "done") and explains it: its failure class, first divergence and rewards beside the success', async () => {
    await page.click('[data-view="agent"]');
    await page.getByTestId('session-start').click(); // the same task and seed as the success above
    const state = page.getByTestId('session-state');
    for (const [i, action] of [{ action_type: 'open_app', app_name: 'Contacts' }, { action_type: 'status', goal_status: 'complete' }].entries()) {
      await expect.poll(() => state.getAttribute('data-state'), { timeout: 15_000 }).toBe('paused');
      await page.getByTestId('override-json').fill(JSON.stringify(action));
      await page.getByTestId('override-apply').click();
      await page.getByTestId('override-pending').waitFor();
      await page.getByTestId('session-step').click();
      if (i === 0) await page.getByTestId('step-row-0').waitFor();
    }
    const result = page.getByTestId('session-result');
    await expect.poll(() => result.getAttribute('data-status'), { timeout: 15_000 }).toBe('failure');
    await page.getByTestId('session-open-episode').click();
    const cls = page.getByTestId('explain-class');
    await cls.waitFor({ timeout: 15_000 });
    expect(await cls.getAttribute('data-class')).toBe('wrong_app');
    expect(await page.getByTestId('explain-divergence').innerText()).toMatch(/Step 1 left every successful path/);
    expect(await page.getByTestId('explain-failed').innerText()).toMatch(/Contacts/);
    // Rewards beside the success: milestones it reached and this episode missed; no ProgRM model fitted in this data folder.
    expect(await page.locator('[data-testid^="explain-milestone-"][data-reached="false"][data-reference-reached="true"]').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('explain-rewards-progrm').innerText()).toMatch(/awb rewards fit progrm/);
    await page.getByTestId('replay-back').first().click();
  });

  it('starts a tiny GRPO run on the Training view (Ctrl+6), charts its iterations live, and stops it', async () => {
    await page.keyboard.press('Control+6');
    await page.getByTestId('training-view').waitFor();
    await page.getByTestId('training-preset').selectOption('smoke');
    await page.getByTestId('training-preset').selectOption('adagrpo'); // presets combine: tiny AdaGRPO
    await page.getByTestId('train-iterations').fill('200'); // far more than it will run before the stop
    await page.getByTestId('training-start').click();
    const state = page.getByTestId('training-state');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 20_000 }).toBe('running');
    const chart = page.getByTestId('chart-success/rate');
    await expect.poll(async () => Number(await chart.getAttribute('data-points')), { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
    // uPlot drew the line and its points on the canvas (a blank canvas has one colour).
    expect((await canvasColours(chart.locator('canvas'))).colours).toBeGreaterThan(2);
    await shot(page, 'training');
    await page.getByTestId('training-stop').click();
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 20_000 }).toBe('stopped');
    await expect.poll(() => page.locator('[data-testid^="training-run-"]').count()).toBe(1);
    // The run list refreshes after the stop; under load the row may still say running for a moment.
    await expect.poll(() => page.locator('[data-testid^="training-run-"]').first().innerText(), { timeout: 20_000 }).toMatch(/interrupted/);
    expect(await page.locator('[data-testid^="checkpoint-"]').count()).toBe(1);
  });

  it('adapts the checkpoint to Settings on the Adaptation view (Ctrl+7) and draws the before / after bars', async () => {
    await page.keyboard.press('Control+7');
    await page.getByTestId('adaptation-view').waitFor();
    await page.getByTestId('adapt-app').selectOption('Settings');
    await expect.poll(() => page.getByTestId('adapt-policy').inputValue()).toMatch(/^checkpoint:grpo-/); // the GRPO run's checkpoint, by name
    await page.getByTestId('adapt-shots').fill('4');
    await page.getByTestId('adapt-method').selectOption('sft');
    await page.getByTestId('adapt-eval-seeds').fill('30');
    await page.getByTestId('adapt-run').click();
    const state = page.getByTestId('adapt-state');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 30_000 }).toBe('finished');
    await page.getByTestId('adapt-result').waitFor();
    expect(await page.getByTestId('adapt-phase-sft').innerText()).toMatch(/epoch 60\/60/);
    expect(await page.locator('[data-testid="adapt-phase-sft"] [data-testid="chart-loss/nll"]').getAttribute('data-points')).toBe('60');
    // Overall + the two held-out Settings templates; the after bars are on the canvas in their colour.
    const bars = page.getByTestId('adapt-bars');
    expect(await bars.getAttribute('data-rows')).toBe('3');
    const after = Number(await bars.getAttribute('data-after'));
    // The SFT adapter solves held-out Settings instances (4 shots × 60 epochs: 0 → 100% here), so after bars are
    // on the canvas, in their colour (grid and labels are black at low alpha; the before bars at 0% have no width).
    expect(after).toBeGreaterThan(0);
    expect((await canvasColours(bars.locator('canvas'), [0x2f, 0x6f, 0xed])).matching).toBeGreaterThan(1000);
    expect(await page.getByTestId('adapt-delta').innerText()).toMatch(/→ .*points/);
    await expect.poll(() => page.locator('[data-testid="adapter-Settings"]').count()).toBe(1);
    await shot(page, 'adaptation');
  });

  it('evaluates the checkpoint by name from its row (progress → results per app), uses it as GRPO init, and runs it in Agent', async () => {
    await page.keyboard.press('Control+6');
    const row = page.locator('[data-testid^="checkpoint-"]').first();
    const name = (await row.getAttribute('data-testid'))!.slice('checkpoint-'.length);
    await page.getByTestId(`evaluate-${name}`).click();
    expect(await page.getByTestId('eval-policy').inputValue()).toBe(`checkpoint:${name}`);
    await page.getByTestId('eval-seeds').fill('30');
    await page.getByTestId('eval-limit').fill('2');
    await page.getByTestId('eval-start').click();
    const progress = page.getByTestId('eval-progress');
    await expect.poll(() => progress.innerText(), { timeout: 30_000 }).toMatch(/finished, 2\/2 episodes/);
    await page.getByTestId('eval-row-overall').waitFor();
    expect(await page.locator('[data-testid^="eval-row-app-"]').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid^="eval-row-difficulty-"]').count()).toBeGreaterThan(0);
    // GRPO init is a dropdown of the same choices; "Use as init" picks the checkpoint by name.
    await page.getByTestId(`use-as-init-${name}`).click();
    await expect.poll(() => page.getByTestId('train-init').inputValue()).toBe(`checkpoint:${name}`);
    await shot(page, 'evaluate');
    await page.getByTestId(`run-in-agent-${name}`).click();
    const policy = page.getByTestId('policy-select');
    await expect.poll(() => policy.inputValue()).toBe(`checkpoint:${name}`);
    // The adapter made on this checkpoint above is a choice too (it scores Settings' screens).
    expect(await policy.locator(`option[value="adapter:${name}/settings"]`).count()).toBe(1);
  });
});
