/// <reference lib="dom" />
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openWorkbench, startServe, type Browser, type ServeProcess } from './harness.js';
import { startServedVlm, type ServedVlm } from '../policy/served-vlm.js';

/**
 * The Agent view stepping an episode of a REAL served model: `transformers serve` with the tiny
 * random Qwen2.5-VL (test/policy/served-vlm.ts), an endpoint profile added in Settings, `awb serve`
 * and Chromium. The untrained model's reply is shown as the proposal's thought, its format error is
 * visible before and after the step, and the episode ends cleanly.
 */
describe('Agent view with an endpoint served by transformers serve (tiny Qwen2.5-VL)', () => {
  let home: string;
  let served: ServedVlm;
  let serve: ServeProcess;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'awb-e2e-served-'));
    [served, serve] = await Promise.all([startServedVlm(), startServe({ home })]);
    browser = await openWorkbench(serve);
    page = browser.page;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await serve?.stop();
    await served?.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('adds the served model as an endpoint (transformers serve) and its test request answers', async () => {
    await page.click('[data-view="settings"]');
    await page.getByTestId('endpoint-add').click();
    await page.getByTestId('endpoint-field-name').fill('tiny');
    await page.getByTestId('endpoint-field-baseUrl').fill(served.baseUrl);
    await page.getByTestId('endpoint-field-model').fill(served.model);
    await page.getByTestId('endpoint-field-format').selectOption('qwen-mobile-use');
    await page.getByTestId('endpoint-field-server').selectOption('transformers');
    await page.getByTestId('endpoint-field-maxTokens').fill('16');
    await page.getByTestId('endpoint-save').click();
    await page.getByTestId('endpoint-key-tiny').waitFor({ timeout: 10_000 });
    await page.getByTestId('endpoint-test-tiny').click();
    const result = page.getByTestId('endpoint-test-result-tiny');
    await result.waitFor({ timeout: 30_000 });
    expect(await result.innerText()).toMatch(/Answered in \d+ ms \(1 attempt\)[\s\S]*not an action in the format/);
  });

  it('steps an episode: the model\'s reply and its format error are shown, the episode ends as a malformed action', async () => {
    await page.click('[data-view="agent"]');
    const select = page.getByTestId('policy-select');
    await expect.poll(async () => select.locator('option').allInnerTexts(), { timeout: 10_000 }).toContain('vlm:tiny');
    await select.selectOption('vlm:tiny');
    const requests = () => served.log().split('[Request received]').length - 1;
    const before = requests();
    await page.getByTestId('session-start').click();
    const state = page.getByTestId('session-state');
    await expect.poll(() => state.getAttribute('data-state'), { timeout: 30_000 }).toBe('paused');
    expect(requests()).toBe(before + 1);
    const reply = await page.getByTestId('proposal-thought').innerText();
    expect(reply.length).toBeGreaterThan(0);
    expect(reply).not.toBe('(the policy gave none)');
    expect(await page.getByTestId('proposal-error').innerText()).toMatch(/ActionParseError: .*VlmFormatError/);

    await page.getByTestId('session-step').click();
    const row = page.getByTestId('step-row-0');
    await row.waitFor({ timeout: 15_000 });
    expect(await row.locator('.agent-step-thought').innerText()).toBe(reply);
    expect(await row.locator('.agent-error').innerText()).toMatch(/VlmFormatError/);
    const done = page.getByTestId('session-result');
    await done.waitFor({ timeout: 15_000 });
    expect(await done.getAttribute('data-status')).toBe('failure');
    expect(await done.innerText()).toMatch(/malformed/i);
    expect(await state.getAttribute('data-state')).toBe('finished');
  });
});
